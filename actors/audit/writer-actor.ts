import type { Bus, Subscription } from '../../bus/index.ts';
import { AuditInputSchema, describeMessageProblems, subjects } from '../../bus/index.ts';
import type { Storage } from '../../storage/index.ts';
import { ChainWriter, FailureStreak, type ChainWriterOptions } from '../chain-writer/index.ts';
import type { AuditRecord } from '../../core/chain/index.ts';
import type { AuditInput } from '../../bus/index.ts';
import { auditChainSpec } from './chain-spec.ts';
import { replyOf } from '../base/index.ts';
import { deleteAuditOutbox, findAuditIds, sweepAuditOutbox } from '../../storage/index.ts';
import type { ChainMetrics } from '../../observability/index.ts';

type Appended = { id: string; seq: number; hash: string };
const pick = (r: AuditRecord): Appended => ({ id: r.id, seq: r.seq, hash: r.hash });

export interface AuditWriterActorOptions {
  bus: Bus;
  storage: Storage;
  holder: string;
  leaseMs?: number;
  renewMs?: number;
  logger?: ChainWriterOptions<AuditInput, AuditRecord>['logger'];
  metrics?: ChainMetrics;
  /** How often the leader sweeps the audit outbox (default 1 s; 0: never). */
  outboxSweepMs?: number;
  /**
   * How old an outbox row must be before the sweep appends its entry itself (default 3 s): its
   * edge sends it within the coalescing window (200 ms) unless it died; a late send after the sweep
   * is skipped by id (AuditBatcher marks a batch that old as a retry).
   */
  outboxAgeMs?: number;
}

/** Most entries one sweep appends. */
const SWEEP_BATCH = 1000;

/**
 * The audit chain's writer on the bus. It answers `suite.audit.append` only while it leads, so
 * requests never reach a standby; during a failover callers see no responders and retry.
 */
