import { performance } from 'node:perf_hooks';
import { summarizeCorrected, summarizeLatencies, meanAndStddev } from '../../core/bench/index.ts';
import type { CallResult, Target } from './providers/types.ts';
import type { JobSettings } from './store.ts';

export interface MeasureOptions {
  settings: JobSettings;
  signal: AbortSignal;
  /** Calls finished so far, warm-ups included. */
  onProgress(done: number): void;
  /** Each call as it ends (metrics). */
  onCall?(ok: boolean): void;
}

export interface Measured {
  results: CallResult[];
  /** Wall time of the measured calls (warm-ups excluded). */
  wallMs: number;
}

/**
 * Closed-loop lanes: `concurrency` lanes each send their next call when the previous one ends,
 * until `testRuns` calls are done. Warm-ups go first, through the same lanes (so every connection a
 * lane uses is open), and are discarded.
 */
export async function measure(target: Target, o: MeasureOptions): Promise<Measured> {
  const { warmupRuns, testRuns, concurrency } = o.settings;
  let done = 0;
  const phase = async (calls: number, keep: CallResult[] | undefined): Promise<void> => {
    let started = 0;
    const lane = async (): Promise<void> => {
      while (started < calls && !o.signal.aborted) {
        started += 1;
        const result = await target.call(o.signal);
        // A refused target stays refused: the policy, not the target, answered.
        if (result.refusal !== undefined) throw new TargetRefusedError(result.refusal);
        keep?.push(result);
        o.onCall?.(result.ok && (result.status === undefined || result.status < 400));
        done += 1;
        o.onProgress(done);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, calls)) }, lane));
  };
  await phase(warmupRuns, undefined);
  const results: CallResult[] = [];
  const start = performance.now();
  await phase(testRuns, results);
  const wallMs = performance.now() - start;
  if (o.signal.aborted) throw o.signal.reason ?? new Error('aborted');
  return { results, wallMs };
}

/** The outbound guard refused the target during the run. */
export class TargetRefusedError extends Error {
  readonly code = 'OUTBOUND_REFUSED';
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** The measurements of a finished job (docs/BENCHMARK.md, "Result"). */
export function resultOf(measured: Measured): Record<string, unknown> {
  const { results, wallMs } = measured;
  const good = results.filter((r) => r.ok && (r.status === undefined || r.status < 400));
  const samplesMs = good.map((r) => round3(r.latencyMs));
  const statusCodes: Record<string, number> = {};
  const errorsByKind: Record<string, number> = {};
  for (const r of results) {
    if (r.status !== undefined) statusCodes[r.status] = (statusCodes[r.status] ?? 0) + 1;
    if (r.errorKind !== undefined) errorsByKind[r.errorKind] = (errorsByKind[r.errorKind] ?? 0) + 1;
  }
  const latency = summarizeLatencies(samplesMs);
  // The interval a closed-loop lane meant to keep is its usual service time: the median.
  const expectedIntervalMs = latency.p50Ms;
  const out: Record<string, unknown> = {
    succeeded: good.length,
    failed: results.length - good.length,
    durationMs: round3(wallMs),
    throughputPerSecond: wallMs > 0 ? round3((results.length / wallMs) * 1000) : 0,
    latency,
    latencyCorrected: good.length > 0 ? summarizeCorrected(samplesMs, Math.max(0.001, expectedIntervalMs)) : latency,
    coordinatedOmission: { method: 'closed-loop lanes; corrected histogram with the median latency as the expected interval', expectedIntervalMs },
    statusCodes,
    errorsByKind,
    samplesMs,
  };
  const ttfts = good.flatMap((r) => (r.ttftMs !== undefined ? [round3(r.ttftMs)] : []));
  if (ttfts.length > 0) {
    const gaps = good.flatMap((r) => (r.gapsMs ?? []).map(round3));
    out.ttft = summarizeLatencies(ttfts);
    out.interTokenLatency = gaps.length > 0 ? summarizeLatencies(gaps) : null;
    const rates = good.filter((r) => (r.outputTokens ?? 0) > 0 && r.latencyMs > 0).map((r) => (r.outputTokens! / r.latencyMs) * 1000);
    out.outputTokensPerSecond = rates.length > 0 ? round3(meanAndStddev(rates).mean) : 0;
    out.outputTokens = good.reduce((n, r) => n + (r.outputTokens ?? 0), 0);
  }
  return out;
}
