import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * Metrics for what the suite promises (docs/OBSERVABILITY.md, "Metrics"): every decision is audited
 * (the audit backlog), the chains grow and commit in groups, revocations reach every edge in time
 * (the view's size and age), one writer leads each chain, verification runs. Gauges that describe
 * a part's state are read from the part at scrape time (`watch`), so they can never drift from it.
 */

/** What the audit sink exposes to its gauges (actors/audit AuditBatcher). */
export interface WatchedAuditSink {
  readonly backlog: number;
  /** Milliseconds the oldest uncommitted entry has waited; 0 when none waits. */
  readonly oldestAgeMs: number;
}

/** What a chain writer exposes to its gauges (actors/chain-writer ChainWriter). */
export interface WatchedChainWriter {
  readonly chain: string;
  readonly isLeader: boolean;
  readonly head: { seq: number };
  /** Clock ms of the last successful acquire or renewal of its lease; undefined before the first. */
  readonly leaseRenewedAt: number | undefined;
}

/** What a revocation view exposes to its gauges (services/token/revocation RevocationView). */
export interface WatchedRevocationView {
  readonly size: number;
  /** Clock ms of the last heartbeat, broadcast or snapshot that confirmed the view; 0 before any. */
  readonly lastUpdateMs: number;
}

/** What the execution log's witness collector exposes to its gauges (services/spine/tlog WitnessCollector). */
export interface WatchedWitnesses {
  status(): ReadonlyArray<{ readonly name: string; readonly cosignedSize: number; readonly up: boolean }>;
}

export interface ChainMetrics {
  watch(writer: WatchedChainWriter): () => void;
  /** One group commit made durable: its record count and how long its statement took. */
  committed(chain: string, records: number, seconds: number): void;
}

export interface PromiseMetrics {
  readonly chains: ChainMetrics;
  watchAudit(sink: WatchedAuditSink): () => void;
  watchRevocations(view: WatchedRevocationView): () => void;
  /** The witnesses asked to cosign the execution log's checkpoints: how far each has cosigned, and whether it answers. */
  watchWitnesses(witnesses: WatchedWitnesses): () => void;
  /** An authorization decision recorded (allow or deny) with its reason; the code label is bounded. */
  decided(result: string, code: string): void;
  /** One chain verification ended (`valid`, `invalid` or `error`) after `seconds`. */
  verified(result: 'valid' | 'invalid' | 'error', seconds: number): void;
}

const COMMIT_SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000];
const COMMIT_SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const VERIFY_SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900];

function watcher<T>(set: Set<T>) {
  return (part: T) => {
    set.add(part);
    return () => void set.delete(part);
  };
}

