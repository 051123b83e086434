import type { DestinationStream } from 'pino';

/**
 * Log lines for people (SUITE_LOG_FORMAT=pretty, the default on a terminal): pino still writes its
 * JSON line, redacted and serialised as always, and this destination rewrites it as one short line,
 *
 *   14:03:27.512 INFO  storage      migration applied  version=1 name=chains_audit_tokens
 *
 * time (local), level, where (the edge or component), message, then the other fields; an error's
 * stack on the lines below. Written here rather than taken from pino-pretty: that adds a dozen
 * packages and a worker-thread transport for what is a few lines of formatting (docs/DECISIONS.md).
 */
export interface PrettyOptions {
  /** ANSI colours (a terminal, and NO_COLOR unset). */
  color: boolean;
}

interface Out {
  write(text: string): unknown;
}

const LEVELS: Record<number, { label: string; color: string }> = {
  10: { label: 'TRACE', color: '90' },
  20: { label: 'DEBUG', color: '36' },
  30: { label: 'INFO ', color: '32' },
  40: { label: 'WARN ', color: '33' },
  50: { label: 'ERROR', color: '31' },
  60: { label: 'FATAL', color: '41;97' },
};

/** Keys every line carries, or that the line shows in its own place. */
const SHOWN_ELSEWHERE = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'edge', 'component', 'err']);

export function prettyDestination(out: Out, o: PrettyOptions): DestinationStream {
  const paint = (code: string, text: string) => (o.color ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      out.write(`${formatEntry(entry, paint)}\n`);
    },
  };
}

/** One entry as its pretty line (and an error's stack below it). */
export function formatEntry(e: Record<string, unknown>, paint: (code: string, text: string) => string = (_c, t) => t): string {
  const level = LEVELS[Number(e.level)] ?? { label: String(e.level).padEnd(5), color: '0' };
  const time = typeof e.time === 'number' ? clock(new Date(e.time)) : '';
  const where = typeof e.edge === 'string' ? e.edge : typeof e.component === 'string' ? e.component : '';
  const fields = Object.entries(e)
    .filter(([k]) => !SHOWN_ELSEWHERE.has(k))
    .map(([k, v]) => `${k}=${value(v)}`);
  const err = e.err as { type?: unknown; message?: unknown; stack?: unknown } | undefined;
  let text = `${paint('2', time)} ${paint(level.color, level.label)} ${where !== '' ? `${paint('1', where.padEnd(12))} ` : ''}${String(e.msg ?? '')}`;
  if (fields.length > 0) text += `  ${paint('2', fields.join(' '))}`;
  if (err !== undefined) {
    const stack = typeof err.stack === 'string' ? err.stack : `${String(err.type ?? 'Error')}: ${String(err.message ?? '')}`;
    text += `\n${stack
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n')}`;
  }
  return text;
}

const two = (n: number) => String(n).padStart(2, '0');

function clock(d: Date): string {
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** Plain words as they are; anything with a space, a quote or structure as JSON. */
function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}
