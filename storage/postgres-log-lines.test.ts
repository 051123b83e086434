import { describe, expect, it } from 'vitest';
import { postgresLogLevel } from './postgres-log-lines.ts';

/**
 * Issue 23 part 6: a normal start logged `FATAL: the database system is starting up` as an error:
 * the server's answer to the suite's own readiness probe, expected while it starts. Lines the
 * embedded Postgres writes are mapped to the suite's log levels here.
 */
const line = (text: string) => `2026-11-26 11:00:00.000 UTC [4242] ${text}`;

describe('the embedded Postgres log levels', () => {
  it('keeps the readiness probe\'s "starting up" refusal out of the log while the server starts', () => {
    expect(postgresLogLevel(line('FATAL:  the database system is starting up'), true)).toBeUndefined();
  });

  it('reports the same line as an error once the server was ready, and other FATAL and PANIC lines always', () => {
    expect(postgresLogLevel(line('FATAL:  the database system is starting up'), false)).toBe('error');
    expect(postgresLogLevel(line('FATAL:  could not open file "base/1/2": No such file or directory'), true)).toBe('error');
    expect(postgresLogLevel(line('PANIC:  could not write to file "pg_wal/xlogtemp.1"'), true)).toBe('error');
  });

  it('reports warnings as warnings and leaves other lines out', () => {
    expect(postgresLogLevel(line('WARNING:  worker took too long to start; canceled'), false)).toBe('warn');
    expect(postgresLogLevel(line('LOG:  database system is ready to accept connections'), false)).toBeUndefined();
  });
});
