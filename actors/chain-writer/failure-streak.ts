/**
 * Whether something keeps failing: none of its attempts has succeeded for `stallMs`, and one
 * failed within the last `stallMs`. The second condition keeps a process that stopped receiving
 * work (taken out of a load balancer because it said it was not ready) from staying unready for
 * want of a success to prove it recovered: with no attempts, the evidence ages out.
 */
export class FailureStreak {
  readonly #stallMs: number;
  readonly #clock: () => number;
  /** When attempts started failing (none succeeded since), and when the last one failed. */
  #since: number | undefined;
  #last = 0;

  constructor(stallMs = 10_000, clock: () => number = Date.now) {
    this.#stallMs = stallMs;
    this.#clock = clock;
  }

  /** Records a failure; answers how long the streak has lasted, in ms. */
  failed(): number {
    const now = this.#clock();
    this.#since ??= now;
    this.#last = now;
    return now - this.#since;
  }

  succeeded(): void {
    this.#since = undefined;
  }

  get stalled(): boolean {
    if (this.#since === undefined) return false;
    const now = this.#clock();
    return now - this.#since >= this.#stallMs && now - this.#last < this.#stallMs;
  }
}
