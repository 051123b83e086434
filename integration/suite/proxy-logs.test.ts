import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Per-request logs are off by default everywhere, the dashboard's same-origin proxy included
 * (docs/OBSERVABILITY.md, Logs; issue 24): a burst of proxied requests writes no line at `info`,
 * and with SUITE_ACCESS_LOG=true exactly one per request per listener it crosses.
 */

function lineCounter() {
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  return {
    lines,
    destination: {
      write(chunk: string) {
        lines.push(...chunk.split('\n').filter((l) => l !== ''));
        for (const wake of [...waiters]) wake();
      },
    },
    /** Resolves once `holds` is true of the lines written so far (checked on each write). */
    until(holds: (lines: readonly string[]) => boolean): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (!holds(lines)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** Access lines are written in each listener's onResponse hook, after the answer has gone out. */
const accessLines = (lines: readonly string[]) => lines.filter((l) => l.includes('"msg":"request completed"')).length;

const BURST = 40;

async function burst(t: TestSuite): Promise<void> {
  const answers = await Promise.all(Array.from({ length: BURST }, () => fetch(t.url('dashboard', '/api/token/capabilities'))));
  // Unauthenticated: the token listener refuses, through the proxy, with its own 401.
  expect(answers.map((r) => r.status)).toEqual(Array(BURST).fill(401));
}

describe('log lines of proxied requests', () => {
  const quiet = lineCounter();
  let t: TestSuite;
  beforeAll(async () => {
    t = await startTestSuite({ SUITE_LOG_LEVEL: 'info' }, [], { logDestination: quiet.destination });
  }, machineTimeout(60_000));
  afterAll(() => t?.stop());

  it('are none at info by default, for a burst of 40', async () => {
    await burst(t);
    const before = quiet.lines.length;
    await burst(t);
    expect(quiet.lines.slice(before)).toEqual([]);
  });
});

describe('log lines of proxied requests with the access log on', () => {
  const counted = lineCounter();
  let t: TestSuite;
  beforeAll(async () => {
    t = await startTestSuite({ SUITE_LOG_LEVEL: 'info', SUITE_ACCESS_LOG: 'true' }, [], { logDestination: counted.destination });
  }, machineTimeout(60_000));
  afterAll(() => t?.stop());

  it('are one access line per request on each listener it crosses (dashboard, then token)', async () => {
    await burst(t);
    await counted.until((lines) => accessLines(lines) >= 2 * BURST);
    const before = counted.lines.length;
    await burst(t);
    await counted.until((lines) => accessLines(lines.slice(before)) >= 2 * BURST);
    const lines = counted.lines.slice(before).map((l) => JSON.parse(l) as { msg: string; route?: string; edge?: string });
    expect(lines.filter((l) => l.msg === 'request completed' && l.route === '/api/:listener/*')).toHaveLength(BURST);
    expect(lines.filter((l) => l.msg === 'request completed' && l.route === '/capabilities')).toHaveLength(BURST);
    // Nothing else of the proxy's: other lines in the window are other work's (the dashboard's own
    // health probes of the listeners have access lines too).
    expect(lines.filter((l) => l.msg !== 'request completed')).toEqual([]);
  });
});
