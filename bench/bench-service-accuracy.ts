import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import * as hdr from 'hdr-histogram-js';
import { summarizeLatencies } from '../core/bench/index.ts';
import type { LocalServer } from './bench-service-servers.ts';

/**
 * The runner's percentiles beside autocannon's (docs/PERFORMANCE.md, "Benchmark service"): both
 * tools against the same server, one after the other, round after round (the order swapped every
 * round), so that a noisy moment of a shared machine falls on either; the figures compared are the
 * medians over the rounds. Each run also takes the server's own times for the same requests.
 *
 * Two pairs of figures, neither adjusted toward the other:
 * - **fine**: autocannon's own per-request durations (its `response` event carries the duration it
 *   measured, in fractions of a millisecond, before its histogram truncates it) and the runner's
 *   samples, both read by the runner's percentile code (core/bench), so only the measuring differs;
 * - **whole ms**: autocannon's printed p50/p99 (its histogram keeps whole milliseconds, truncated)
 *   beside the runner's samples truncated and read through a histogram built as autocannon builds it.
 */
export type RunnerMeasure = (url: string, calls: number, warmup: number, concurrency: number) => Promise<{ samplesMs: number[]; failed: number }>;

interface CannonResult {
  latency: { p50: number; p99: number };
  errors: number;
  non2xx: number;
}

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as (o: Record<string, unknown>) => Promise<CannonResult> & NodeJS.EventEmitter;

/** autocannon's latency histogram (lib/histUtil.js), in plain JS: whole milliseconds, 5 significant digits. */
function wholeMsPercentiles(samplesMs: readonly number[]): { p50: number; p99: number } {
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 10_000, numberOfSignificantValueDigits: 5, autoResize: true, useWebAssembly: false });
  try {
    for (const ms of samplesMs) h.recordValue(Math.floor(ms));
    return { p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99) };
  } finally {
    h.destroy();
  }
}

export interface Run {
  tool: 'autocannon' | 'runner';
  concurrency: number;
  round: number;
  calls: number;
  failed: number;
  /** Percentiles of the tool's own durations, read by core/bench. */
  p50Ms: number;
  p99Ms: number;
  /** Whole-millisecond percentiles as autocannon shows them (autocannon's own; the runner's samples truncated the same way). */
  p50WholeMs: number;
  p99WholeMs: number;
  /** The server's own time for the same requests. */
  serverP50Ms: number;
  serverP99Ms: number;
  /** autocannon only: its printed figures equal to its per-request durations read through its histogram. */
  printedMatchesDurations?: boolean;
  load1: number;
}

async function cannonRun(
  url: string,
  calls: number,
  warmup: number,
  c: number,
): Promise<{ samplesMs: number[]; printed: { p50: number; p99: number }; failed: number }> {
  await autocannon({ url, connections: c, amount: warmup }); // warm-up, discarded
  const samplesMs: number[] = [];
  const instance = autocannon({ url, connections: c, amount: calls });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) samplesMs.push(ms);
  });
  const r = await instance;
  return { samplesMs, printed: { p50: r.latency.p50, p99: r.latency.p99 }, failed: r.errors + r.non2xx };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function accuracy(o: {
  server: LocalServer;
  runner: RunnerMeasure;
  levels: readonly number[];
  rounds: number;
  callsPerLane: number;
  log(line: string): void;
}) {
  const runs: Run[] = [];
  for (const c of o.levels) {
    const calls = o.callsPerLane * c;
    const warmup = Math.min(50 * c, 400);
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? (['autocannon', 'runner'] as const) : (['runner', 'autocannon'] as const);
      for (const tool of order) {
        await o.server.served(); // forget the previous run's requests
        const load1 = Math.round(loadavg()[0]! * 100) / 100;
        let samplesMs: number[];
        let failed: number;
        let whole: { p50: number; p99: number };
        let printedMatchesDurations: boolean | undefined;
        if (tool === 'autocannon') {
          const r = await cannonRun(o.server.url, calls, warmup, c);
          ({ samplesMs, failed } = r);
          whole = r.printed;
          const check = wholeMsPercentiles(samplesMs);
          printedMatchesDurations = check.p50 === whole.p50 && check.p99 === whole.p99;
        } else {
          ({ samplesMs, failed } = await o.runner(o.server.url, calls, warmup, c));
          whole = wholeMsPercentiles(samplesMs);
        }
        // The server's list holds the warm-up too: its last `calls` requests are the measured ones.
        const served = (await o.server.served()).slice(-calls);
        const fine = summarizeLatencies(samplesMs);
        const server = summarizeLatencies(served);
        const run: Run = {
          tool,
          concurrency: c,
          round,
          calls: samplesMs.length,
          failed,
          p50Ms: fine.p50Ms,
          p99Ms: fine.p99Ms,
          p50WholeMs: whole.p50,
          p99WholeMs: whole.p99,
          serverP50Ms: server.p50Ms,
          serverP99Ms: server.p99Ms,
          ...(printedMatchesDurations !== undefined ? { printedMatchesDurations } : {}),
          load1,
        };
        runs.push(run);
        o.log(JSON.stringify(run));
      }
    }
  }
  return { runs, summary: summarize(runs, o.levels) };
}

/** Per concurrency: each figure's median over the rounds, per tool, its range, and runner / autocannon. */
function summarize(runs: readonly Run[], levels: readonly number[]) {
  const keys = ['p50Ms', 'p99Ms', 'p50WholeMs', 'p99WholeMs', 'serverP50Ms', 'serverP99Ms'] as const;
  return levels.map((c) => {
    const of = (tool: Run['tool']) => runs.filter((r) => r.concurrency === c && r.tool === tool);
    const stats = (tool: Run['tool']) =>
      Object.fromEntries(
        keys.map((k) => {
          const xs = of(tool).map((r) => r[k]);
          return [k, { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) }];
        }),
      ) as Record<(typeof keys)[number], { median: number; min: number; max: number }>;
    const a = stats('autocannon');
    const r = stats('runner');
    const ratio = (k: (typeof keys)[number]) => Math.round((r[k].median / a[k].median) * 1000) / 1000;
    return { concurrency: c, autocannon: a, runner: r, runnerOverAutocannon: Object.fromEntries(keys.map((k) => [k, ratio(k)])) };
  });
}
