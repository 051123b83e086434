/**
 * Per-minute buckets of the last hour, in memory (a restart starts empty: the dashboard keeps no
 * table). A minute nothing measured is `null` (a gap on the chart), never 0: 0 means it was measured
 * and nothing happened. Minutes are wall-clock minutes (UTC), so every dashboard agrees on them.
 */
export const MINUTE_MS = 60_000;
export const HOUR_MINUTES = 60;

export class MinuteBuckets {
  readonly #values = new Map<number, number>();
  readonly #clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }

  /** The minute (index since the epoch) `at` falls in; now by default. */
  minuteOf(at = this.#clock()): number {
    return Math.floor(at / MINUTE_MS);
  }

  /** A count seen (a counter's increase): added to the minute. */
  add(n: number, minute = this.minuteOf()): void {
    this.#values.set(minute, (this.#values.get(minute) ?? 0) + n);
    this.#prune();
  }

  /** The source was live during the minute: an unset minute becomes a measured 0. */
  touch(minute = this.minuteOf()): void {
    if (!this.#values.has(minute)) this.add(0, minute);
  }

  /** A gauge's sample: the minute keeps its highest sample (a peak is what an operator looks for). */
  peak(value: number, minute = this.minuteOf()): void {
    const had = this.#values.get(minute);
    this.#values.set(minute, had === undefined ? value : Math.max(had, value));
    this.#prune();
  }

  /** A minute's exact figure read from a source that knows it (the audit trail's count). */
  set(value: number, minute: number): void {
    this.#values.set(minute, value);
    this.#prune();
  }

  /** The last hour's minutes, oldest first, ending with the current one. */
  points(now = this.minuteOf()): (number | null)[] {
    const out: (number | null)[] = [];
    for (let m = now - HOUR_MINUTES + 1; m <= now; m++) out.push(this.#values.get(m) ?? null);
    return out;
  }

  #prune(): void {
    const oldest = this.minuteOf() - HOUR_MINUTES;
    for (const m of this.#values.keys()) if (m <= oldest) this.#values.delete(m);
  }
}

/**
 * Increases of a cumulative counter between two reads. A counter that went down was reset (its
 * process restarted): everything it holds now is new.
 */
export function counterIncrease(before: number | undefined, now: number): number {
  if (before === undefined) return 0;
  return now >= before ? now - before : now;
}