export class AuditWriterActor {
  readonly #bus: Bus;
  readonly #writer: ChainWriter<AuditInput, AuditRecord>;
  readonly #storage: Storage;
  readonly #holder: string;
  readonly #inFlight = new Map<string, Promise<Appended>>();
  readonly #lookups = new FailureStreak();
  #serving: Subscription | undefined;
  readonly #logger: AuditWriterActorOptions['logger'];
  readonly #sweepMs: number;
  readonly #outboxAgeMs: number;
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(o: AuditWriterActorOptions) {
    this.#bus = o.bus;
    this.#storage = o.storage;
    this.#holder = o.holder;
    this.#logger = o.logger;
    this.#sweepMs = o.outboxSweepMs ?? 1000;
    this.#outboxAgeMs = o.outboxAgeMs ?? 3000;
    this.#writer = new ChainWriter({
      storage: o.storage,
      spec: auditChainSpec,
      holder: o.holder,
      ...(o.leaseMs !== undefined ? { leaseMs: o.leaseMs } : {}),
      ...(o.renewMs !== undefined ? { renewMs: o.renewMs } : {}),
      ...(o.logger ? { logger: o.logger } : {}),
      ...(o.metrics ? { metrics: o.metrics } : {}),
      onLeadership: (leader) => (leader ? this.#serve() : void this.#unserve()),
    });
  }

  get isLeader(): boolean {
    return this.#writer.isLeader;
  }

  /**
   * Its appends keep failing: the commits (ChainWriter `stalled`), or the look-up of a retried
   * batch's ids that comes before them (a retry never reaches a commit while that fails).
   * `/ready` of this process then answers 503.
   */
  get stalled(): boolean {
    return this.#writer.stalled || this.#lookups.stalled;
  }

  async start(): Promise<void> {
    await this.#writer.start();
  }

  async stop(): Promise<void> {
    await this.#unserve();
    await this.#writer.stop();
  }

  #serve(): void {
    this.#startSweeping();
    if (this.#serving) return;
    this.#serving = this.#bus.serve(
      subjects.auditAppend,
      ({ data }) =>
        replyOf(async () => ({
          records: await this.#appendOnce(data.entries, data.retry === true),
        })),
      { queue: 'chain-writer.audit' },
    );
    // Once the subscription reached the server, say so: recorders send again the batch they sent to
    // the leader before (dead or stopped) rather than waiting out its timeout (bus/carry.ts).
    void this.#bus
      .flush()
      .then(() => {
        if (this.#serving) this.#bus.publish(subjects.auditWriterLeads, { holder: this.#holder });
      })
      .catch(() => undefined);
  }

  /**
   * Append entries not already written. A recorder retries an append whose answer it never got
   * (a timeout, a failover); entries with an id already committed, or being committed, are answered
   * with their existing record instead of entering the chain twice.
   */
  async #appendOnce(entries: readonly AuditInput[], retry: boolean): Promise<Appended[]> {
    // Fresh ids cannot be in the chain yet: ask the database only for a retried batch. What is being
    // committed is taken before asking: an entry committed meanwhile has left #inFlight and may not
    // be in the answer (a carried batch often arrives while its first send commits, bus/carry.ts).
    const before = retry
      ? new Map(
          entries.flatMap((e) => {
            const p = this.#inFlight.get(e.id);
            return p !== undefined ? [[e.id, p] as const] : [];
          }),
        )
      : undefined;
    const committed = retry ? await this.#committedAmong(entries) : new Map<string, Appended>();
    const answers = new Map<string, Promise<Appended>>();
    const fresh: AuditInput[] = [];
    const freshIds = new Set<string>();
    for (const e of entries) {
      if (answers.has(e.id) || freshIds.has(e.id)) continue;
      const known = committed.get(e.id);
      const pending = known ? Promise.resolve(known) : (before?.get(e.id) ?? this.#inFlight.get(e.id));
      if (pending) answers.set(e.id, pending);
      else {
        freshIds.add(e.id);
        fresh.push(e);
      }
    }
    if (fresh.length > 0) {
      const appending = this.#writer.append(fresh);
      fresh.forEach((e, i) => {
        const answer = appending.then((records) => pick(records[i] as AuditRecord));
        this.#inFlight.set(e.id, answer);
        answers.set(e.id, answer);
      });
      appending.then(
        () => {
          for (const e of fresh) this.#inFlight.delete(e.id);
        },
        () => {
          for (const e of fresh) this.#inFlight.delete(e.id);
        },
      );
    }
    return Promise.all(entries.map((e) => answers.get(e.id) as Promise<Appended>));
  }

  async #committedAmong(entries: readonly AuditInput[]): Promise<Map<string, Appended>> {
    try {
      const found = await findAuditIds(
        this.#storage.pool,
        entries.map((e) => e.id),
      );
      this.#lookups.succeeded();
      return found;
    } catch (err) {
      this.#lookups.failed();
      throw err;
    }
  }

  /**
   * The audit outbox (storage's `audit_outbox`, issue 34 item 1): an append's record committed its
   * decision's entry there; the edge then sends the entry to this chain as usual. Every `outboxSweepMs`
   * the leader deletes the rows whose entries the chain has and appends the entries of rows older
   * than `outboxAgeMs` that it has not (their edge died between the commit and the send), so an
   * acknowledged append's decision always reaches the chain.
   */
  #startSweeping(): void {
    if (this.#sweepMs <= 0 || this.#sweepTimer !== undefined) return;
    this.#sweepTimer = setInterval(() => {
      this.#sweeping ??= this.#sweep().finally(() => {
        this.#sweeping = undefined;
      });
    }, this.#sweepMs);
    this.#sweepTimer.unref();
  }

  async #stopSweeping(): Promise<void> {
    if (this.#sweepTimer !== undefined) clearInterval(this.#sweepTimer);
    this.#sweepTimer = undefined;
    await this.#sweeping;
  }

  async #sweep(): Promise<void> {
    if (!this.#writer.isLeader) return;
    try {
      const found = await sweepAuditOutbox(this.#storage.pool, this.#outboxAgeMs, SWEEP_BATCH);
      if (found.length === 0) return;
      const entries: AuditInput[] = [];
      const ids: string[] = [];
      for (const e of found) {
        ids.push(String((e as { id?: unknown }).id));
        const problem = describeMessageProblems(AuditInputSchema, e);
        if (problem === undefined) entries.push(e as AuditInput);
        else this.#logger?.error({ id: (e as { id?: unknown }).id, problem }, 'audit outbox: entry refused by its schema; dropped');
      }
      if (entries.length > 0) await this.#appendOnce(entries, true);
      await deleteAuditOutbox(this.#storage.pool, ids);
      this.#logger?.info({ entries: entries.length }, 'audit outbox: appended entries whose edge did not send them (it stopped after the record committed)');
    } catch (err) {
      this.#logger?.warn({ err }, 'audit outbox sweep failed; will try again');
    }
  }

  async #unserve(): Promise<void> {
    await this.#stopSweeping();
    const s = this.#serving;
    this.#serving = undefined;
    await s?.unsubscribe();
  }
}
