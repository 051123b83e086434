import { NOTHING_DONE, SuiteError } from '../../bus/index.ts';
import { ensureChainHead, readChainHead, type Storage } from '../../storage/index.ts';
import { backgroundSpan, detached, type ChainMetrics } from '../../observability/index.ts';
import { GENESIS_HASH } from '../../core/chain/index.ts';
import { FailureStreak } from './failure-streak.ts';
import { ChainLease } from './lease.ts';
import { AppendQueue } from './queue.ts';
import { commitSealed, fail, isFenced, rereadHead, sealBatch, settleAfterFailure, settled, type ChainSpec, type Sealed } from './commit.ts';

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
  /** Called after each commit with the records it made durable, in commit order, once its callers were answered (the next turn). */
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
  readonly #queue: AppendQueue<Input, Rec>;
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #leaseTick: Promise<void> | undefined;
  /** A standby's next try: when the lease it found held expires, if that comes before a renewal period. */
  #retryInMs: number | undefined;
  readonly #commits: FailureStreak;
  #leaseRenewedAt: number | undefined;
  #unwatch: (() => void) | undefined;
  /** Commits answered whose followers (metrics, onCommitted) have not run yet, and the turn they run at. */
  #following: Sealed<Input, Rec>[] = [];
  #followTurn: NodeJS.Immediate | undefined;

  constructor(options: ChainWriterOptions<Input, Rec>) {
    if (options.renewMs !== undefined && options.leaseMs !== undefined && options.renewMs >= options.leaseMs) {
      throw new RangeError(`renewMs (${options.renewMs}) must be shorter than leaseMs (${options.leaseMs})`);
    }
    this.#o = { leaseMs: 5000, maxBatch: 1000, pipeline: 2, ...options };
    this.#lease = new ChainLease({ db: options.storage.pool, chain: options.spec.chain, holder: options.holder, leaseMs: this.#o.leaseMs });
    this.#commits = new FailureStreak(options.stallMs, options.clock);
    this.#queue = new AppendQueue(this.#o.maxBatch);
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
    const committed = this.#queue.add(inputs);
    this.#kick();
    return committed;
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
    this.#follow();
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
    this.#timer = detached(() =>
      setTimeout(
        () => {
          this.#leaseTick = backgroundSpan('chain.lease', () => this.#tickLease(), { 'suite.chain': this.#o.spec.chain }).finally(() => this.#schedule());
        },
        retryInMs === undefined ? renewMs : Math.min(renewMs, retryInMs),
      ),
    );
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
    this.#follow();
    this.#o.onLeadership?.(false);
  }

  #kick(): void {
    if (this.#flushing !== undefined) return;
    // Detached: the drain serves every append that comes while it runs, not the one that kicked it
    // (each commit is a span of its own, linked to the requests it serves).
    this.#flushing = detached(() =>
      this.#drainQueue().finally(() => {
        this.#flushing = undefined;
        if (this.#queue.length > 0 && this.#state === 'leader') this.#kick();
      }),
    );
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
        const sealed = sealBatch(this.#o.spec, this.#queue.takeBatch(), before ? before.sealed.last : this.#head, this.#o.logger);
        if (sealed) inflight.push({ sealed, outcome: settled(this.#commit(sealed, before?.outcome)) });
        // Let the appends of this turn queue up before sealing again.
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      const oldest = inflight[0];
      if (!oldest) continue;
      const room = inflight.length < this.#o.pipeline && writing();
      const err = await (room ? Promise.race([oldest.outcome, this.#queue.arrival(ARRIVED)]) : oldest.outcome);
      this.#queue.stopWaiting();
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
      const settlements = settleAfterFailure(
        settledBatches.map((c) => c.sealed.last),
        [err, ...outcomes],
        this.#head.hash,
      );
      settledBatches.forEach((c, i) => {
        const settlement = settlements[i];
        if (settlement === 'committed') this.#committed(c.sealed);
        else if (settlement === 'again') again.push(c.sealed);
        else fail(c.sealed.batch, i === 0 ? err : outcomes[i - 1]);
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
    // What follows a commit (its metrics, onCommitted: the executions' events and the log's leaves)
    // runs at the next turn, once the callers' answers went out: run here, it and the events' handlers
    // ran in the microtasks between the commit and each answer (issue 34: one agent's appends).
    this.#following.push(sealed);
    this.#followTurn ??= detached(() => setImmediate(() => this.#follow()));
  }

  /** The followers of the commits made so far, in commit order (`#committed`); at once when leadership ends or the writer stops. */
  #follow(): void {
    if (this.#followTurn) clearImmediate(this.#followTurn);
    this.#followTurn = undefined;
    const commits = this.#following;
    this.#following = [];
    for (const sealed of commits) {
      if (sealed.seconds !== undefined) this.#o.metrics?.committed(this.#o.spec.chain, sealed.records.length, sealed.seconds);
      try {
        this.#o.onCommitted?.(sealed.records);
      } catch (err) {
        // The records are committed and answered; a follower's failure must not stop the next commits' followers.
        this.#o.logger?.error({ err, chain: this.#o.spec.chain, seq: sealed.last.seq }, 'what follows a commit failed');
      }
    }
  }

  /**
   * A batch sealed on top of a commit that failed, or while leadership ended: its callers go back to
   * the head of the queue while this writer may still commit (leader, or draining to stop), and are
   * refused otherwise (the queue was refused when leadership ended).
   */
  #putBack(sealed: Sealed<Input, Rec> | undefined): void {
    if (!sealed) return;
    if (this.#state === 'leader' || this.#state === 'stopping') this.#queue.putBack(sealed.batch);
    else fail(sealed.batch, new SuiteError('SERVICE_UNAVAILABLE', `not the writer of the ${this.#o.spec.chain} chain; ${NOTHING_DONE}`));
  }

  #commit(sealed: Sealed<Input, Rec>, after: Promise<unknown> | undefined): Promise<void> {
    const { storage, spec, holder } = this.#o;
    return commitSealed({ storage, spec, holder, epoch: this.#lease.epoch }, sealed, after);
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
      const { head, byOther } = await rereadHead(storage, spec.chain, this.#lease.epoch, this.#head);
      this.#head = head;
      if (!isFenced(err)) return;
      if (byOther) this.#stepDown('fenced by another writer');
      else if (!(await this.#lease.keep())) this.#stepDown('lease lost');
      else this.#leaseRenewedAt = (this.#o.clock ?? Date.now)();
    } catch {
      this.#stepDown('database unreachable after a failed commit');
    }
  }

  #failQueue(err: SuiteError): void {
    this.#queue.failAll(err);
  }
}

const ARRIVED = Symbol('an append arrived');
