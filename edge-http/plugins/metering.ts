import fp from 'fastify-plugin';
import { PART } from './names.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import type { Result } from '../../bus/index.ts';
import type { MeterReplyData, Metric } from '../../bus/index.ts';
import { errorBody } from './errors.ts';
import { statusOf } from '../status.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The plan limit a call of this route counts against (spec, token service "Counts against"),
     * when the caller presented a tenant key. Applied by the edge (plugins/metering.ts).
     */
    meter?: Metric;
  }
}

/** The one metering call (`suite.tenancy.meter`), injected so the edge itself holds no counters. */
export interface Meter {
  meter(request: { tenantId: string; metric: Metric; amount: number; period?: string }): Promise<Result<MeterReplyData>>;
}

/** Quota headers on metered answers (docs/PLANS.md, "Quota headers"). */
export const QUOTA_HEADERS = {
  metric: 'x-suite-quota-metric',
  limit: 'x-suite-quota-limit',
  remaining: 'x-suite-quota-remaining',
  reset: 'x-suite-quota-reset',
} as const;

/**
 * Tenants billed for a request: set by the capability check when `X-Suite-Tenant-Key` resolved.
 * A token's own `ten` claim without a key names the tenant (isolation) but does not meter: the
 * spec enforces limits "only when a tenant key is supplied".
 */
const billed = new WeakMap<FastifyRequest, string>();
const reserved = new WeakMap<FastifyRequest, { tenantId: string; metric: Metric; period: string; remaining: number; limit: number }>();

export function markBilledTenant(request: FastifyRequest, tenantId: string): void {
  billed.set(request, tenantId);
}

export function billedTenantOf(request: FastifyRequest): string | undefined {
  return billed.get(request);
}

function setQuotaHeaders(reply: FastifyReply, q: { metric: Metric; limit: number; remaining: number; resetAt: string }): void {
  reply.header(QUOTA_HEADERS.metric, q.metric);
  reply.header(QUOTA_HEADERS.limit, String(q.limit));
  reply.header(QUOTA_HEADERS.remaining, String(q.remaining));
  reply.header(QUOTA_HEADERS.reset, String(Math.floor(Date.parse(q.resetAt) / 1000)));
}

function answer(reply: FastifyReply, code: Parameters<typeof statusOf>[0], message: string): void {
  reply.code(statusOf(code)).send(errorBody(code, message));
}

/**
 * A unit is taken after the request passed the capability check and its body validated (so a
 * malformed call costs nothing), and before the handler runs (so concurrent calls can never pass
 * the limit together: the count is one conditional SQL statement). Callback-style, so a call
 * without a tenant key pays one map look-up and no promise.
 */
function reserveHook(metric: Metric, meter: Meter | undefined): preHandlerHookHandler {
  return function reserveUnit(request, reply, done) {
    const tenantId = billed.get(request);
    if (tenantId === undefined) {
      done();
      return;
    }
    // Fail closed: a billed call is never let through uncounted.
    if (meter === undefined) return answer(reply, 'SERVICE_UNAVAILABLE', 'metering is not available on this listener');
    meter.meter({ tenantId, metric, amount: 1 }).then(
      (result) => {
        if (!result.ok) return answer(reply, result.error.code, result.error.message);
        const q = result.value;
        setQuotaHeaders(reply, q);
        if (!q.accepted) return answer(reply, 'QUOTA_EXCEEDED', `the plan's monthly ${metric} limit (${q.limit}) is reached; it resets at ${q.resetAt}`);
        reserved.set(request, { tenantId, metric, period: q.period, remaining: q.remaining, limit: q.limit });
        done();
      },
      (err: unknown) => done(err as Error),
    );
  };
}

/**
 * An error answer gives its unit back before it is sent: a call refused by the service (a scope
 * it may not issue, a proof missing, a dependency down) did not get what the unit pays for. Error
 * answers are the ones in the error shape (`{"error":...}`); the spec's `400 {valid:false}` of a
 * validation is an answer, a validation performed, and keeps its unit.
 */
function settleHook(meter: Meter | undefined): onSendHookHandler {
  return function settleUnit(request, reply, payload, done) {
    const unit = reserved.get(request);
    if (unit === undefined || meter === undefined || reply.statusCode < 400 || !isErrorPayload(payload)) {
      done(null, payload);
      return;
    }
    reserved.delete(request);
    meter.meter({ tenantId: unit.tenantId, metric: unit.metric, amount: -1, period: unit.period }).then(
      (result) => {
        if (result.ok) reply.header(QUOTA_HEADERS.remaining, String(result.value.remaining));
        else request.log.warn({ code: result.error.code, tenantId: unit.tenantId, metric: unit.metric }, 'a metered unit could not be given back');
        done(null, payload);
      },
      () => done(null, payload),
    );
  };
}

function isErrorPayload(payload: unknown): boolean {
  return typeof payload === 'string' && payload.startsWith('{"error":');
}

function asArray<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * Metering for every route that declares `config.meter`: the reservation runs last before the
 * handler, the give-back first among the route's onSend hooks. Routes without it get nothing.
 */
function installMetering(app: FastifyInstance, meter: Meter | undefined): void {
  app.addHook('onRoute', (route) => {
    const metric = route.config?.meter;
    if (metric === undefined) return;
    route.preHandler = [...asArray(route.preHandler), reserveHook(metric, meter)] as typeof route.preHandler;
    route.onSend = [settleHook(meter), ...asArray(route.onSend)] as typeof route.onSend;
  });
}

/**
 * Meters routes' `config.meter` against the tenant the capability check marked billed, so after the
 * route pipeline (its onRoute hook also adds to the answer's onSend hooks, which this one wraps).
 */
export const meteringPlugin = fp(async (app: FastifyInstance, o: { meter: Meter | undefined }) => installMetering(app, o.meter), {
  name: PART.metering,
  dependencies: [PART.routePipeline],
});
