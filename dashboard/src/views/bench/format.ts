import type { LatencySummary } from './types';

/** A latency in milliseconds, with three significant figures at most (a tenth of a microsecond shown is noise). */
export function ms(x: number): string {
  if (!Number.isFinite(x)) return '—';
  const digits = Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : Math.abs(x) >= 1 ? 2 : 3;
  return `${x.toFixed(digits)} ms`;
}

/** The percentile table's columns, in the order the report shows them. */
export const SUMMARY_COLUMNS: readonly [string, keyof LatencySummary][] = [
  ['n', 'count'],
  ['mean', 'meanMs'],
  ['stddev', 'stddevMs'],
  ['p50', 'p50Ms'],
  ['p90', 'p90Ms'],
  ['p95', 'p95Ms'],
  ['p99', 'p99Ms'],
  ['p99.9', 'p999Ms'],
  ['max', 'maxMs'],
];

/**
 * The empirical percentile curve of the samples: for each sorted sample, the share of samples at or
 * below it. Drawn beside the HDR percentiles so the whole distribution shows, not seven points.
 */
export function percentileCurve(samplesMs: readonly number[]): { percent: number[]; latencyMs: number[] } {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const n = sorted.length;
  return { percent: sorted.map((_, i) => (n === 1 ? 100 : (i / (n - 1)) * 100)), latencyMs: sorted };
}

export interface Bucket {
  fromMs: number;
  toMs: number;
  count: number;
}

/** Equal-width latency buckets from the minimum to the maximum (as the report's text histogram). */
export function histogram(samplesMs: readonly number[], buckets: number): Bucket[] {
  if (samplesMs.length === 0) return [];
  let min = Infinity;
  let max = -Infinity;
  for (const s of samplesMs) {
    if (s < min) min = s;
    if (s > max) max = s;
  }
  const count = max > min ? buckets : 1;
  const width = max > min ? (max - min) / buckets : 1;
  const out: Bucket[] = Array.from({ length: count }, (_, i) => ({ fromMs: min + i * width, toMs: min + (i + 1) * width, count: 0 }));
  for (const s of samplesMs) out[Math.min(count - 1, Math.floor((s - min) / width))]!.count += 1;
  return out;
}

/** How many buckets suit n samples (Sturges' rule, bounded so each bar stays readable). */
export function bucketCount(n: number): number {
  return Math.max(5, Math.min(30, Math.ceil(Math.log2(Math.max(1, n)) + 1)));
}
