import type { CommonQueryMethods } from 'slonik';
import { NOTHING_DONE, OUTCOME_UNKNOWN, SuiteError } from '../../bus/index.ts';
import { storageOutage, storageOutageMessage, type Storage } from '../../storage/index.ts';
import type { Link } from '@opentelemetry/api';
import { backgroundSpan, batchSpan, detached, linkToActive, type ChainMetrics } from '../../observability/index.ts';
import { GENESIS_HASH } from '../../core/chain/index.ts';
import { FailureStreak } from './failure-streak.ts';
import { ensureChainHead, readChainHead, type HeadMove } from '../../storage/index.ts';
import { ChainLease } from './lease.ts';

/**
 * How one chain's records are made and stored. `seal` is pure (hash, and for executions sign);
 * `insert` writes a batch and moves the head in one statement, fenced by `move`
 * (storage/chains.ts headMoveCte), answering the rows inserted: none when the head could not move.
 */
export interface ChainSpec<Input, Rec extends { seq: number; hash: string }> {
  readonly chain: string;
  seal(input: Input, seq: number, prevHash: string): Rec;
  /**
   * Completes a sealed batch before it is committed, with work that need not be done in chain order
   * on this thread (executions: the signatures, on a signing thread). Optional.
   */
  complete?(records: Rec[]): Promise<void>;
  insert(db: CommonQueryMethods, records: readonly Rec[], move: HeadMove): Promise<number>;
}

export interface ChainWriterOptions<Input, Rec extends { seq: number; hash: string }> {
  storage: Storage;
  spec: ChainSpec<Input, Rec>;
  /** Unique per process: who holds the lease. */
  holder: string;
  /** How long a lease lasts unless renewed (database clock): a standby takes over this long after the leader's last renewal. */
  leaseMs?: number;
  /**
   * How often the leader renews its lease and a standby tries to take it (default a third of the
   * lease). A standby also tries when the lease it found held expires, so it takes over between
   * `leaseMs - renewMs` and `leaseMs` after the leader dies (docs/RELIABILITY.md, "Chain writer failover").
   */
  renewMs?: number;
  /** Most records committed in one transaction. */
  maxBatch?: number;
  /**
   * Most batches under way at once (default 2): one committing, the others sealed and signed on top
   * of it, each sent as soon as the one before it commits.
   */
  pipeline?: number;
  logger?: { info(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void };
  /** Called after each commit with the records it made durable. */
  onCommitted?: (records: readonly Rec[]) => void;
  /** Called when this writer gains or loses leadership. */
  onLeadership?: (leader: boolean) => void;
  /** How long commits may keep failing before `stalled` turns true (default 10 s; see `stalled`). */
  stallMs?: number;
  clock?: () => number;
  /** Commit sizes and latencies, leadership, lease age and head (observability/promise-metrics.ts). */
  metrics?: ChainMetrics;
}

type State = 'idle' | 'standby' | 'leader' | 'stopping' | 'stopped';

interface Pending<Input, Rec> {
  inputs: readonly Input[];
  resolve: (records: Rec[]) => void;
  reject: (err: unknown) => void;
  /** The span of the request this append serves: the commit span links to it. */
  link: Link | undefined;
}

/** A batch hashed on top of `from`, not yet committed; `complete` settles once it is also signed. */
interface Sealed<Input, Rec> {
  batch: Pending<Input, Rec>[];
  from: { seq: number; hash: string };
  records: Rec[];
  last: Rec;
  complete: Promise<void>;
  /** How long its statement took, once it was sent. */
  seconds?: number;
}

/**
 * The single writer of a chain. Exactly one process leads (a lease with a fencing epoch); the
 * others stand by and take over when the lease expires. Appends that arrive together are sealed and
 * inserted in one statement (group commit); each caller is answered only after it committed. The
 * head moves by compare-and-set, with the lease checked, in that same statement, so even a writer
 * that lost its lease without noticing cannot fork the chain.
 */
export class ChainWriter<Input, Rec extends { seq: number; hash: string }> {
  readonly #o: Required<Pick<ChainWriterOptions<Input, Rec>, 'leaseMs' | 'maxBatch' | 'pipeline'>> & ChainWriterOptions<Input, Rec>;
  #state: State = 'idle';
  readonly #lease: ChainLease;
  #head = { seq: 0, hash: GENESIS_HASH };
  #queue: Pending<Input, Rec>[] = [];
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #leaseTick: Promise<void> | undefined;
  /** A standby's next try: when the lease it found held expires, if that comes before a renewal period. */
  #retryInMs: number | undefined;
  /** Set while the drain waits with room in its pipeline: called by the next append. */
  #onArrival: (() => void) | undefined;
  readonly #commits: FailureStreak;
  #leaseRenewedAt: number | undefined;
  #unwatch: (() => void) | undefined;

