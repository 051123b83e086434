import { describe, expect, it } from 'vitest';
import { counterIncrease, HOUR_MINUTES, MINUTE_MS, MinuteBuckets } from './minute-buckets.ts';

describe("the dashboard's per-minute buckets", () => {
  it('add counts to the minute they fall in and show unmeasured minutes as null, not 0', () => {
    let now = 1_000 * MINUTE_MS + 5_000;
    const b = new MinuteBuckets(() => now);
    b.add(2);
    b.add(1);
    now += MINUTE_MS;
    b.touch();
    const points = b.points();
    expect(points).toHaveLength(HOUR_MINUTES);
    expect(points.slice(-3)).toEqual([null, 3, 0]);
  });

  it("keep the peak of a gauge's samples within a minute, and an exact figure set for a minute", () => {
    const now = 500 * MINUTE_MS;
    const b = new MinuteBuckets(() => now);
    b.peak(4);
    b.peak(9);
    b.peak(2);
    b.set(7, b.minuteOf() - 1);
    expect(b.points().slice(-2)).toEqual([7, 9]);
  });

  it('forget minutes older than an hour', () => {
    let now = 2_000 * MINUTE_MS;
    const b = new MinuteBuckets(() => now);
    b.add(5);
    now += HOUR_MINUTES * MINUTE_MS;
    b.add(1);
    expect(b.points().filter((p) => p !== null)).toEqual([1]);
  });

  it("read a counter's increase, and a reset counter as all new", () => {
    expect(counterIncrease(undefined, 10)).toBe(0);
    expect(counterIncrease(10, 14)).toBe(4);
    expect(counterIncrease(14, 3)).toBe(3);
  });
});
