import type { ErrorData, Metric } from '../bus/index.ts';
import { scopeGrants } from '../core/capability/index.ts';
import type { AuditSink, Meter, Principal } from '../edge-http/index.ts';
import type { McpMetrics } from './metrics.ts';
import { REFUSED, RpcError } from './errors.ts';

/**
 * The caller of one MCP message: the HTTP edges' `Verified`, plus the tenant its
 * `X-Suite-Tenant-Key` named, when it sent one (only then is a call metered: spec, Limits, "enforced
 * only when a tenant key is supplied"; a token's own `ten` claim names a tenant but bills nothing).
 */
export type McpVerified = { ok: true; principal: Principal; billedTenant?: string } | { ok: false; error: ErrorData };

/**
 * The plan limit a gateway call (an upstream tool call, resource read or prompt get) counts against.
 * The spec's vocabulary has four counters; a gateway call is the suite checking a token's authority
 * for an action, which is what `validations` pays for (`POST /auth/token/validate`), so it counts
 * there rather than in a counter of its own the spec's Plan does not have (docs/MCP.md, "Metering").
 */
export const GATEWAY_METRIC: Metric = 'validations';

/** The `_meta` key of a metered call's quota, in place of the HTTP routes' quota headers. */
export const QUOTA_META_KEY = 'agent-authority-suite/quota';

export interface Quota {
  readonly metric: Metric;
  readonly limit: number;
  readonly remaining: number;
  readonly resetAt: string;
}

export interface AuthorizeDeps {
  authenticate(): Promise<McpVerified>;
  readonly audit: AuditSink;
  readonly metrics?: McpMetrics;
  /** The plan meter (absent: a call billed to a tenant is refused, fail closed, as on the HTTP edges). */
  readonly meter?: Meter;
}

export interface Decision {
  /** The metrics label: the tool's (or prompt's, or `resources/read`'s) name. */
  readonly name: string;
  /** The audit entry's resource: `mcp tools/call <tool>`, `mcp resources/read <uri>`... */
  readonly resource: string;
  readonly scope: string;
  /** Counts against the billed tenant's plan (gateway calls; the suite's own tools count nothing). */
  readonly metered: boolean;
}

export interface Allowed {
  readonly caller: Principal;
  /** The tenant's quota after this call took its unit, when it was metered. */
  readonly quota?: Quota;
}

/**
 * The capability check of one call, audited either way: the token (revocation included, on every
 * message), the scope, then, for a metered call billed to a tenant, one unit of its plan taken
 * before anything is done (a call over quota is refused `QUOTA_EXCEEDED`, audited as a deny, nothing
 * forwarded). The answer leaves only once the decision's audit entry is durable, as on the HTTP
 * routes (edge-http/plugins/durable-decision.ts); a refusal did nothing and is sent even if that
 * fails, an allowed call that cannot be made durable is refused and its unit given back.
 */
export async function authorize(deps: AuthorizeDeps, d: Decision): Promise<Allowed> {
  const durable = async (): Promise<boolean> => {
    try {
      await deps.audit.durable?.();
      return true;
    } catch {
      return false;
    }
  };
  const refuse = async (subject: string, error: ErrorData, tenantId?: string, quota?: Quota): Promise<never> => {
    // The same words the agent gets (issue 33, item 4): which rule refused and why.
    deps.audit.record({ subject, action: d.scope, resource: d.resource, result: 'deny', reason: `${error.code}: ${error.message}`.slice(0, 1024), tenantId });
    await durable();
    deps.metrics?.call(d.name, 'refused');
    throw new RpcError(REFUSED, `${error.code}: ${error.message}`, { code: error.code, requiredScope: d.scope, ...(quota ? { quota } : {}) });
  };
  const who = await deps.authenticate();
  if (!who.ok) return await refuse('anonymous', who.error);
  const caller = who.principal;
  const subject = caller.sub ?? 'anonymous';
  if (!scopeGrants(caller.scope, d.scope))
    return await refuse(subject, { code: 'CAPABILITY_INSUFFICIENT', message: `token does not grant ${d.scope}` }, caller.tenantId);

  let unit: { tenantId: string; period: string } | undefined;
  let quota: Quota | undefined;
  if (d.metered && who.billedTenant !== undefined) {
    const tenantId = who.billedTenant;
    if (deps.meter === undefined)
      return await refuse(subject, { code: 'SERVICE_UNAVAILABLE', message: 'metering is not available on this listener' }, tenantId);
    const taken = await deps.meter.meter({ tenantId, metric: GATEWAY_METRIC, amount: 1 });
    if (!taken.ok) return await refuse(subject, taken.error, tenantId);
    const q = taken.value;
    quota = { metric: GATEWAY_METRIC, limit: q.limit, remaining: q.remaining, resetAt: q.resetAt };
    if (!q.accepted) {
      return await refuse(
        subject,
        { code: 'QUOTA_EXCEEDED', message: `the plan's monthly ${GATEWAY_METRIC} limit (${q.limit}) is reached; it resets at ${q.resetAt}` },
        tenantId,
        quota,
      );
    }
    unit = { tenantId, period: q.period };
  }

  deps.audit.record({ subject, action: d.scope, resource: d.resource, result: 'allow', reason: 'granted', tenantId: caller.tenantId });
  // Allowed, not yet acted on: an entry that cannot be made durable refuses the call instead.
  if (!(await durable())) {
    if (unit !== undefined)
      await deps.meter?.meter({ tenantId: unit.tenantId, metric: GATEWAY_METRIC, amount: -1, period: unit.period }).catch(() => undefined);
    deps.metrics?.call(d.name, 'refused');
    throw new RpcError(REFUSED, 'SERVICE_UNAVAILABLE: audit trail unavailable; nothing was done; try again shortly', {
      code: 'SERVICE_UNAVAILABLE',
      requiredScope: d.scope,
    });
  }
  return quota === undefined ? { caller } : { caller, quota };
}
