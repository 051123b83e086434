import type { Logger } from 'pino';
import type { Static } from 'typebox';
import { executionClaim, subjects, SuiteError, type Bus, type RequestOf, type Subscription } from '../../bus/index.ts';
import type { Storage } from '../../storage/index.ts';
import { BusActor, replyOf } from '../../actors/base/index.ts';
import type { AuditBatcher } from '../../actors/audit/index.ts';
import { scopeGrants } from '../../core/capability/index.ts';
import { decisionProblem, resolveHeld } from '../../core/gateway-policy/index.ts';
import { approvalSubjects as s } from './subjects.ts';
import type { Approval, HoldAnswer } from './schemas.ts';
import * as store from './approval-store.ts';

export interface ApprovalsActorOptions {
  bus: Bus;
  storage: Storage;
  audit: AuditBatcher;
  logger: Logger;
}

const stateOf = (a: Approval) => ({ ...a, expiresAt: new Date(a.expiresAt), status: a.status });

/**
 * The approvals desk (`actor:approvals`, queue `approvals`, any number of replicas: every rule is
 * one conditional statement): held gateway calls, their decisions, and the budget counters.
 */
export class ApprovalsActor extends BusActor {
  readonly #o: ApprovalsActorOptions;

  constructor(o: ApprovalsActorOptions) {
    super();
    this.#o = o;
  }

  protected subscriptions(): Subscription[] {
    const { bus, storage, logger } = this.#o;
    const queue = { queue: 'approvals' };
    const unexpected = (err: unknown) => logger.error({ err }, 'approvals handler failed');
    return [
      bus.serve(s.hold, ({ data }) => replyOf(() => this.#hold(data), unexpected), queue),
      bus.serve(s.list, ({ data }) => replyOf(async () => ({ approvals: await store.listApprovals(storage.pool, data, data.by.tenantId) }), unexpected), queue),
      bus.serve(s.decide, ({ data }) => replyOf(() => this.#decide(data), unexpected), queue),
      bus.serve(
        s.budget,
        ({ data }) =>
          replyOf(async () => {
            const refusedBy = await store.chargeBudgets(storage.pool, data.charges);
            return { ok: refusedBy === null, refusedBy };
          }, unexpected),
        queue,
      ),
      bus.serve(
        s.ran,
        ({ data }) =>
          replyOf(async () => {
            const linked = await store.setCallTrace(storage.pool, data.id, data.traceId);
            if (linked !== null) this.#changed('ran', linked);
            return { ok: linked !== null };
          }, unexpected),
        queue,
      ),
    ];
  }

  /** Tells live views (the dashboard's inbox) that a request changed; identifiers only. */
  #changed(what: 'held' | 'decided' | 'ran', a: Approval): void {
    try {
      this.#o.bus.publish(subjects.approvalsChanged, {
        what,
        id: a.id,
        status: a.status,
        server: a.server,
        tool: a.tool,
        ...(a.callerTenant !== null ? { tenantId: a.callerTenant } : {}),
      });
    } catch (err) {
      // The change is stored: a live view missing it reads it at its next reload.
      this.#o.logger.warn({ err, id: a.id, what }, 'an approval change could not be published');
    }
  }

  /** What a held call becomes (core/gateway-policy, resolveHeld); an approved one is taken once. */
  async #hold(h: RequestOf<typeof s.hold>): Promise<Static<typeof HoldAnswer>> {
    const { pool } = this.#o.storage;
    const latest = await store.latestOfBinding(pool, h);
    const r = resolveHeld(latest === null ? undefined : stateOf(latest), new Date());
    if (r.kind === 'pending' || r.kind === 'denied') return { outcome: r.kind, approval: latest as Approval };
    if (r.kind === 'run') {
      const used = await store.markUsed(pool, r.id);
      if (used !== null) return { outcome: 'run', approval: used };
      // A racing identical call took it first: this one is held anew.
    }
    const pending = await store.insertPending(pool, h);
    // A racing identical call may have inserted it: either way a reader sees one request (idempotent reads).
    if (pending.id !== latest?.id) this.#changed('held', pending);
    return { outcome: 'pending', approval: pending };
  }

