import { randomBytes } from 'node:crypto';
import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import type { Static } from 'typebox';
import { rowSchema } from '../../storage/index.ts';
import { ApprovalSchema, type Approval, type ApprovalFilter, type BudgetCharge, type HoldRequest } from './schemas.ts';

/** Held calls and budget counters (migration 001). Expiry is read at query time: no sweeper. */

const Row = rowSchema(ApprovalSchema);
// `expired` is a status as of now, not a stored one (core/gateway-policy, statusAt).
const COLUMNS = sql.fragment`id,
  case when status in ('pending', 'approved') and expires_at <= now() then 'expired' else status end as status,
  caller_sub as "callerSub", caller_tenant as "callerTenant", server, tool, args, args_digest as "argsDigest",
  policy_version as "policyVersion", rule_index as "ruleIndex", rule_name as "ruleName", approvers,
  created_at as "createdAt", expires_at as "expiresAt", decided_by as "decidedBy", decided_at as "decidedAt",
  decision_reason as "decisionReason", decision_trace as "decisionTrace", used_at as "usedAt", call_trace as "callTrace"`;

type Hold = Static<typeof HoldRequest>;

/** The latest request with this binding (caller, server, tool, arguments digest, policy version). */
export async function latestOfBinding(db: CommonQueryMethods, h: Hold): Promise<Approval | null> {
  return db.maybeOne(sql.type(Row)`select ${COLUMNS} from mcp_approvals
    where caller_sub = ${h.callerSub} and server = ${h.server} and tool = ${h.tool} and args_digest = ${h.argsDigest} and policy_version = ${h.policyVersion}
    order by created_at desc, id desc limit 1`);
}

/** A new pending request; if one for the binding appeared meanwhile (a racing identical call), that one. */
export async function insertPending(pool: DatabasePool, h: Hold): Promise<Approval> {
  const id = `apr_${randomBytes(16).toString('hex')}`;
  // A pending request past its expiry is stored as expired first: the one-pending index must not find it.
  await pool.query(sql.unsafe`update mcp_approvals set status = 'expired'
    where caller_sub = ${h.callerSub} and server = ${h.server} and tool = ${h.tool} and args_digest = ${h.argsDigest}
      and policy_version = ${h.policyVersion} and status = 'pending' and expires_at <= now()`);
  await pool.query(sql.unsafe`insert into mcp_approvals (id, status, caller_sub, caller_tenant, server, tool, args, args_digest, policy_version, rule_index, rule_name, approvers, expires_at)
    values (${id}, 'pending', ${h.callerSub}, ${h.callerTenant}, ${h.server}, ${h.tool}, ${sql.jsonb(h.args as never)}, ${h.argsDigest}, ${h.policyVersion},
      ${h.ruleIndex}, ${h.ruleName}, ${h.approvers}, now() + make_interval(secs => ${h.ttlSeconds}))
    on conflict (caller_sub, server, tool, args_digest, policy_version) where status = 'pending' do nothing`);
  return (await latestOfBinding(pool, h)) as Approval;
}

/** Approved → used, once: of two racing identical calls only one gets the row. */
export async function markUsed(db: CommonQueryMethods, id: string): Promise<Approval | null> {
  return db.maybeOne(sql.type(Row)`update mcp_approvals set status = 'used', used_at = now()
    where id = ${id} and status = 'approved' and expires_at > now() returning ${COLUMNS}`);
}

export async function getApproval(db: CommonQueryMethods, id: string): Promise<Approval | null> {
  return db.maybeOne(sql.type(Row)`select ${COLUMNS} from mcp_approvals where id = ${id}`);
}

/** Pending → approved or denied, once; null when it was no longer pending (decided, or expired). */
export async function recordDecision(
  db: CommonQueryMethods,
  d: { id: string; status: 'approved' | 'denied'; by: string; reason: string | null },
): Promise<Approval | null> {
  return db.maybeOne(sql.type(Row)`update mcp_approvals set status = ${d.status}, decided_by = ${d.by}, decided_at = now(), decision_reason = ${d.reason}
    where id = ${d.id} and status = 'pending' and expires_at > now() returning ${COLUMNS}`);
}

export async function setDecisionTrace(db: CommonQueryMethods, id: string, traceId: string): Promise<void> {
  await db.query(sql.unsafe`update mcp_approvals set decision_trace = ${traceId} where id = ${id}`);
}

/** The record of the call a used approval let run; set once. */
export async function setCallTrace(db: CommonQueryMethods, id: string, traceId: string): Promise<Approval | null> {
  return db.maybeOne(
    sql.type(Row)`update mcp_approvals set call_trace = ${traceId} where id = ${id} and status = 'used' and call_trace is null returning ${COLUMNS}`,
  );
}

/** `tenantId`: a tenant's reader sees its own tenant's requests only (as GET /audit). */
export async function listApprovals(db: CommonQueryMethods, f: Static<typeof ApprovalFilter>, tenantId: string | undefined): Promise<Approval[]> {
  const byTenant = tenantId !== undefined ? sql.fragment`and caller_tenant = ${tenantId}` : sql.fragment``;
  const [byServer, byTool, byCaller] = [
    f.server !== undefined ? sql.fragment`and server = ${f.server}` : sql.fragment``,
    f.tool !== undefined ? sql.fragment`and tool = ${f.tool}` : sql.fragment``,
    f.caller !== undefined ? sql.fragment`and caller_sub = ${f.caller}` : sql.fragment``,
  ];
  const status =
    f.status === undefined
      ? sql.fragment``
      : f.status === 'expired'
        ? sql.fragment`and status in ('pending', 'approved') and expires_at <= now()`
        : f.status === 'pending' || f.status === 'approved'
          ? sql.fragment`and status = ${f.status} and expires_at > now()`
          : sql.fragment`and status = ${f.status}`;
  return [
    ...(await db.any(sql.type(Row)`select ${COLUMNS} from mcp_approvals where true ${byTenant} ${byServer} ${byTool} ${byCaller} ${status}
    order by created_at desc, id desc limit ${f.limit}`)),
  ];
}

/**
 * Charge one call to every budget it counts against, all or none: each counter goes up by one only
 * while under its limit; the first at its limit rolls the whole charge back and is named.
 */
export async function chargeBudgets(pool: DatabasePool, charges: readonly Static<typeof BudgetCharge>[]): Promise<string | null> {
  if (charges.length === 0) return null;
  const refused = new Error('budget refused');
  let refusedBy: string | null = null;
  try {
    await pool.transaction(async (tx) => {
      for (const c of charges) {
        const row =
          await tx.maybeOne(sql.unsafe`insert into mcp_budget_counts (rule_key, counted_by, window_start, calls) values (${c.key}, ${c.by}, ${c.windowStart}, 1)
          on conflict (rule_key, counted_by, window_start) do update set calls = mcp_budget_counts.calls + 1 where mcp_budget_counts.calls < ${c.calls}
          returning calls`);
        if (row === null) {
          refusedBy = c.rule;
          throw refused;
        }
      }
    });
  } catch (err) {
    if (err !== refused) throw err;
  }
  return refusedBy;
}
