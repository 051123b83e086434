/**
 * A cap on calls in flight to one upstream. A call waits for a slot at most `waitMs` (its own
 * timeout), first come first served; a slot is handed straight to the next waiter on release.
 */
export class Slots {
  readonly #max: number;
  #busy = 0;
  readonly #waiting: Array<(granted: boolean) => void> = [];

  constructor(max: number) {
    this.#max = max;
  }

  get busy(): number {
    return this.#busy;
  }

  /** Resolves true with a slot held, or false when none came free within `waitMs`. */
  acquire(waitMs: number): Promise<boolean> {
    if (this.#busy < this.#max) {
      this.#busy++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = (granted: boolean) => {
        clearTimeout(timer);
        resolve(granted);
      };
      const timer = setTimeout(() => {
        const at = this.#waiting.indexOf(grant);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(false);
      }, waitMs);
      this.#waiting.push(grant);
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    // The slot passes to the next waiter: `busy` stays as it is.
    if (next !== undefined) next(true);
    else this.#busy--;
  }
}
