import * as hdr from 'hdr-histogram-js';

/**
 * Latency statistics read from an HDR histogram (hdr-histogram-js). Samples are recorded in whole
 * microseconds with 3 significant digits (a recorded value is within 0.1% of the sample), from 1 µs
 * up to one hour, and read back in milliseconds.
 */
export interface LatencySummary {
  count: number;
  meanMs: number;
  stddevMs: number;
  minMs: number;
  p50Ms: number;
  p90Ms: number;
  p95Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
}

export const PERCENTILES = [
  ['p50Ms', 50],
  ['p90Ms', 90],
  ['p95Ms', 95],
  ['p99Ms', 99],
  ['p999Ms', 99.9],
] as const;

const HIGHEST_US = 3_600_000_000;

function newHistogram(): hdr.Histogram {
  // Plain JS (not WebAssembly): WASM needs an async initialisation and a histogram per run is small.
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_US, numberOfSignificantValueDigits: 3, useWebAssembly: false });
}

const toUs = (ms: number): number => Math.min(HIGHEST_US, Math.max(1, Math.round(ms * 1000)));
const toMs = (us: number): number => Math.round(us) / 1000;

function read(histogram: hdr.Histogram): LatencySummary {
  const summary: LatencySummary = {
    count: histogram.totalCount,
    meanMs: toMs(histogram.mean),
    stddevMs: toMs(histogram.stdDeviation),
    minMs: toMs(histogram.totalCount === 0 ? 0 : histogram.minNonZeroValue),
    p50Ms: 0,
    p90Ms: 0,
    p95Ms: 0,
    p99Ms: 0,
    p999Ms: 0,
    maxMs: toMs(histogram.maxValue),
  };
  // A percentile is its bucket's highest equivalent value (up to 0.1% above the samples in it): never
  // shown above the exact maximum.
  for (const [key, percentile] of PERCENTILES) summary[key] = Math.min(summary.maxMs, toMs(histogram.getValueAtPercentile(percentile)));
  return summary;
}

/** The summary of raw samples (milliseconds), each recorded once. */
export function summarizeLatencies(samplesMs: readonly number[]): LatencySummary {
  const histogram = newHistogram();
  try {
    for (const ms of samplesMs) histogram.recordValue(toUs(ms));
    return read(histogram);
  } finally {
    histogram.destroy();
  }
}

/**
 * Coordinated-omission correction (HdrHistogram's `recordValueWithExpectedInterval`): a sample
 * longer than the interval at which requests were expected to start also records the samples the
 * stalled client did not send meanwhile (value - interval, value - 2 x interval, ... down to the
 * interval), as an open-loop client sending at that interval would have seen them.
 */
export function summarizeCorrected(samplesMs: readonly number[], expectedIntervalMs: number): LatencySummary {
  const histogram = newHistogram();
  try {
    const interval = toUs(expectedIntervalMs);
    for (const ms of samplesMs) histogram.recordValueWithExpectedInterval(toUs(ms), interval);
    return read(histogram);
  } finally {
    histogram.destroy();
  }
}

/** Counts per bucket for a text histogram: `buckets` equal ranges from the minimum to the maximum. */
export function latencyBuckets(samplesMs: readonly number[], buckets = 10): { fromMs: number; toMs: number; count: number }[] {
  if (samplesMs.length === 0) return [];
  let min = Infinity;
  let max = -Infinity;
  for (const s of samplesMs) {
    if (s < min) min = s;
    if (s > max) max = s;
  }
  const width = max > min ? (max - min) / buckets : 1;
  const out = Array.from({ length: max > min ? buckets : 1 }, (_, i) => ({ fromMs: min + i * width, toMs: min + (i + 1) * width, count: 0 }));
  for (const s of samplesMs) {
    const i = Math.min(out.length - 1, Math.floor((s - min) / width));
    out[i]!.count += 1;
  }
  return out;
}
