/**
 * How a line of the embedded Postgres's log reaches the suite's log (storage/embedded-postgres.ts).
 * FATAL and PANIC are errors and WARNING warnings, except one expected line: while the server
 * starts, the suite's readiness probe is refused with `FATAL: the database system is starting up`
 * (issue 23 part 6: a normal start logged it as an error). It is left out of the log then, and still
 * kept in the tail that a failed start reports; once the server was ready, it is an error again.
 */
const STARTING_UP = /\bFATAL:\s+the database system is starting up\b/;

export function postgresLogLevel(line: string, starting: boolean): 'error' | 'warn' | undefined {
  if (starting && STARTING_UP.test(line)) return undefined;
  if (/\b(FATAL|PANIC):/.test(line)) return 'error';
  if (/\bWARNING:/.test(line)) return 'warn';
  return undefined;
}
