import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  argsDigest,
  budgetCharges,
  CallVars,
  decideCall,
  describeRule,
  unmetCondition,
  type BudgetCharge,
  type Policy,
  type RuleRef,
} from '../../core/gateway-policy/index.ts';
import type { AuditSink, Principal } from '../../edge-http/index.ts';
import type { Governance, HoldOpen } from '../../edge-mcp/index.ts';
import type { GatewayTool } from './catalog.ts';
import type { PolicySource } from './policy-source.ts';

/** The `_meta` key of a held call's approval request, and of a refusal's rule. */
export const APPROVAL_META_KEY = 'agent-authority-suite/approval';
const POLICY_META_KEY = 'agent-authority-suite/policy';

/** A held call's request, as the desk answers it. */
interface HeldApproval {
  readonly id: string;
  readonly status: string;
  readonly argsDigest: string;
  readonly expiresAt: string;
  readonly decidedBy: string | null;
  readonly decidedAt: string | null;
  readonly decisionTrace: string | null;
}

/**
 * Where held calls and budget counters live (the approvals actor, over the bus: this edge touches no
 * storage). Each throws when the desk cannot be reached; the gate then refuses (fail closed).
 */
export interface ApprovalDesk {
  /** The policy in force (reloadable) and its rules' hit counts. */
  readonly source: PolicySource;
  /** Where a person decides, said to the agent ("GET /approvals on ..."). */
  readonly where: string;
  hold(h: {
    callerSub: string;
    callerTenant: string | null;
    server: string;
    tool: string;
    args: Record<string, unknown>;
    argsDigest: string;
    policyVersion: string;
    ruleIndex: number;
    ruleName: string | null;
    approvers: string;
    ttlSeconds: number;
  }): Promise<{ outcome: 'pending' | 'run' | 'denied'; approval: HeldApproval }>;
  /** Resolves when request `id` is decided (in any process), or after `ms`, whichever is first. */
  decided(id: string, ms: number): Promise<void>;
  /** Charge every budget, all or none; the rule of the first at its limit, or null. */
  charge(charges: readonly BudgetCharge[]): Promise<string | null>;
  /** An approved call ran: its record, so the approval links to it (the dashboard's history). */
  ran(approvalId: string, traceId: string): Promise<void>;
}

/** How often a waiting call looks at its request again, and tells the agent it still waits. */
const WAIT_TICK_MS = 2000;

export type Gate = { run: true; governance?: Governance; approvalId?: string } | { run: false; result: CallToolResult };

const refusal = (text: string, meta: Record<string, unknown>): Gate => ({
  run: false,
  result: { content: [{ type: 'text', text }], isError: true, _meta: meta },
});
const ruleMeta = (policy: Policy, rule: RuleRef, extra: Record<string, unknown> = {}) => ({ [POLICY_META_KEY]: { version: policy.version, rule, ...extra } });

/**
 * The policy file's say on one call that passed the capability check (docs/MCP.md, "The policy
 * file"): the first matching rule allows, refuses with its reason, or holds the call for a person;
 * then every budget it counts against is charged (a refused or held call spends none). Refusals
 * and holds are audited as denies naming the rule and are tool results with `isError`, never
 * forwarded.
 */
