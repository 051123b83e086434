import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';

/** Tenancy tables (migration 005): tenants, metered usage, processed billing events, signup attempts. */

export type SuspendedBy = 'operator' | 'billing';

export interface StoredTenant {
  id: string;
  name: string;
  plan: string;
  status: 'active' | 'suspended';
  statusReason: string | null;
  suspendedBy: SuspendedBy | null;
  externalRef: string | null;
  email: string | null;
  createdAt: string;
}

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const TenantRow = rowSchema(
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    plan: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
    statusReason: Nullable(Type.String()),
    suspendedBy: Type.Union([Type.Literal('operator'), Type.Literal('billing'), Type.Null()]),
    externalRef: Nullable(Type.String()),
    email: Nullable(Type.String()),
    createdAt: Type.String(),
  }),
);
const COLUMNS = sql.fragment`id, name, plan, status, status_reason as "statusReason", suspended_by as "suspendedBy",
  external_ref as "externalRef", email, created_at as "createdAt"`;

export interface NewTenant {
  id: string;
  name: string;
  plan: string;
  externalRef: string | null;
  email: string | null;
  keyHash: string;
}

/** Insert a tenant; null when its externalRef already names another tenant. */
export async function insertTenant(db: CommonQueryMethods, t: NewTenant): Promise<StoredTenant | null> {
  return db.maybeOne(sql.type(TenantRow)`
    insert into tenants (id, name, plan, external_ref, email, key_hash)
    values (${t.id}, ${t.name}, ${t.plan}, ${t.externalRef}, ${t.email}, ${t.keyHash})
    on conflict (external_ref) do nothing
    returning ${COLUMNS}`);
}

export async function getTenant(db: CommonQueryMethods, id: string): Promise<StoredTenant | null> {
  return db.maybeOne(sql.type(TenantRow)`select ${COLUMNS} from tenants where id = ${id}`);
}

export async function findTenantByKeyHash(db: CommonQueryMethods, keyHash: string): Promise<StoredTenant | null> {
  return db.maybeOne(sql.type(TenantRow)`select ${COLUMNS} from tenants where key_hash = ${keyHash}`);
}

export async function findTenantByExternalRef(db: CommonQueryMethods, externalRef: string): Promise<StoredTenant | null> {
  return db.maybeOne(sql.type(TenantRow)`select ${COLUMNS} from tenants where external_ref = ${externalRef}`);
}

const CountRow = rowSchema(Type.Object({ n: Type.Number() }));

/** Oldest first (stable under inserts at the end), with the total count. */
export async function listTenants(db: CommonQueryMethods, limit: number, offset: number): Promise<{ tenants: StoredTenant[]; total: number }> {
  const tenants = await db.any(sql.type(TenantRow)`
    select ${COLUMNS} from tenants order by created_at, id limit ${limit} offset ${offset}`);
  const total = await db.oneFirst(sql.type(CountRow)`select count(*)::int8 as n from tenants`);
  return { tenants: [...tenants], total };
}

export async function setTenantPlan(db: CommonQueryMethods, id: string, plan: string): Promise<StoredTenant | null> {
  return db.maybeOne(sql.type(TenantRow)`update tenants set plan = ${plan} where id = ${id} returning ${COLUMNS}`);
}

/** Replace the key hash: from the commit on, the old key resolves to nothing, in every process. */
export async function setTenantKeyHash(db: CommonQueryMethods, id: string, keyHash: string): Promise<StoredTenant | null> {
  return db.maybeOne(sql.type(TenantRow)`
    update tenants set key_hash = ${keyHash}, key_rotated_at = now() where id = ${id} returning ${COLUMNS}`);
}

export type StatusChange = { status: 'active'; reason: string | null } | { status: 'suspended'; reason: string; by: SuspendedBy };

export async function setTenantStatus(db: CommonQueryMethods, id: string, change: StatusChange): Promise<StoredTenant | null> {
  const by = change.status === 'suspended' ? change.by : null;
  return db.maybeOne(sql.type(TenantRow)`
    update tenants set status = ${change.status}, status_reason = ${change.reason}, suspended_by = ${by}
    where id = ${id} returning ${COLUMNS}`);
}

const UsedRow = rowSchema(Type.Object({ used: Type.Number() }));

