import type { CommonQueryMethods } from 'slonik';
import { SuiteError } from '../../bus/errors.ts';
import type { Storage } from '../../storage/types.ts';
import { GENESIS_HASH } from '../chain/index.ts';
import {
  acquireChainLease,
  ensureChainHead,
  readChainHead,
  releaseChainLease,
  renewChainLease,
  type HeadMove,
} from '../../storage/index.ts';

/**
 * How one chain's records are made and stored. `seal` is pure (hash, and for executions sign);
 * `insert` writes a batch and moves the head in one statement, fenced by `move`
 * (storage/chains.ts headMoveCte), answering the rows inserted: none when the head could not move.
 */
export interface ChainSpec<Input, Rec extends { seq: number; hash: string }> {
  readonly chain: string;
  seal(input: Input, seq: number, prevHash: string): Rec;
  insert(db: CommonQueryMethods, records: readonly Rec[], move: HeadMove): Promise<number>;
}

export interface ChainWriterOptions<Input, Rec extends { seq: number; hash: string }> {
  storage: Storage;
  spec: ChainSpec<Input, Rec>;
  /** Unique per process: who holds the lease. */
  holder: string;
  leaseMs?: number;
  /** Most records committed in one transaction. */
  maxBatch?: number;
  logger?: { info(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void };
  /** Called after each commit with the records it made durable. */
  onCommitted?: (records: readonly Rec[]) => void;
  /** Called when this writer gains or loses leadership. */
  onLeadership?: (leader: boolean) => void;
}

type State = 'idle' | 'standby' | 'leader' | 'stopping' | 'stopped';

interface Pending<Input, Rec> {
  inputs: readonly Input[];
  resolve: (records: Rec[]) => void;
  reject: (err: unknown) => void;
}

/** A batch hashed and signed on top of `from`, not yet committed. */
interface Sealed<Input, Rec> {
  batch: Pending<Input, Rec>[];
  from: { seq: number; hash: string };
  records: Rec[];
  last: Rec;
}

/**
 * The single writer of a chain. Exactly one process leads (a lease with a fencing epoch); the
 * others stand by and take over when the lease expires. Appends that arrive together are sealed and
 * inserted in one statement (group commit); each caller is answered only after it committed. The
 * head moves by compare-and-set, with the lease checked, in that same statement, so even a writer
 * that lost its lease without noticing cannot fork the chain.
 */
export class ChainWriter<Input, Rec extends { seq: number; hash: string }> {
  readonly #o: Required<Pick<ChainWriterOptions<Input, Rec>, 'leaseMs' | 'maxBatch'>> & ChainWriterOptions<Input, Rec>;
  #state: State = 'idle';
  #epoch = 0;
  #head = { seq: 0, hash: GENESIS_HASH };
  #queue: Pending<Input, Rec>[] = [];
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #leaseTick: Promise<void> | undefined;

  constructor(options: ChainWriterOptions<Input, Rec>) {
    this.#o = { leaseMs: 5000, maxBatch: 1000, ...options };
  }

  get isLeader(): boolean {
    return this.#state === 'leader';
  }