export function createPromiseMetrics(registry: Registry, clock: () => number = Date.now): PromiseMetrics {
  const registers = [registry];
  const sinks = new Set<WatchedAuditSink>();
  const writers = new Set<WatchedChainWriter>();
  /** Each view with when it was watched: a view never confirmed is as old as it is. */
  const views = new Map<WatchedRevocationView, number>();

  new Gauge({
    name: 'suite_audit_backlog_entries',
    help: 'Audit entries recorded by this process and not yet committed to the audit chain',
    registers,
    collect() {
      this.set([...sinks].reduce((n, s) => n + s.backlog, 0));
    },
  });
  new Gauge({
    name: 'suite_audit_backlog_oldest_age_seconds',
    help: 'How long the oldest uncommitted audit entry of this process has waited (0: none waits)',
    registers,
    collect() {
      this.set(Math.max(0, ...[...sinks].map((s) => s.oldestAgeMs)) / 1000);
    },
  });

  const committedTotal = new Counter({
    name: 'suite_chain_entries_committed_total',
    help: 'Records committed to a chain by this process',
    labelNames: ['chain'] as const,
    registers,
  });
  const commitSize = new Histogram({
    name: 'suite_chain_commit_records',
    help: 'Records per group commit',
    labelNames: ['chain'] as const,
    buckets: COMMIT_SIZE_BUCKETS,
    registers,
  });
  const commitSeconds = new Histogram({
    name: 'suite_chain_commit_duration_seconds',
    help: 'Time of one group commit statement',
    labelNames: ['chain'] as const,
    buckets: COMMIT_SECONDS_BUCKETS,
    registers,
  });
  // Leader-only series: a standby's idea of the head is stale, so it serves none.
  new Gauge({
    name: 'suite_chain_head_sequence',
    help: 'Sequence number of the chain head, from the writer that leads it',
    labelNames: ['chain'] as const,
    registers,
    collect() {
      this.reset();
      for (const w of writers) if (w.isLeader) this.set({ chain: w.chain }, w.head.seq);
    },
  });
  new Gauge({
    name: 'suite_chain_writer_leader',
    help: '1 while this process leads the chain, 0 while it stands by',
    labelNames: ['chain'] as const,
    registers,
    collect() {
      this.reset();
      for (const w of writers) this.set({ chain: w.chain }, w.isLeader ? 1 : 0);
    },
  });
  new Gauge({
    name: 'suite_chain_writer_lease_age_seconds',
    help: 'Time since the leading writer last acquired or renewed its lease',
    labelNames: ['chain'] as const,
    registers,
    collect() {
      this.reset();
      for (const w of writers) if (w.isLeader && w.leaseRenewedAt !== undefined) this.set({ chain: w.chain }, (clock() - w.leaseRenewedAt) / 1000);
    },
  });

  new Gauge({
    name: 'suite_revocation_view_entries',
    help: "Revoked token ids held by this process's revocation view",
    registers,
    collect() {
      this.set([...views.keys()].reduce((n, v) => n + v.size, 0));
    },
  });
  new Gauge({
    name: 'suite_revocation_view_age_seconds',
    help: "Time since this process's revocation view was last confirmed current (heartbeat, broadcast or snapshot)",
    registers,
    collect() {
      if (views.size === 0) return;
      const last = Math.min(...[...views].map(([v, since]) => (v.lastUpdateMs === 0 ? since : v.lastUpdateMs)));
      this.set(Math.max(0, clock() - last) / 1000);
    },
  });

  const witnessSets = new Set<WatchedWitnesses>();
  new Gauge({
    name: 'suite_tlog_witness_cosigned_size',
    help: "The largest execution log checkpoint each witness cosigned for this process (compare with the log's tree size: a witness that lags falls behind)",
    labelNames: ['witness'] as const,
    registers,
    collect() {
      this.reset();
      for (const set of witnessSets) for (const w of set.status()) this.set({ witness: w.name }, w.cosignedSize);
    },
  });
  new Gauge({
    name: 'suite_tlog_witness_up',
    help: '1 while the witness answered its last add-checkpoint as the protocol says, 0 after a failure',
    labelNames: ['witness'] as const,
    registers,
    collect() {
      this.reset();
      for (const set of witnessSets) for (const w of set.status()) this.set({ witness: w.name }, w.up ? 1 : 0);
    },
  });

  const decisions = new Counter({
    name: 'suite_decisions_total',
    help: 'Authorization decisions recorded, by result and error code (none for allow, other for a reason outside the catalogue)',
    labelNames: ['result', 'code'] as const,
    registers,
  });
  const verifications = new Counter({
    name: 'suite_verification_runs_total',
    help: 'Whole-chain verifications run, by result',
    labelNames: ['result'] as const,
    registers,
  });
  // Every result at 0 from the start (issue 36, item 9): a fresh suite's panel shows 0, not "no data".
  for (const result of ['valid', 'invalid', 'error'] as const) verifications.inc({ result }, 0);
  const verifySeconds = new Histogram({
    name: 'suite_verification_duration_seconds',
    help: 'Time of one whole-chain verification',
    buckets: VERIFY_SECONDS_BUCKETS,
    registers,
  });

  return {
    chains: {
      watch: watcher(writers),
      committed(chain, records, seconds) {
        committedTotal.inc({ chain }, records);
        commitSize.observe({ chain }, records);
        commitSeconds.observe({ chain }, seconds);
      },
    },
    watchAudit: watcher(sinks),
    watchRevocations(view) {
      views.set(view, clock());
      return () => void views.delete(view);
    },
    watchWitnesses: watcher(witnessSets),
    decided: (result, code) => decisions.inc({ result, code }),
    verified(result, seconds) {
      verifications.inc({ result });
      verifySeconds.observe(seconds);
    },
  };
}