export async function gateCall(
  desk: ApprovalDesk,
  audit: AuditSink,
  tool: GatewayTool,
  args: Record<string, unknown>,
  caller: Principal,
  wait?: HoldOpen,
): Promise<Gate> {
  // Read once: the whole call is decided by one version, even if a reload lands meanwhile.
  const { policy } = desk.source;
  const sub = caller.sub ?? 'anonymous';
  const facts = { server: tool.server, tool: tool.tool, args, caller: { sub, scope: caller.scope, tenant: caller.tenantId ?? null }, time: new Date() };
  const resource = `mcp tools/call ${tool.name}`;
  const deny = (reason: string) =>
    audit.record({ subject: sub, action: tool.scope, resource, result: 'deny', reason: reason.slice(0, 1024), tenantId: caller.tenantId });
  // The call's CEL variables, converted once for every rule's `when` and every budget's.
  const vars = new CallVars(facts);
  const started = performance.now();
  const decision = decideCall(policy, facts, vars);
  desk.source.evaluated((performance.now() - started) / 1000);
  if (decision.rule !== undefined) desk.source.hit(policy.version, decision.rule.index);
  let approvalId: string | undefined;
  let governance: Governance | undefined =
    decision.rule !== undefined
      ? { policyRef: describeRule(decision.rule), policyVersion: policy.version, decision: 'allow', evaluatedBy: 'mcp-gateway' }
      : undefined;

  if (decision.effect === 'deny') {
    const text = `refused by ${describeRule(decision.rule)} of the gateway's policy: ${decision.reason}`;
    deny(text);
    return refusal(text, ruleMeta(policy, decision.rule, { reason: decision.reason }));
  }
  if (decision.effect === 'approve') {
    const digest = argsDigest(args);
    const hold = () =>
      desk.hold({
        callerSub: sub,
        callerTenant: caller.tenantId ?? null,
        server: tool.server,
        tool: tool.tool,
        args,
        argsDigest: digest,
        policyVersion: policy.version,
        ruleIndex: decision.rule.index,
        ruleName: decision.rule.name ?? null,
        approvers: decision.approvers,
        ttlSeconds: decision.ttlSeconds,
      });
    let held: Awaited<ReturnType<ApprovalDesk['hold']>>;
    let waited = false;
    try {
      held = await hold();
      // Held open: look again whenever the request is decided (or every tick), until the bound or its expiry.
      if (held.outcome === 'pending' && wait !== undefined) {
        const until = Math.min(Date.now() + wait.ms, Date.parse(held.approval.expiresAt));
        const id = held.approval.id;
        for (let step = 1; held.outcome === 'pending' && held.approval.id === id && Date.now() < until; step++) {
          waited = true;
          await wait.progress(step, `awaiting a person's approval of request ${id} at ${desk.where}`).catch(() => undefined);
          await desk.decided(id, Math.max(1, Math.min(WAIT_TICK_MS, until - Date.now())));
          // Only a request still pending or decided is looked at again: past its expiry it would be held anew.
          if (Date.now() >= Date.parse(held.approval.expiresAt)) break;
          held = await hold();
        }
      }
    } catch {
      deny('SERVICE_UNAVAILABLE: the approvals desk did not answer');
      return refusal("SERVICE_UNAVAILABLE: this call needs a person's approval and the approvals desk did not answer; nothing was done; try again shortly", {});
    }
    const a = held.approval;
    const meta = {
      [APPROVAL_META_KEY]: { id: a.id, status: held.outcome === 'run' ? 'approved' : a.status, argsDigest: a.argsDigest, expiresAt: a.expiresAt },
      ...ruleMeta(policy, decision.rule),
    };
    if (held.outcome === 'denied') {
      const text = `refused: approval ${a.id} for this exact call was denied by ${a.decidedBy ?? 'an approver'}; it stays denied`;
      deny(text);
      return refusal(text, meta);
    }
    if (held.outcome === 'pending') {
      const text =
        `held: this call awaits a person's approval under ${describeRule(decision.rule)} (request ${a.id}, until ${a.expiresAt}); ` +
        `it was not run${waited ? ', and no one decided it while this call waited' : ''}. An approver decides it at ${desk.where}; then make the same call again, with the same arguments, to run it once.`;
      deny(`held for approval ${a.id} under ${describeRule(decision.rule)}`);
      return refusal(text, meta);
    }
    approvalId = a.id;
    governance = {
      policyRef: describeRule(decision.rule),
      policyVersion: policy.version,
      decision: 'approved',
      evaluatedBy: 'mcp-gateway',
      evidence: [
        `approval:${a.id}`,
        `approver:${a.decidedBy ?? ''}`,
        `decidedAt:${a.decidedAt ?? ''}`,
        ...(a.decisionTrace !== null ? [`approvalRecord:${a.decisionTrace}`] : []),
      ],
    };
  }

  const chargesStarted = performance.now();
  const charges = budgetCharges(policy, facts, vars);
  desk.source.evaluated((performance.now() - chargesStarted) / 1000, 0);
  for (const c of charges.ok ? charges.charges : [{ rule: charges.rule }]) desk.source.hit(policy.version, c.rule.index);
  if (!charges.ok) {
    const text = `refused by ${describeRule(charges.rule)} of the gateway's policy: ${charges.reason}`;
    deny(text);
    return refusal(text, ruleMeta(policy, charges.rule));
  }
  if (charges.charges.length > 0) {
    let over: string | null;
    try {
      over = await desk.charge(charges.charges);
    } catch {
      deny('SERVICE_UNAVAILABLE: the budget counters did not answer');
      return refusal('SERVICE_UNAVAILABLE: the budget counters did not answer; nothing was done; try again shortly', {});
    }
    if (over !== null) {
      const c = charges.charges.find((x) => describeRule(x.rule) === over) as BudgetCharge;
      const text = `refused by ${over} of the gateway's policy: the budget of ${c.calls} calls per window for ${c.by} is spent until ${c.windowEnd.toISOString()}`;
      deny(text);
      return refusal(text, ruleMeta(policy, c.rule, { budget: { calls: c.calls, by: c.by, resetAt: c.windowEnd.toISOString() } }));
    }
  }
  return { run: true, ...(governance !== undefined ? { governance } : {}), ...(approvalId !== undefined ? { approvalId } : {}) };
}

/**
 * The conditions the caller's token binds to its scope entries (claim `cnd`, docs/MCP.md "Conditions
 * on a token's scope"), checked by CEL on every upstream call, policy file or not: a condition on a
 * scope that grants this tool that does not hold refuses the call, naming the scope and the
 * condition, on the audit trail too.
 */
export function conditionGate(audit: AuditSink, tool: GatewayTool, args: Record<string, unknown>, caller: Principal): CallToolResult | undefined {
  if (caller.conditions === undefined) return undefined;
  const sub = caller.sub ?? 'anonymous';
  const facts = { server: tool.server, tool: tool.tool, args, caller: { sub, scope: caller.scope, tenant: caller.tenantId ?? null }, time: new Date() };
  const unmet = unmetCondition(caller.conditions, tool.scope, facts);
  if (unmet === undefined) return undefined;
  const text = `refused by your token's condition on ${unmet.scope} (${unmet.condition}): ${unmet.why}; nothing was done`;
  audit.record({
    subject: sub,
    action: tool.scope,
    resource: `mcp tools/call ${tool.name}`,
    result: 'deny',
    reason: text.slice(0, 1024),
    tenantId: caller.tenantId,
  });
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { [POLICY_META_KEY]: { tokenCondition: { scope: unmet.scope, condition: unmet.condition } } },
  };
}
