import type { Storage } from '../../../storage/index.ts';
import { pruneAuditEntries, pruneExecutions, takePruneLock, type PlanCutoff } from '../../../storage/index.ts';
import { readCheckpoint } from '../tlog/index.ts';
import { PLANS, type Plan } from '../../../core/tenancy/index.ts';

type Logger = { info(o: object, m?: string): void; warn(o: object, m?: string): void };

const DAY_MS = 86_400_000;

export interface RetentionPrunerOptions {
  storage: Storage;
  /** How often a round runs (SUITE_RETENTION_EVERY_MS). */
  everyMs: number;
  /** Entries deleted per transaction (SUITE_RETENTION_BATCH); a round runs batches until one is short. */
  batch: number;
  /** Most batches of each kind per round, so that a large backlog is worked off over several rounds. */
  maxBatchesPerRound?: number;
  /** The plans whose `auditRetentionDays` apply (default: the suite's). */
  plans?: readonly Plan[];
  clock?: () => number;
  logger?: Logger;
}

export interface PruneRound {
  /** Seqs of the execution records and audit entries pruned by this round. */
  executions: number[];
  audit: number[];
  /** False when another process held the pruning lock: it prunes, this one did nothing. */
  ran: boolean;
}

/**
 * Enforces each tenant's `auditRetentionDays` (docs/TENANCY.md, "Retention"): a background job, never
 * on a request's path. Each batch is one transaction that first takes the pruning lock (one process
 * prunes at a time, whichever replica runs it; the others find the lock taken and skip), then deletes
 * the oldest records and audit entries older than their tenant's plan limit, leaving tombstones
 * (storage/retention.ts). An execution record is pruned only once a signed checkpoint covers its leaf,
 * so the tree and every proof stay whole. Records and entries without a tenant (the operator's own:
 * admin key, no plan) are kept.
 */
export class RetentionPruner {
  readonly #o: RetentionPrunerOptions & { maxBatchesPerRound: number; plans: readonly Plan[]; clock: () => number };
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<unknown> | undefined;
  #stopped = false;

  constructor(o: RetentionPrunerOptions) {
    this.#o = { maxBatchesPerRound: 100, plans: PLANS, clock: Date.now, ...o };
  }

  start(): void {
    this.#stopped = false;
    const tick = () => {
      this.#timer = setTimeout(() => {
        this.#round = this.pruneOnce()
          .catch((err: unknown) => this.#o.logger?.warn({ err }, 'retention: a pruning round failed; retried at the next'))
          .finally(() => {
            this.#round = undefined;
            if (!this.#stopped) tick();
          });
      }, this.#o.everyMs);
      this.#timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#round;
  }

  /** The cut-off of each plan with a limit, as of `now`: its tenants' entries before it are due. */
  cutoffs(now: number): PlanCutoff[] {
    return this.#o.plans
      .filter((p) => p.limits.auditRetentionDays >= 0)
      .map((p) => ({ plan: p.id, before: new Date(now - p.limits.auditRetentionDays * DAY_MS).toISOString() }));
  }

  /** One round: batches of execution records, then of audit entries, until a batch is short. */
  async pruneOnce(): Promise<PruneRound> {
    const now = this.#o.clock();
    const cutoffs = this.cutoffs(now);
    const round: PruneRound = { executions: [], audit: [], ran: true };
    const db = this.#o.storage.pool;
    for (const kind of ['executions', 'audit'] as const) {
      for (let i = 0; i < this.#o.maxBatchesPerRound && !this.#stopped; i++) {
        const seqs = await db.transaction(async (tx) => {
          if (!(await takePruneLock(tx))) return undefined;
          if (kind === 'audit') return pruneAuditEntries(tx, { cutoffs, limit: this.#o.batch, now: new Date(now) });
          const through = (await readCheckpoint(tx))?.size ?? 0;
          return pruneExecutions(tx, { cutoffs, through, limit: this.#o.batch, now: new Date(now) });
        });
        if (seqs === undefined) return { ...round, ran: false };
        round[kind].push(...seqs);
        if (seqs.length < this.#o.batch) break;
      }
    }
    if (round.executions.length + round.audit.length > 0) {
      this.#o.logger?.info({ executions: round.executions.length, audit: round.audit.length }, 'retention: pruned entries past their plan limit');
    }
    return round;
  }
}