  get head(): { seq: number; hash: string } {
    return { ...this.#head };
  }

  async start(): Promise<void> {
    if (this.#state !== 'idle') return;
    await ensureChainHead(this.#o.storage.pool, this.#o.spec.chain, GENESIS_HASH);
    this.#state = 'standby';
    await this.#tickLease();
    this.#schedule();
  }

  /** Append inputs; resolves with their records once committed. */
  append(inputs: readonly Input[]): Promise<Rec[]> {
    if (this.#state !== 'leader') {
      return Promise.reject(new SuiteError('SERVICE_UNAVAILABLE', `not the writer of the ${this.#o.spec.chain} chain`));
    }
    if (inputs.length === 0) return Promise.resolve([]);
    return new Promise<Rec[]>((resolve, reject) => {
      this.#queue.push({ inputs, resolve, reject });
      this.#kick();
    });
  }

  /** Commit what is queued, give up the lease, and stop. */
  async stop(): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'stopping') return;
    const wasLeader = this.#state === 'leader';
    this.#state = 'stopping';
    if (this.#timer) clearTimeout(this.#timer);
    await this.#leaseTick;
    if (wasLeader) {
      // Let the flush under way finish before draining the rest, so two commits never race.
      await this.#flushing;
      await this.#drainQueue();
      await releaseChainLease(this.#o.storage.pool, this.#o.spec.chain, this.#o.holder, this.#epoch).catch(() => undefined);
    }
    this.#failQueue(new SuiteError('SERVICE_UNAVAILABLE', 'chain writer stopped'));
    this.#state = 'stopped';
    if (wasLeader) this.#o.onLeadership?.(false);
  }

  #schedule(): void {
    if (this.#state !== 'leader' && this.#state !== 'standby') return;
    // Renew at a third of the lease; a standby polls at the same pace to take over promptly.
    this.#timer = setTimeout(() => {
      this.#leaseTick = this.#tickLease().finally(() => this.#schedule());
    }, Math.max(50, Math.floor(this.#o.leaseMs / 3)));
    this.#timer.unref();
  }

  async #tickLease(): Promise<void> {
    const { storage, spec, holder, leaseMs } = this.#o;
    try {
      if (this.#state === 'leader') {
        if (!(await renewChainLease(storage.pool, spec.chain, holder, this.#epoch, leaseMs))) this.#stepDown('lease lost');
      } else if (this.#state === 'standby') {
        const epoch = await acquireChainLease(storage.pool, spec.chain, holder, leaseMs);
        if (epoch !== null) await this.#becomeLeader(epoch);
      }
    } catch (err) {
      this.#o.logger?.warn({ err, chain: spec.chain }, 'chain lease check failed');
      // A leader that cannot reach the database cannot know it still leads.
      if (this.#state === 'leader') this.#stepDown('lease check failed');
    }
  }

  async #becomeLeader(epoch: number): Promise<void> {
    const head = await readChainHead(this.#o.storage.pool, this.#o.spec.chain);
    if (!head) throw new Error(`chain ${this.#o.spec.chain} has no head row`);
    if (this.#state !== 'standby') return;
    this.#epoch = epoch;
    this.#head = { seq: head.seq, hash: head.hash };
    this.#state = 'leader';
    this.#o.logger?.info({ chain: this.#o.spec.chain, epoch, seq: head.seq }, 'chain writer leads');
    this.#o.onLeadership?.(true);
  }

  #stepDown(reason: string): void {
    if (this.#state !== 'leader') return;
    this.#state = 'standby';
    this.#o.logger?.warn({ chain: this.#o.spec.chain, reason }, 'chain writer stands down');
    this.#failQueue(new SuiteError('SERVICE_UNAVAILABLE', `chain writer lost leadership: ${reason}`));
    this.#o.onLeadership?.(false);
  }

  #kick(): void {
    if (this.#flushing) return;
    this.#flushing = this.#drainQueue().finally(() => {
      this.#flushing = undefined;
      if (this.#queue.length > 0 && this.#state === 'leader') this.#kick();
    });
  }

  /**
   * Commits queued appends batch after batch. While one batch's transaction is with the database,
   * the appends that queued meanwhile are sealed (hashed, signed) on top of it, so sealing is off
   * the critical path: the next transaction starts as soon as this one commits. When a commit fails,
   * the batch sealed on top of it is unsealed (its callers queued again, first in line) and sealed
   * anew from the head as re-read.
   */
  async #drainQueue(): Promise<void> {
    let ahead: Sealed<Input, Rec> | undefined;
    while ((ahead !== undefined || this.#queue.length > 0) && (this.#state === 'leader' || this.#state === 'stopping')) {
      const current = ahead ?? this.#seal(this.#takeBatch(), this.#head);
      ahead = undefined;
      if (!current) continue;
      const committing = this.#commit(current);
      // Observed below, after the next batch is sealed; until then a failure must not count as unhandled.
      committing.catch(() => undefined);
      if (this.#queue.length > 0) {
        // Let the transaction's first statement reach the database before sealing the next batch.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.#queue.length > 0) ahead = this.#seal(this.#takeBatch(), current.last);
      }
      try {
        await committing;
      } catch (err) {
        fail(current.batch, err);
        this.#putBack(ahead);
        ahead = undefined;
        if (this.#state === 'stopping') return;
        continue;
      }
      let at = 0;
      for (const p of current.batch) {
        p.resolve(current.records.slice(at, at + p.inputs.length));
        at += p.inputs.length;
      }
      this.#o.onCommitted?.(current.records);
    }
    this.#putBack(ahead);
  }

  /**
   * A batch sealed ahead of a commit that failed, or of a leadership that ended: its callers go back
   * to the head of the queue while this writer may still commit (leader, or draining to stop), and
   * are refused otherwise (the queue was refused when leadership ended).
   */
  #putBack(ahead: Sealed<Input, Rec> | undefined): void {
    if (!ahead) return;
    if (this.#state === 'leader' || this.#state === 'stopping') this.#queue.unshift(...ahead.batch);
    else fail(ahead.batch, new SuiteError('SERVICE_UNAVAILABLE', `not the writer of the ${this.#o.spec.chain} chain`));
  }

  /** Hash (and sign) a batch's inputs on top of `from`; a batch that cannot be sealed is refused. */
  #seal(batch: Pending<Input, Rec>[], from: { seq: number; hash: string }): Sealed<Input, Rec> | undefined {
    const records: Rec[] = [];
    let prev = from.hash;
    let seq = from.seq;
    try {
      for (const p of batch) {
        for (const input of p.inputs) {
          const rec = this.#o.spec.seal(input, ++seq, prev);
          records.push(rec);
          prev = rec.hash;
        }
      }
    } catch (err) {
      fail(batch, err);
      return undefined;
    }
    return { batch, from: { seq: from.seq, hash: from.hash }, records, last: records[records.length - 1] as Rec };
  }

  #takeBatch(): Pending<Input, Rec>[] {
    const batch: Pending<Input, Rec>[] = [];
    let count = 0;
    while (this.#queue.length > 0) {
      const next = this.#queue[0] as Pending<Input, Rec>;
      if (batch.length > 0 && count + next.inputs.length > this.#o.maxBatch) break;
      batch.push(next);
      count += next.inputs.length;
      this.#queue.shift();
    }
    return batch;
  }

  async #commit(sealed: Sealed<Input, Rec>): Promise<void> {
    const { storage, spec, holder } = this.#o;
    const { from, records, last } = sealed;
    const epoch = this.#epoch;
    try {
      // One statement, so one round trip and no explicit transaction: the head's compare-and-set,
      // the lease check and the insert commit together or not at all.
      const inserted = await spec.insert(storage.pool, records, {
        chain: spec.chain, fromSeq: from.seq, fromHash: from.hash, toSeq: last.seq, toHash: last.hash, holder, epoch,
      });
      if (inserted === 0) throw new FencedError();
      if (inserted !== records.length) throw new Error(`chain ${spec.chain}: ${inserted} of ${records.length} records inserted`);
    } catch (err) {
      // The outcome of a failed commit may be unknown (connection lost mid-commit): re-read the head
      // before writing again, and stand down when another writer has moved it.
      await this.#resync(err);
      throw err instanceof FencedError ? new SuiteError('SERVICE_UNAVAILABLE', 'chain writer was fenced') : err;
    }
    this.#head = { seq: last.seq, hash: last.hash };
  }

  async #resync(err: unknown): Promise<void> {
    try {
      const head = await readChainHead(this.#o.storage.pool as CommonQueryMethods, this.#o.spec.chain);
      if (head) this.#head = { seq: head.seq, hash: head.hash };
      if (err instanceof FencedError) this.#stepDown('fenced by another writer');
    } catch {
      this.#stepDown('database unreachable after a failed commit');
    }
  }

  #failQueue(err: SuiteError): void {
    const queued = this.#queue;
    this.#queue = [];
    for (const p of queued) p.reject(err);
  }
}

function fail<Input, Rec>(batch: readonly Pending<Input, Rec>[], err: unknown): void {
  const e = err instanceof SuiteError ? err : new SuiteError('SERVICE_UNAVAILABLE', 'append failed', { cause: err });
  for (const p of batch) p.reject(e);
}

class FencedError extends Error {
  constructor() {
    super('chain head moved or lease lost');
    this.name = 'FencedError';
  }
}
