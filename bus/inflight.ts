/**
 * Counts work in progress so that a drain can wait for it. Handlers of the bus are async and the
 * transports do not await them (nats.js callbacks return void), so the bus keeps its own count.
 */
export class InFlight {
  #count = 0;
  #waiters: Array<() => void> = [];

  get count(): number {
    return this.#count;
  }

  /** Runs `work`, counting it until it settles. Never rejects on behalf of the count. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#count++;
    return work.finally(() => {
      this.#count--;
      if (this.#count === 0) this.#wake();
    });
  }

  /** Resolves once nothing is in flight (at once when idle). */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

/** Resolves with true when `work` settles first, false when `ms` pass first; clears its timer. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}