  constructor(options: ChainWriterOptions<Input, Rec>) {
    if (options.renewMs !== undefined && options.leaseMs !== undefined && options.renewMs >= options.leaseMs) {
      throw new RangeError(`renewMs (${options.renewMs}) must be shorter than leaseMs (${options.leaseMs})`);
    }
    this.#o = { leaseMs: 5000, maxBatch: 1000, pipeline: 2, ...options };
    this.#lease = new ChainLease({ db: options.storage.pool, chain: options.spec.chain, holder: options.holder, leaseMs: this.#o.leaseMs });
    this.#commits = new FailureStreak(options.stallMs, options.clock);
  }

  get isLeader(): boolean {
    return this.#state === 'leader';
  }

  get head(): { seq: number; hash: string } {
    return { ...this.#head };
  }

  get chain(): string {
    return this.#o.spec.chain;
  }

  /** When this writer last acquired or renewed its lease (clock ms), for the lease-age gauge. */
  get leaseRenewedAt(): number | undefined {
    return this.#leaseRenewedAt;
  }

  /**
   * True while this writer's commits keep failing (FailureStreak: none succeeded for `stallMs`, one
   * failed within it). A fenced commit (another writer took over) is not a failure.
   */
  get stalled(): boolean {
    return this.#commits.stalled;
  }

  async start(): Promise<void> {
    if (this.#state !== 'idle') return;
    await ensureChainHead(this.#o.storage.pool, this.#o.spec.chain, GENESIS_HASH);
    this.#state = 'standby';
    this.#unwatch = this.#o.metrics?.watch(this);
    await this.#tickLease();
    this.#schedule();
  }

  /** Append inputs; resolves with their records once committed. */
  append(inputs: readonly Input[]): Promise<Rec[]> {
    if (this.#state !== 'leader') {
      return Promise.reject(new SuiteError('SERVICE_UNAVAILABLE', `not the writer of the ${this.#o.spec.chain} chain; ${NOTHING_DONE}`));
    }
    if (inputs.length === 0) return Promise.resolve([]);
    return new Promise<Rec[]>((resolve, reject) => {
      this.#queue.push({ inputs, resolve, reject, link: linkToActive() });
      const wake = this.#onArrival;
      this.#onArrival = undefined;
      wake?.();
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
      await this.#lease.release().catch(() => undefined);
    }
    this.#failQueue(new SuiteError('SERVICE_UNAVAILABLE', 'chain writer stopped'));
    this.#state = 'stopped';
    this.#unwatch?.();
    if (wasLeader) this.#o.onLeadership?.(false);
  }

  #schedule(): void {
    if (this.#state !== 'leader' && this.#state !== 'standby') return;
    // The leader renews every renewMs; a standby tries at the same pace, or when the lease it found
    // held expires if sooner, so it takes over as the lease runs out (why no bus signal:
    // docs/RELIABILITY.md, "Chain writer failover").
    // Detached: the timer would otherwise carry the context it was set in (a request's) for good.
    const renewMs = this.#o.renewMs ?? Math.max(50, Math.floor(this.#o.leaseMs / 3));
    const retryInMs = this.#state === 'standby' ? this.#retryInMs : undefined;
    this.#timer = detached(() => setTimeout(() => {
      this.#leaseTick = backgroundSpan('chain.lease', () => this.#tickLease(), { 'suite.chain': this.#o.spec.chain }).finally(() => this.#schedule());
    }, retryInMs === undefined ? renewMs : Math.min(renewMs, retryInMs)));
    this.#timer.unref();
  }

  async #tickLease(): Promise<void> {
    const { spec } = this.#o;
    try {
      if (this.#state === 'leader') {
        const renewed = await this.#lease.keep();
        if (!renewed) this.#stepDown('lease lost');
        else this.#leaseRenewedAt = (this.#o.clock ?? Date.now)();
      } else if (this.#state === 'standby') {
        const epoch = await this.#lease.take();
        this.#retryInMs = undefined;
        if (epoch !== null) await this.#becomeLeader(epoch);
        // A few ms past the expiry, so the next try finds it expired by the database clock.
        else this.#retryInMs = Math.ceil(await this.#lease.remainingMs()) + 5;
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
    this.#leaseRenewedAt = (this.#o.clock ?? Date.now)();
    this.#head = { seq: head.seq, hash: head.hash };
    this.#state = 'leader';
    this.#o.logger?.info({ chain: this.#o.spec.chain, epoch, seq: head.seq }, 'chain writer leads');
    this.#o.onLeadership?.(true);
  }

  #stepDown(reason: string): void {
    if (this.#state !== 'leader') return;
    this.#state = 'standby';
    this.#o.logger?.warn({ chain: this.#o.spec.chain, reason }, 'chain writer stands down');
    this.#failQueue(new SuiteError('SERVICE_UNAVAILABLE', `chain writer lost leadership: ${reason}; ${NOTHING_DONE}`));
    this.#o.onLeadership?.(false);
  }

  #kick(): void {
    if (this.#flushing) return;
    // Detached: the drain serves every append that comes while it runs, not the one that kicked it
    // (each commit is a span of its own, linked to the requests it serves).
    this.#flushing = detached(() => this.#drainQueue().finally(() => {
      this.#flushing = undefined;
      if (this.#queue.length > 0 && this.#state === 'leader') this.#kick();
    }));
  }

