/**
 * Cron firing lateness as a user observes it (issue 28, part 5): `--schedules` schedules (1,000 by
 * default), all due at the same minute boundary, each calling a local HTTP target that records when
 * each request arrives. Lateness = arrival at the target − the due time, measured outside the
 * product (the target runs in this process; the suite is a child process on the same machine,
 * same clock). Nothing the scheduler records about itself is used.
 *
 *   node bench/cron-lateness.ts [--schedules 1000] [--workers N] [--poll-ms N]
 *
 * The suite runs as `suite start` (embedded) with the scheduler's defaults unless --workers /
 * --poll-ms are given; the rate limit is lifted so that creating the schedules is not refused.
 * Bounded: waits at most 60 s past the due time, then stops the suite.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { mint } from './api.ts';
import { cleanEnv, killAllChildren, spawnNode } from './child.ts';
import { summarize, type Summary } from './stats.ts';

export const CRON_LATENESS_TARGET_P99_MS = 1000;
/**
 * An early firing, if the scheduler made one, would come within its lookahead (2 s) of the due
 * time; arrivals further back belong to an earlier minute boundary (creating 1,000 schedules on a
 * loaded machine can cross one), so they are not counted as early.
 */
const EARLY_WINDOW_MS = 5_000;
/** The minute boundary chosen is at least this far after the last schedule is created. */
const LEAD_MS = 10_000;
const WAIT_PAST_DUE_MS = 60_000;

export interface CronLatenessResult {
  schedules: number;
  settings: string;
  due: number;
  /** Arrival − due of each schedule's first request at or after the due time, ms. */
  lateness: Summary;
  /** Requests that arrived in the few seconds before the due time (none expected). */
  early: number;
  missing: number;
  loadAtDue: number;
}

const SUITE_PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];

export async function runCronLateness(o: { schedules: number; workers?: number | undefined; pollMs?: number | undefined }): Promise<CronLatenessResult> {
  const arrivals = new Map<number, number[]>();
  let allArrived: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allArrived = resolve;
  });
  let due = Number.POSITIVE_INFINITY;
  let onTime = 0;
  const target = createServer((req, res) => {
    const at = Date.now();
    const i = Number(/^\/cron\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
    if (i >= 0) {
      const list = arrivals.get(i) ?? [];
      list.push(at);
      arrivals.set(i, list);
      if (at >= due && list.filter((t) => t >= due).length === 1 && ++onTime === o.schedules) allArrived();
    }
    req.resume();
    res.writeHead(204).end();
  });
  target.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;

  const dir = await mkdtemp(join(tmpdir(), 'suite-bench-cron-'));
  const env = cleanEnv({
    SUITE_LOG_LEVEL: 'warn',
    SUITE_RATE_LIMIT_MAX: '100000000',
    SUITE_HOST: '127.0.0.1',
    ...(o.workers !== undefined ? { SCHEDULER_WORKERS: String(o.workers) } : {}),
    ...(o.pollMs !== undefined ? { SCHEDULER_POLL_MS: String(o.pollMs) } : {}),
    ...Object.fromEntries(SUITE_PORTS.map((p) => [p, '0'])),
  });
  const child = spawnNode('cli/suite.ts', ['start', '--data-dir', join(dir, 'data')], { env });
  try {
    const tokenPort = (await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1];
    const schedulerPort = (await child.waitFor(/^scheduler\s+http:\/\/127\.0\.0\.1:(\d+)/m, 10_000))[1];
    const { adminKey } = JSON.parse(await readFile(join(dir, 'data', 'secrets.json'), 'utf8')) as { adminKey: string };
    const { token } = await mint(`http://127.0.0.1:${tokenPort}`, adminKey, 'bench-agent', ['schedule:create', 'queue:write', 'queue:read']);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < o.schedules) {
          const i = next++;
          const res = await fetch(`http://127.0.0.1:${schedulerPort}/schedule`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ id: `c${i}`, cron: '* * * * *', task: { type: 'http', url: `${targetUrl}/cron/${i}` }, retry: { maxAttempts: 1 } }),
          });
          const text = await res.text();
          if (res.status !== 201) throw new Error(`POST /schedule answered ${res.status}: ${text}`);
        }
      }),
    );
    due = Math.ceil((Date.now() + LEAD_MS) / 60_000) * 60_000;
    process.stderr.write(`cron-lateness: ${o.schedules} schedules created; due ${new Date(due).toISOString()}\n`);
    let loadAtDue = 0;
    setTimeout(() => {
      loadAtDue = loadavg()[0] ?? 0;
    }, due - Date.now()).unref();
    const timer = setTimeout(allArrived, due - Date.now() + WAIT_PAST_DUE_MS);
    await done;
    clearTimeout(timer);
    let early = 0;
    const lateness: number[] = [];
    for (const list of arrivals.values()) {
      early += list.filter((t) => t < due && t >= due - EARLY_WINDOW_MS).length;
      const first = list.find((t) => t >= due);
      if (first !== undefined) lateness.push(first - due);
    }
    const settings = `SCHEDULER_WORKERS ${o.workers ?? 'default (16)'}, SCHEDULER_POLL_MS ${o.pollMs ?? 'default (200)'}`;
    return { schedules: o.schedules, settings, due, lateness: summarize(lateness), early, missing: o.schedules - lateness.length, loadAtDue };
  } finally {
    await child.stop(30_000);
    target.closeAllConnections();
    target.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function cronLatenessMarkdown(r: CronLatenessResult): string {
  const s = r.lateness;
  const met = s.n === r.schedules && s.p99 <= CRON_LATENESS_TARGET_P99_MS;
  return [
    `${r.schedules} schedules (\`* * * * *\`, an HTTP task each to a local target), all due at ${new Date(r.due).toISOString()}; ${r.settings}; load average at the due time ${r.loadAtDue.toFixed(1)}.`,
    '',
    "| from the due time to the request's arrival at the target | n | min | p50 | p90 | p99 | max | target |",
    '|---|---:|---:|---:|---:|---:|---:|---|',
    `| cron firing lateness | ${s.n} | ${s.min} ms | ${s.p50} ms | ${s.p90} ms | ${s.p99} ms | ${s.max} ms | p99 ≤ ${CRON_LATENESS_TARGET_P99_MS} ms: ${met ? 'met' : '**NOT met**'} |`,
    '',
    `- Arrived in the ${EARLY_WINDOW_MS / 1000} s before the due time (an early firing): ${r.early}. Never arrived within ${WAIT_PAST_DUE_MS / 1000} s: ${r.missing}.`,
  ].join('\n');
}

export const CRON_ARGS = {
  schedules: { type: 'string', default: '1000' },
  workers: { type: 'string' },
  'poll-ms': { type: 'string' },
} as const;

if (import.meta.main) {
  const { values } = parseArgs({ args: process.argv.slice(2), options: CRON_ARGS });
  const watchdog = setTimeout(() => {
    killAllChildren();
    process.exit(2);
  }, 300_000);
  watchdog.unref();
  const r = await runCronLateness({
    schedules: Number(values.schedules),
    workers: values.workers !== undefined ? Number(values.workers) : undefined,
    pollMs: values['poll-ms'] !== undefined ? Number(values['poll-ms']) : undefined,
  });
  process.stdout.write(`${cronLatenessMarkdown(r)}\n`);
  clearTimeout(watchdog);
}