/**
 * Count `amount` (> 0) units against `limit` (-1: unlimited) in one conditional statement: the row
 * is created or raised only while the total stays within the limit. Concurrent callers on any
 * number of connections queue on the row, and each re-checks against the committed total, so
 * exactly the limit is ever accepted. Returns the new total, or null when refused (nothing counted).
 */
export async function meterUsage(
  db: CommonQueryMethods,
  u: { tenantId: string; period: string; metric: string; amount: number; limit: number },
): Promise<number | null> {
  // The insert branch is not checked by the where clause: an amount above the limit is refused first.
  if (u.limit >= 0 && u.amount > u.limit) return null;
  return db.maybeOneFirst(sql.type(UsedRow)`
    insert into tenant_usage (tenant_id, period, metric, used) values (${u.tenantId}, ${u.period}, ${u.metric}, ${u.amount})
    on conflict (tenant_id, period, metric) do update set used = tenant_usage.used + excluded.used
      where ${u.limit}::int8 < 0 or tenant_usage.used + excluded.used <= ${u.limit}::int8
    returning used`);
}

/** Give back `amount` (> 0) units reserved earlier, never going below zero. Returns the new total. */
export async function releaseUsage(db: CommonQueryMethods, u: { tenantId: string; period: string; metric: string; amount: number }): Promise<number> {
  const used = await db.maybeOneFirst(sql.type(UsedRow)`
    update tenant_usage set used = greatest(used - ${u.amount}::int8, 0)
    where tenant_id = ${u.tenantId} and period = ${u.period} and metric = ${u.metric}
    returning used`);
  return used ?? 0;
}

const UsageRow = rowSchema(Type.Object({ tenantId: Type.String(), metric: Type.String(), used: Type.Number() }));

/** Usage of the given tenants in one period, by tenant then metric (absent: nothing used). */
export async function usageOf(db: CommonQueryMethods, tenantIds: readonly string[], period: string): Promise<Map<string, Record<string, number>>> {
  const byTenant = new Map<string, Record<string, number>>();
  if (tenantIds.length === 0) return byTenant;
  const rows = await db.any(sql.type(UsageRow)`
    select tenant_id as "tenantId", metric, used from tenant_usage
    where period = ${period} and tenant_id = any(${sql.array([...tenantIds], 'text')})`);
  for (const r of rows) {
    const usage = byTenant.get(r.tenantId) ?? {};
    usage[r.metric] = r.used;
    byTenant.set(r.tenantId, usage);
  }
  return byTenant;
}

const IdRow = rowSchema(Type.Object({ id: Type.String() }));

/** Claim a billing event id; false when it was processed before (a replay). Use inside the transaction that applies it. */
export async function claimBillingEvent(db: CommonQueryMethods, e: { id: string; type: string; outcome: string }): Promise<boolean> {
  const id = await db.maybeOneFirst(sql.type(IdRow)`
    insert into billing_events (id, type, outcome) values (${e.id}, ${e.type}, ${e.outcome})
    on conflict (id) do nothing returning id`);
  return id !== null;
}

export async function setBillingEventOutcome(db: CommonQueryMethods, id: string, outcome: string): Promise<void> {
  await db.query(sql.unsafe`update billing_events set outcome = ${outcome} where id = ${id}`);
}

const AttemptsRow = rowSchema(Type.Object({ attempts: Type.Number() }));

/**
 * Count one signup from `ipHash` in the window starting at `windowStart` (ISO), unless `max` were
 * already counted there (the same conditional upsert as metering). Returns whether it was counted.
 */
export async function countSignupAttempt(db: CommonQueryMethods, ipHash: string, windowStart: string, max: number): Promise<boolean> {
  const attempts = await db.maybeOneFirst(sql.type(AttemptsRow)`
    insert into signup_attempts (ip_hash, window_start, attempts) values (${ipHash}, ${windowStart}, 1)
    on conflict (ip_hash, window_start) do update set attempts = signup_attempts.attempts + 1
      where signup_attempts.attempts < ${max}
    returning attempts`);
  return attempts !== null;
}

/** Forget signup windows that started before `before` (ISO). */
export async function pruneSignupAttempts(db: CommonQueryMethods, before: string): Promise<number> {
  const result = await db.query(sql.unsafe`delete from signup_attempts where window_start < ${before}`);
  return result.rowCount;
}
