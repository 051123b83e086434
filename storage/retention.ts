import { sql, type CommonQueryMethods, type DatabaseTransactionConnection } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';

/**
 * Retention (migration 012; docs/TENANCY.md, "Retention"): records and audit entries older than
 * their tenant's plan limit are deleted, and each leaves a tombstone that holds no content: its seq
 * and id, its links and (for an execution record) its signature over its hash and the checkpoint
 * that first covered its leaf. One function per SQL operation; the caller passes the pool or a
 * transaction.
 */

/** A plan's cut-off: entries of its tenants recorded before `before` (ISO-8601 UTC) are pruned. */
export interface PlanCutoff {
  plan: string;
  before: string;
}

/**
 * Only one process prunes at a time (whichever takes this lock first, for the length of its
 * transaction): a replica that finds it taken skips its round. Fixed, like the migrations' key.
 */
const PRUNE_LOCK_KEY = 7_215_402_915_273_942;
const LockRow = rowSchema(Type.Object({ ok: Type.Boolean() }));

/** True when this transaction now holds the pruning lock (released when it ends). */
export async function takePruneLock(tx: DatabaseTransactionConnection): Promise<boolean> {
  return tx.oneFirst(sql.type(LockRow)`select pg_try_advisory_xact_lock(${PRUNE_LOCK_KEY}::int8) as ok`);
}

/**
 * Prune at most `limit` execution records, oldest first, whose tenant's plan cut-off they precede,
 * among those at or below `through` (the size of the newest checkpoint: a record is pruned only
 * once a signed checkpoint covers its leaf). Answers the seqs pruned.
 */
export async function pruneExecutions(
  tx: DatabaseTransactionConnection,
  o: { cutoffs: readonly PlanCutoff[]; through: number; limit: number; now: Date },
): Promise<number[]> {
  if (o.cutoffs.length === 0 || o.through < 1 || o.limit < 1) return [];
  const rows = await tx.anyFirst(sql.type(SeqRow)`
    with doomed as (
      select e.seq from executions e
      join tenants t on t.id = e.tenant_id
      join unnest(${sql.array(
        o.cutoffs.map((c) => c.plan),
        'text',
      )}, ${sql.array(
        o.cutoffs.map((c) => c.before),
        'text',
      )}) as p(plan, before)
        on p.plan = t.plan
      where e.tenant_id is not null and e.ts < p.before and e.seq <= ${o.through}
      order by e.seq limit ${o.limit}
    ), gone as (
      delete from executions e using doomed d where e.seq = d.seq
      returning e.seq, e.id, e.tenant_id, e.prev_hash, e.hash, e.key_id, e.signature
    )
    insert into execution_log_pruned (seq, id, tenant_id, prev_hash, hash, key_id, signature, checkpoint_size, pruned_at)
    select g.seq, g.id, g.tenant_id, g.prev_hash, g.hash, g.key_id, g.signature,
      (select min(c.size) from execution_log_checkpoints c where c.size >= g.seq), ${o.now.toISOString()}::timestamptz
    from gone g
    returning seq`);
  return rows.map(Number).sort((a, b) => a - b);
}

/** The same for audit entries (no tree over them: the only condition is the cut-off). */
export async function pruneAuditEntries(tx: DatabaseTransactionConnection, o: { cutoffs: readonly PlanCutoff[]; limit: number; now: Date }): Promise<number[]> {
  if (o.cutoffs.length === 0 || o.limit < 1) return [];
  const rows = await tx.anyFirst(sql.type(SeqRow)`
    with doomed as (
      select a.seq from audit_entries a
      join tenants t on t.id = a.tenant_id
      join unnest(${sql.array(
        o.cutoffs.map((c) => c.plan),
        'text',
      )}, ${sql.array(
        o.cutoffs.map((c) => c.before),
        'text',
      )}) as p(plan, before)
        on p.plan = t.plan
      where a.tenant_id is not null and a.ts < p.before
      order by a.seq limit ${o.limit}
    ), gone as (
      delete from audit_entries a using doomed d where a.seq = d.seq
      returning a.seq, a.id, a.tenant_id, a.prev_hash, a.hash
    )
    insert into audit_pruned (seq, id, tenant_id, prev_hash, hash, pruned_at)
    select g.seq, g.id, g.tenant_id, g.prev_hash, g.hash, ${o.now.toISOString()}::timestamptz from gone g
    returning seq`);
  return rows.map(Number).sort((a, b) => a - b);
}

const SeqRow = rowSchema(Type.Object({ seq: Type.Number() }));

/** An execution record pruned under retention, as its tombstone keeps it. */
export interface PrunedExecutionRow {
  seq: number;
  id: string;
  tenantId: string | null;
  prevHash: string;
  hash: string;
  keyId: string;
  signature: string;
  /** Size of the checkpoint that first covered its leaf. */
  checkpointSize: number;
  prunedAt: Date;
}

const PrunedExecutionSchema = rowSchema(
  Type.Object({
    seq: Type.Number(),
    id: Type.String(),
    tenantId: Type.Union([Type.String(), Type.Null()]),
    prevHash: Type.String(),
    hash: Type.String(),
    keyId: Type.String(),
    signature: Type.String(),
    checkpointSize: Type.Number(),
    prunedAt: Type.Any(),
  }),
);
const PRUNED_EXECUTION_COLUMNS = sql.fragment`seq, id, tenant_id as "tenantId", prev_hash as "prevHash", hash, key_id as "keyId",
  signature, checkpoint_size as "checkpointSize", pruned_at as "prunedAt"`;

function prunedExecution(
  r: { seq: number; checkpointSize: number; prunedAt: unknown } & Omit<PrunedExecutionRow, 'seq' | 'checkpointSize' | 'prunedAt'>,
): PrunedExecutionRow {
  return { ...r, seq: Number(r.seq), checkpointSize: Number(r.checkpointSize), prunedAt: new Date(r.prunedAt as string) };
}

/** The tombstone of the pruned record of this id, or null when no record of this id was pruned. */
export async function getPrunedExecution(db: CommonQueryMethods, id: string): Promise<PrunedExecutionRow | null> {
  const row = await db.maybeOne(sql.type(PrunedExecutionSchema)`select ${PRUNED_EXECUTION_COLUMNS} from execution_log_pruned where id = ${id}`);
  return row && prunedExecution(row);
}

/** Tombstones with seq in `from`..`to` (inclusive), in seq order; of one tenant when `tenantId` is set. */
export async function prunedExecutionsBetween(db: CommonQueryMethods, from: number, to: number, tenantId?: string | null): Promise<PrunedExecutionRow[]> {
  const tenant = tenantId == null ? sql.fragment`` : sql.fragment`and tenant_id = ${tenantId}`;
  const rows = await db.any(sql.type(PrunedExecutionSchema)`
    select ${PRUNED_EXECUTION_COLUMNS} from execution_log_pruned where seq between ${from} and ${to} ${tenant} order by seq`);
  return rows.map(prunedExecution);
}

const AuditPrunedRow = rowSchema(Type.Object({ seq: Type.Number(), id: Type.String(), prevHash: Type.String(), hash: Type.String() }));

/** Audit tombstones with seq in `from`..`to` (inclusive), in seq order. */
export async function prunedAuditBetween(
  db: CommonQueryMethods,
  from: number,
  to: number,
): Promise<Array<{ seq: number; id: string; prevHash: string; hash: string }>> {
  const rows = await db.any(sql.type(AuditPrunedRow)`
    select seq, id, prev_hash as "prevHash", hash from audit_pruned where seq between ${from} and ${to} order by seq`);
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}
