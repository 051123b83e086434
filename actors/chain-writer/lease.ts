import type { CommonQueryMethods } from 'slonik';
import { acquireChainLease, chainLeaseRemainingMs, reclaimChainLease, releaseChainLease, renewChainLease } from '../../storage/index.ts';

/**
 * A chain writer's lease (storage/chains.ts): who may move the chain's head, fenced by an epoch that
 * every take of the lease moves. Times are the database's, so writers on different machines agree.
 */
export class ChainLease {
  readonly #db: CommonQueryMethods;
  readonly #chain: string;
  readonly #holder: string;
  readonly #leaseMs: number;
  #epoch = 0;

  constructor(o: { db: CommonQueryMethods; chain: string; holder: string; leaseMs: number }) {
    this.#db = o.db;
    this.#chain = o.chain;
    this.#holder = o.holder;
    this.#leaseMs = o.leaseMs;
  }

  /** The fencing epoch of the lease this writer took last (0 before any). */
  get epoch(): number {
    return this.#epoch;
  }

  /** Take the lease when it is free, expired or already ours: its epoch, or null when another holds it. */
  async take(): Promise<number | null> {
    const epoch = await acquireChainLease(this.#db, this.#chain, this.#holder, this.#leaseMs);
    if (epoch !== null) this.#epoch = epoch;
    return epoch;
  }

  /**
   * Extend the lease; false when another writer took it. Late (the event loop was busy past the
   * lease, as in the first seconds after a start): still ours if nobody took it, by its unchanged
   * epoch (storage/chains.ts, reclaimChainLease). Both the renewal and a commit fenced by the run-out
   * lease come here (issue 36 item 8: the commit's path stood the writer down).
   */
  async keep(): Promise<boolean> {
    return (
      (await renewChainLease(this.#db, this.#chain, this.#holder, this.#epoch, this.#leaseMs)) ||
      (await reclaimChainLease(this.#db, this.#chain, this.#holder, this.#epoch, this.#leaseMs))
    );
  }

  /** How long until the lease (held by anyone) runs out by the database clock, in ms. */
  remainingMs(): Promise<number> {
    return chainLeaseRemainingMs(this.#db, this.#chain);
  }

  /** Give the lease up at once (a standby takes over without waiting for it to run out). */
  release(): Promise<void> {
    return releaseChainLease(this.#db, this.#chain, this.#holder, this.#epoch);
  }
}
