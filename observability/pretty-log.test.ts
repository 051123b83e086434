import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { formatEntry } from './pretty-log.ts';

/** What a logger writes in pretty form, line by line. */
function prettyLines(log: (logger: ReturnType<typeof createLogger>) => void, color = false): string[] {
  const written: string[] = [];
  const logger = createLogger({ level: 'info', service: 'suite', format: 'pretty', color, destination: { write: (t: string) => written.push(t) } });
  log(logger);
  return written
    .join('')
    .split('\n')
    .filter((l) => l !== '');
}

describe('pretty log lines', () => {
  it('show time, level, where, message and the other fields on one line', () => {
    const [line] = prettyLines((l) => l.child({ component: 'storage' }).info({ version: 1, name: 'chains audit' }, 'migration applied'));
    expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}storage {6}migration applied {2}version=1 name="chains audit"$/);
  });

  it("name the edge, leave out what every line carries, and show an error's stack below", () => {
    const lines = prettyLines((l) => l.child({ edge: 'token' }).error({ err: new Error('boom'), reqId: 'r-1' }, 'request failed'));
    expect(lines[0]).toMatch(/ ERROR token {8}request failed {2}reqId=r-1$/);
    expect(lines[0]).not.toMatch(/pid=|service=|hostname=/);
    expect(lines[1]).toBe('    Error: boom');
    expect(lines[2]).toMatch(/^ {4} {4}at /);
  });

  it('keep credentials redacted, as the JSON lines do', () => {
    const [line] = prettyLines((l) => l.info({ headers: { authorization: 'Bearer secret-token', 'x-suite-admin-key': 'sk_admin_x' } }, 'headers'));
    expect(line).not.toMatch(/secret-token|sk_admin_x/);
    expect(line).toContain('[redacted]');
  });

  it('colour the level only when asked', () => {
    expect(prettyLines((l) => l.warn('careful'), true)[0]).toContain('\x1b[33mWARN \x1b[0m');
    expect(prettyLines((l) => l.warn('careful'))[0]).not.toContain('\x1b[');
  });

  it('show a level they do not know by its number', () => {
    expect(formatEntry({ level: 35, msg: 'custom level' })).toMatch(/^ 35 {4}custom level$/);
  });
});