  /**
   * Commits queued appends batch after batch, with up to `pipeline` batches under way: while one
   * commits, the next are sealed on top of it (hashed here, signed on the signing thread), and the
   * next statement is sent the moment the previous one commits, before that one's callers are
   * answered. Batches settle in order. When one fails, those sealed on top of it are not sent: the
   * head is re-read and their callers are queued again, first in line, to be sealed anew (a batch
   * whose own commit failed is refused to its callers).
   */
  async #drainQueue(): Promise<void> {
    const inflight: Array<{ sealed: Sealed<Input, Rec>; outcome: Promise<unknown> }> = [];
    const writing = () => this.#state === 'leader' || this.#state === 'stopping';
    // Commits under way are always settled and their callers answered, whatever the state became.
    while (inflight.length > 0 || (this.#queue.length > 0 && writing())) {
      if (this.#queue.length > 0 && writing() && inflight.length < this.#o.pipeline) {
        const before = inflight[inflight.length - 1];
        const sealed = this.#seal(this.#takeBatch(), before ? before.sealed.last : this.#head);
        if (sealed) inflight.push({ sealed, outcome: settled(this.#commit(sealed, before?.outcome)) });
        // Let the appends of this turn queue up before sealing again.
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      const oldest = inflight[0];
      if (!oldest) continue;
      const room = inflight.length < this.#o.pipeline && writing();
      const err = await (room ? Promise.race([oldest.outcome, new Promise<typeof ARRIVED>((resolve) => (this.#onArrival = () => resolve(ARRIVED)))]) : oldest.outcome);
      this.#onArrival = undefined;
      if (err === ARRIVED) continue;
      inflight.shift();
      if (err === undefined) {
        this.#committed(oldest.sealed);
        continue;
      }
      if (!isFenced(err)) this.#commitFailed(err);
      const after = inflight.splice(0);
      const outcomes = await Promise.all(after.map((c) => c.outcome));
      // Callers hear of the failure once this writer knows where the head is and whether it leads.
      await this.#resync(err);
      const again: Sealed<Input, Rec>[] = [];
      const settledBatches = [oldest, ...after];
      // The head as re-read tells which failures were commits after all (the connection lost once
      // COMMIT was sent): every batch up to the one the head ends on is in the chain, since each
      // commit extends the one before it or fails.
      const reached = settledBatches.findLastIndex((c, i) => (i === 0 ? err : outcomes[i - 1]) === undefined || c.sealed.last.hash === this.#head.hash);
      settledBatches.forEach((c, i) => {
        const outcome = i === 0 ? err : outcomes[i - 1];
        // Committed: a failure before it was in fact a commit (its outcome was unknown).
        if (outcome === undefined || i <= reached) this.#committed(c.sealed);
        // Fenced, so certainly not written (the head was not where it was sealed): seal it anew.
        else if (isFenced(outcome)) again.push(c.sealed);
        // Any other failure may have been a commit after all: its callers are told.
        else fail(c.sealed.batch, outcome);
      });
      for (const sealed of again.reverse()) this.#putBack(sealed);
      if (this.#state === 'stopping') return;
    }
  }

  /** A commit failed for another reason than fencing: say why (its callers only hear 503), and count it. */
  #commitFailed(err: unknown): void {
    const failingForMs = this.#commits.failed();
    this.#o.logger?.warn({ err, chain: this.#o.spec.chain, failingForMs }, 'chain commit failed');
  }

  #committed(sealed: Sealed<Input, Rec>): void {
    this.#commits.succeeded();
    this.#head = { seq: sealed.last.seq, hash: sealed.last.hash };
    let at = 0;
    for (const p of sealed.batch) {
      p.resolve(sealed.records.slice(at, at + p.inputs.length));
      at += p.inputs.length;
    }
    if (sealed.seconds !== undefined) this.#o.metrics?.committed(this.#o.spec.chain, sealed.records.length, sealed.seconds);
    this.#o.onCommitted?.(sealed.records);
  }

  /**
   * A batch sealed on top of a commit that failed, or while leadership ended: its callers go back to
   * the head of the queue while this writer may still commit (leader, or draining to stop), and are
   * refused otherwise (the queue was refused when leadership ended).
   */
  #putBack(sealed: Sealed<Input, Rec> | undefined): void {
    if (!sealed) return;
    if (this.#state === 'leader' || this.#state === 'stopping') this.#queue.unshift(...sealed.batch);
    else fail(sealed.batch, new SuiteError('SERVICE_UNAVAILABLE', `not the writer of the ${this.#o.spec.chain} chain; ${NOTHING_DONE}`));
  }

  /**
   * Hash a batch's inputs on top of `from` and start completing it (signing, on the signing thread):
   * the next batch can be hashed on top of this one at once, since a record's hash does not depend
   * on signatures. A batch that cannot be hashed is refused.
   */
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
      // A record that cannot be sealed (hashed) is a bug or an input no check caught: say which.
      this.#o.logger?.error({ err, chain: this.#o.spec.chain, inputs: batch.length }, 'chain records could not be sealed; appends refused');
      fail(batch, new SuiteError('SERVICE_UNAVAILABLE', `append refused: its record could not be sealed; ${NOTHING_DONE}`, { cause: err }));
      return undefined;
    }
    const complete = this.#o.spec.complete?.(records) ?? Promise.resolve();
    // Awaited by the commit; a failure is its failure, and must not count as unhandled before that.
    complete.catch(() => undefined);
    return { batch, from: { seq: from.seq, hash: from.hash }, records, last: records[records.length - 1] as Rec, complete };
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

  /**
   * One statement: the head's fenced compare-and-set and the insert commit together or not at all.
   * It is sent once the batch is signed and the batch it was sealed on (`after`) has committed:
   * statements reach the database one at a time and in chain order, whatever connection each takes.
   * A batch sealed on one that failed is not sent: it fails as fenced, and is sealed anew.
   */
  #commit(sealed: Sealed<Input, Rec>, after: Promise<unknown> | undefined): Promise<void> {
    const { spec } = this.#o;
    const attributes = { 'suite.chain': spec.chain, 'suite.chain.records': sealed.records.length, 'suite.chain.seq.first': sealed.from.seq + 1, 'suite.chain.seq.last': sealed.last.seq };
    return batchSpan(`chain.commit ${spec.chain}`, sealed.batch.map((p) => p.link), attributes, () => this.#commitBatch(sealed, after));
  }

  async #commitBatch(sealed: Sealed<Input, Rec>, after: Promise<unknown> | undefined): Promise<void> {
    const { storage, spec, holder } = this.#o;
    const { from, records, last } = sealed;
    await sealed.complete;
    if (after && (await after) !== undefined) throw fenced();
    const started = performance.now();
    const inserted = await spec.insert(storage.pool, records, {
      chain: spec.chain, fromSeq: from.seq, fromHash: from.hash, toSeq: last.seq, toHash: last.hash, holder, epoch: this.#lease.epoch,
    });
    sealed.seconds = (performance.now() - started) / 1000;
    if (inserted === 0) throw fenced();
    if (inserted !== records.length) throw new Error(`chain ${spec.chain}: ${inserted} of ${records.length} records inserted`);
  }

  /**
   * After a failed commit (the oldest under way, so every batch before it committed): its outcome
   * may be unknown (connection lost mid-commit), so the head is re-read before writing again. A
   * fenced commit stands this writer down when another writer moved the head (the head records the
   * epoch of its last mover) or when the lease is gone; otherwise this writer goes on from the head
   * as re-read, and the fenced batches are sealed anew.
   */
  async #resync(err: unknown): Promise<void> {
    const { storage, spec } = this.#o;
    try {
      const head = await readChainHead(storage.pool as CommonQueryMethods, spec.chain);
      if (!head) throw new Error(`chain ${spec.chain} has no head row`);
      const byOther = head.epoch !== this.#lease.epoch && (head.seq !== this.#head.seq || head.hash !== this.#head.hash);
      this.#head = { seq: head.seq, hash: head.hash };
      if (!isFenced(err)) return;
      if (byOther) this.#stepDown('fenced by another writer');
      else if (!(await this.#lease.keep())) this.#stepDown('lease lost');
      else this.#leaseRenewedAt = (this.#o.clock ?? Date.now)();
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

/**
 * Refuse a batch's callers. A failure that is not one of ours may have been a commit whose answer
 * was lost and which the head could not be re-read to confirm: unless the database's own error
 * says nothing was done (refused before the request), the answer says the outcome is unknown, and
 * the edge names the Idempotency-Key to retry with (docs/ERRORS.md, "Outcome unknown").
 */
function fail<Input, Rec>(batch: readonly Pending<Input, Rec>[], err: unknown): void {
  const outage = storageOutage(err);
  const message = outage ? storageOutageMessage(outage) : `append failed; ${OUTCOME_UNKNOWN}: it may have been carried out`;
  const e = err instanceof SuiteError ? err : new SuiteError('SERVICE_UNAVAILABLE', message, { cause: err });
  for (const p of batch) p.reject(e);
}

const ARRIVED = Symbol('an append arrived');

/** What a commit came to: undefined when it committed, else why not. */
function settled(commit: Promise<void>): Promise<unknown> {
  return commit.then(() => undefined, (err: unknown) => err ?? new Error('commit failed'));
}

function fenced(): SuiteError {
  return new SuiteError('SERVICE_UNAVAILABLE', 'chain writer was fenced', { cause: new FencedError() });
}

function isFenced(err: unknown): boolean {
  return err instanceof SuiteError && err.cause instanceof FencedError;
}

class FencedError extends Error {
  constructor() {
    super('chain head moved or lease lost');
    this.name = 'FencedError';
  }
}
