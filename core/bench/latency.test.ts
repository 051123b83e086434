import { describe, expect, it } from 'vitest';
import { latencyBuckets, summarizeCorrected, summarizeLatencies } from './latency.ts';

describe('latency summaries from the HDR histogram', () => {
  it('reads percentiles, mean and maximum of known samples within the histogram precision', () => {
    // 1..100 ms: p50 = 50, p90 = 90, p99 = 99 (nearest rank), mean 50.5, max 100.
    const samples = Array.from({ length: 100 }, (_, i) => i + 1);
    const s = summarizeLatencies(samples);
    expect(s.count).toBe(100);
    expect(s.p50Ms).toBeCloseTo(50, 1);
    expect(s.p90Ms).toBeCloseTo(90, 1);
    expect(s.p99Ms).toBeCloseTo(99, 1);
    expect(s.maxMs).toBeCloseTo(100, 1);
    expect(s.minMs).toBeCloseTo(1, 2);
    expect(Math.abs(s.meanMs - 50.5) / 50.5).toBeLessThan(0.001);
    // Population standard deviation of 1..100 is sqrt((100^2 - 1) / 12).
    expect(Math.abs(s.stddevMs - Math.sqrt(9999 / 12)) / 28.866).toBeLessThan(0.001);
  });

  it("never shows a percentile above the maximum (a bucket's top is above the samples in it)", () => {
    const s = summarizeLatencies([10, 20, 160.6]);
    expect(s.maxMs).toBe(160.6);
    expect(s.p999Ms).toBeLessThanOrEqual(160.6);
    expect(s.p99Ms).toBeLessThanOrEqual(160.6);
  });

  it('keeps sub-millisecond samples (microsecond resolution)', () => {
    const s = summarizeLatencies([0.25, 0.25, 0.25, 0.25]);
    expect(s.p50Ms).toBeCloseTo(0.25, 3);
  });

  it('corrects coordinated omission: one 100 ms stall at a 10 ms interval adds the 9 samples it hid', () => {
    const samples = [...Array.from({ length: 90 }, () => 10), 100];
    const raw = summarizeLatencies(samples);
    const corrected = summarizeCorrected(samples, 10);
    expect(raw.count).toBe(91);
    // recordValueWithExpectedInterval(100, 10) also records 90, 80, ..., 10 (HdrHistogram's definition):
    // sorted, 91 values of 10 then 20, 30, ..., 100, so the 95th is 50.
    expect(corrected.count).toBe(100);
    expect(raw.p95Ms).toBeCloseTo(10, 1);
    expect(corrected.p95Ms).toBeCloseTo(50, 0);
    expect(corrected.maxMs).toBeCloseTo(100, 1);
  });

  it('buckets samples into equal ranges for the text histogram', () => {
    const b = latencyBuckets([1, 2, 3, 4, 10], 3);
    // Ranges [1, 4), [4, 7), [7, 10]: the maximum falls in the last.
    expect(b.map((x) => x.count)).toEqual([3, 1, 1]);
    expect(latencyBuckets([5, 5], 3)).toEqual([{ fromMs: 5, toMs: 6, count: 2 }]);
  });
});
