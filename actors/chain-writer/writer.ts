import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import { SuiteError } from '../../bus/errors.ts';
import type { Storage } from '../../storage/types.ts';
import { GENESIS_HASH } from '../chain/index.ts';
import {
  acquireChainLease,
  advanceChainHead,
  ensureChainHead,
  readChainHead,
  releaseChainLease,
  renewChainLease,
} from '../../storage/index.ts';

/**
 * How one chain's records are made and stored. `seal` is pure (hash, and for executions sign);
 * `insert` writes a batch inside the writer's transaction.
 */
export interface ChainSpec<Input, Rec extends { seq: number; hash: string }> {
  readonly chain: string;
  seal(input: Input, seq: number, prevHash: string): Rec;
  insert(tx: DatabaseTransactionConnection, records: readonly Rec[]): Promise<void>;
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

/**
 * The single writer of a chain. Exactly one process leads (a lease with a fencing epoch); the
 * others stand by and take over when the lease expires. Appends that arrive together are sealed and
 * inserted in one transaction (group commit); each caller is answered only after that commit. The
 * head moves by compare-and-set inside the transaction, so even a writer that lost its lease without
 * noticing cannot fork the chain.
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

  async #drainQueue(): Promise<void> {
    while (this.#queue.length > 0 && (this.#state === 'leader' || this.#state === 'stopping')) {
      const batch = this.#takeBatch();
      try {
        const records = await this.#commit(batch.flatMap((p) => p.inputs));
        let at = 0;
        for (const p of batch) {
          p.resolve(records.slice(at, at + p.inputs.length));
          at += p.inputs.length;
        }
        this.#o.onCommitted?.(records);
      } catch (err) {
        for (const p of batch) p.reject(err instanceof SuiteError ? err : new SuiteError('SERVICE_UNAVAILABLE', 'append failed', { cause: err }));
        if (this.#state === 'stopping') return;
      }
    }
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

  async #commit(inputs: readonly Input[]): Promise<Rec[]> {
    const { storage, spec, holder } = this.#o;
    const from = this.#head;
    const records: Rec[] = [];
    let prev = from.hash;
    for (let i = 0; i < inputs.length; i++) {
      const rec = spec.seal(inputs[i] as Input, from.seq + i + 1, prev);
      records.push(rec);
      prev = rec.hash;
    }
    const last = records[records.length - 1] as Rec;
    const epoch = this.#epoch;
    try {
      await storage.pool.transaction(async (tx) => {
        const moved = await advanceChainHead(tx, spec.chain, {
          fromSeq: from.seq, fromHash: from.hash, toSeq: last.seq, toHash: last.hash, holder, epoch,
        });
        if (!moved) throw new FencedError();
        await spec.insert(tx, records);
      }, 0);
    } catch (err) {
      // The outcome of a failed commit may be unknown (connection lost mid-commit): re-read the head
      // before writing again, and stand down when another writer has moved it.
      await this.#resync(err);
      throw err instanceof FencedError ? new SuiteError('SERVICE_UNAVAILABLE', 'chain writer was fenced') : err;
    }
    this.#head = { seq: last.seq, hash: last.hash };
    return records;
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

class FencedError extends Error {
  constructor() {
    super('chain head moved or lease lost');
    this.name = 'FencedError';
  }
}
