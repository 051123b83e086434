import { SuiteError } from '../../bus/index.ts';

interface Waiter {
  upTo: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * The audit sink's durability counter: entries are numbered as they are recorded (1, 2, …); an
 * entry is durable once synced to the journal or settled by the chain (committed, or dropped as
 * refused by its schema), both of which happen in recording order, so "the first n are durable"
 * is one number. `wait(n)` resolves when it reaches n (AuditBatcher.durable).
 */
export class DurableCount {
  #recorded = 0;
  #settled = 0;
  #journaled = 0;
  #waiting: Waiter[] = [];

  get recorded(): number {
    return this.#recorded;
  }

  reached(upTo: number): boolean {
    return Math.max(this.#settled, this.#journaled) >= upTo;
  }

  /** `count` more recorded; `journaled` too when they were already in the journal (replayed). */
  record(count: number, journaled = false): void {
    this.#recorded += count;
    if (journaled) this.#journaled += count;
  }

  journaled(count: number): void {
    this.#journaled += count;
    this.#release();
  }

  settled(count: number): void {
    this.#settled += count;
    this.#release();
  }

  /** Resolves once the first `upTo` entries are durable; rejects with SERVICE_UNAVAILABLE after `timeoutMs`. */
  wait(upTo: number, timeoutMs: number): Promise<void> {
    if (this.reached(upTo)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting = this.#waiting.filter((w) => w !== waiter);
        reject(new SuiteError('SERVICE_UNAVAILABLE', `audit entry not committed within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      const waiter = {
        upTo,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      this.#waiting.push(waiter);
    });
  }

  /** Every waiter fails at once (the trail is failing and there is no journal, or the sink closed). */
  failAll(message: string): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) w.reject(new SuiteError('SERVICE_UNAVAILABLE', message));
  }

  #release(): void {
    if (this.#waiting.length === 0) return;
    // One pass at the durable level of now: this runs on every journal sync and chain commit, with
    // as many waiters as answers in flight.
    const level = Math.max(this.#settled, this.#journaled);
    const ready: Waiter[] = [];
    const still: Waiter[] = [];
    for (const w of this.#waiting) (w.upTo <= level ? ready : still).push(w);
    if (ready.length === 0) return;
    this.#waiting = still;
    for (const w of ready) w.resolve();
  }
}