  async #decide(d: RequestOf<typeof s.decide>): Promise<Approval> {
    const { pool } = this.#o.storage;
    const a = await store.getApproval(pool, d.id);
    // A tenant's approver decides its own tenant's requests only; another's are not found.
    if (a === null || (d.caller.tenantId !== undefined && a.callerTenant !== d.caller.tenantId)) throw new SuiteError('NOT_FOUND', `no approval ${d.id}`);
    if (!scopeGrants(d.caller.scope, 'approval:decide') && !scopeGrants(d.caller.scope, a.approvers)) {
      throw new SuiteError('CAPABILITY_INSUFFICIENT', `deciding this request needs approval:decide or ${a.approvers}`);
    }
    const problem = decisionProblem(stateOf(a), d.caller.sub, new Date());
    if (problem !== undefined) throw new SuiteError(problem.code, problem.message);
    const status = d.decision === 'approve' ? 'approved' : 'denied';
    const decided = await store.recordDecision(pool, { id: a.id, status, by: d.caller.sub, reason: d.reason });
    if (decided === null) throw new SuiteError('CONFLICT', `approval ${a.id} was decided or expired meanwhile; a request is decided once`);
    let signed = decided;
    try {
      signed = await this.#sign(a, decided, d);
      return signed;
    } finally {
      // After the signing: a live reader's next read already links the decision's record, and a
      // gateway holding this call open (a bounded wait) resumes now rather than at its next look.
      this.#changed('decided', signed);
    }
  }

  /** The decision as an audit entry and a signed record on the execution chain (its id stored as `decisionTrace`). */
  async #sign(a: Approval, decided: Approval, d: RequestOf<typeof s.decide>): Promise<Approval> {
    const status = decided.status;
    await this.#o.audit.recordEffect({
      subject: d.caller.sub,
      action: `approval:${d.decision}`,
      resource: `mcp approval ${a.id} ${a.server}__${a.tool}`,
      result: status === 'approved' ? 'allow' : 'deny',
      reason: (d.reason ?? status).slice(0, 1024),
      tenantId: a.callerTenant,
    });
    // The decision signed on the execution chain: a receipt of the call can point at it.
    const claim = executionClaim({
      subject: d.caller.sub,
      scope: ['approval:decide'],
      module: 'mcp:approvals',
      action: d.decision,
      input: {
        approval: a.id,
        callerSub: a.callerSub,
        server: a.server,
        tool: a.tool,
        argsDigest: a.argsDigest,
        policyVersion: a.policyVersion,
        expiresAt: a.expiresAt,
      },
      output: { status, decidedBy: decided.decidedBy, decidedAt: decided.decidedAt, reason: decided.decisionReason },
      outcome: 'success',
      governance: {
        policyRef: `rule ${a.ruleIndex}${a.ruleName !== null ? ` (${a.ruleName})` : ''}`,
        policyVersion: a.policyVersion,
        decision: status,
        evidence: [`approval:${a.id}`],
        evaluatedBy: 'mcp-gateway',
      },
    });
    if (!claim.ok) return decided;
    const attested = { jti: d.caller.jti ?? null, sub: d.caller.sub, scope: [...d.caller.scope], proven: false, tenantId: d.caller.tenantId ?? null };
    const recorded = await this.#o.bus.request(subjects.executionsRecord, { claim: claim.claim, attested, timestamp: new Date().toISOString() });
    if (!recorded.ok) {
      this.#o.logger.warn({ id: a.id, code: recorded.error.code }, 'approval decided; its chain record could not be made');
      return decided;
    }
    const traceId = String((recorded.value.record as { id: unknown }).id);
    await store.setDecisionTrace(this.#o.storage.pool, a.id, traceId);
    return { ...decided, decisionTrace: traceId };
  }
}
