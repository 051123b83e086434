import type { Link } from '@opentelemetry/api';
import { linkToActive } from '../../observability/index.ts';

/** One caller's append waiting to be committed. */
export interface Pending<Input, Rec> {
  inputs: readonly Input[];
  resolve: (records: Rec[]) => void;
  reject: (err: unknown) => void;
  /** The span of the request this append serves: the commit span links to it. */
  link: Link | undefined;
}

/**
 * The appends waiting for the chain writer, in arrival order, and how they are cut into batches
 * (group commit). The drain can wait for the next arrival while it has room in its pipeline.
 */
export class AppendQueue<Input, Rec> {
  #queue: Pending<Input, Rec>[] = [];
  /** Set while the drain waits with room in its pipeline: called by the next append. */
  #onArrival: (() => void) | undefined;

  readonly #maxBatch: number;

  constructor(maxBatch: number) {
    this.#maxBatch = maxBatch;
  }

  get length(): number {
    return this.#queue.length;
  }

  /** Queue an append; resolves with its records once committed. */
  add(inputs: readonly Input[]): Promise<Rec[]> {
    return new Promise<Rec[]>((resolve, reject) => {
      this.#queue.push({ inputs, resolve, reject, link: linkToActive() });
      const wake = this.#onArrival;
      this.#onArrival = undefined;
      wake?.();
    });
  }

  /** Resolves with `value` when the next append arrives (the wait ends at the next `stopWaiting`). */
  arrival<T>(value: T): Promise<T> {
    return new Promise<T>((resolve) => (this.#onArrival = () => resolve(value)));
  }

  stopWaiting(): void {
    this.#onArrival = undefined;
  }

  /** The oldest appends, as many as fit in one batch of `maxBatch` records (at least one append). */
  takeBatch(): Pending<Input, Rec>[] {
    const batch: Pending<Input, Rec>[] = [];
    let count = 0;
    while (this.#queue.length > 0) {
      const next = this.#queue[0] as Pending<Input, Rec>;
      if (batch.length > 0 && count + next.inputs.length > this.#maxBatch) break;
      batch.push(next);
      count += next.inputs.length;
      this.#queue.shift();
    }
    return batch;
  }

  /** Put a batch back first in line, to be sealed anew. */
  putBack(batch: readonly Pending<Input, Rec>[]): void {
    this.#queue.unshift(...batch);
  }

  /** Refuse every queued append. */
  failAll(err: unknown): void {
    const queued = this.#queue;
    this.#queue = [];
    for (const p of queued) p.reject(err);
  }
}
