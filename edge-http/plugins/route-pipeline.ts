import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { MetricsRegistry } from '../../observability/index.ts';
import { accessLogger } from './access-log.ts';
import { createRouteTable, declaredAuthority, type RouteEntry } from './authority.ts';
import { guardFor, type CapabilityDeps } from './capability.ts';
import { durableDecision } from './durable-decision.ts';
import { routeObserver } from './http-metrics.ts';
import { PART } from './names.ts';
import { createLimiter, createRateLimitKeys, type Limiter, type RateLimitOptions } from './rate-limit.ts';

interface PipelineOptions {
  service: string;
  table: RouteEntry[];
  limiter: Limiter;
  capability: CapabilityDeps;
  metrics: MetricsRegistry;
  accessLog: boolean;
}

function asArray<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * Gives every route, as it is registered, its own hooks, built once with what they need captured
 * (route pattern, authority, labelled metric series), so the request path does no lookups:
 *
 *   onRequest:  rate limit -> capability check -> the route's own onRequest hooks
 *   onResponse: the route's own -> metrics -> access log
 *
 * The limiter runs first to shield the verifier; the capability check runs before any code the
 * route brings, and before the body is read, so unauthenticated bodies are never parsed.
 * Public routes get no guard at all; the operations routes (config.rateLimit false) no limiter.
 * New arrays are assigned rather than pushed into: Fastify's HEAD twin of a GET route starts from
 * the same options, and a shared array would run the guard (and its audit record) twice.
 */
function installRoutePipeline(app: FastifyInstance, options: PipelineOptions): void {
  const { service, table, limiter, capability, metrics, accessLog } = options;
  app.addHook('onRoute', (route) => {
    const authority = declaredAuthority(route, table);
    const methods = typeof route.method === 'string' ? [route.method] : route.method;
    const resources = Object.fromEntries(methods.map((m) => [m, `${service} ${m} ${route.url}`]));
    const guard = guardFor(authority, resources, capability);

    const first = [];
    if (route.config?.rateLimit === undefined) first.push(limiter);
    const audit = capability.audit;
    const durable = guard !== null && audit.durable !== undefined ? durableDecision(audit) : null;
    if (guard !== null) first.push(durable === null ? guard : durable.marking(guard));
    route.onRequest = [...first, ...asArray(route.onRequest)] as typeof route.onRequest;
    // The guard recorded a decision (allow or deny): it is answered only once its entry is durable.
    if (durable !== null) route.onSend = [...asArray(route.onSend), durable.awaitDurable] as typeof route.onSend;

    const last = [routeObserver(metrics, service, route.url)];
    if (accessLog) last.push(accessLogger(route.url));
    route.onResponse = [...asArray(route.onResponse), ...last] as typeof route.onResponse;
  });
}

export interface RoutePipelineOptions {
  service: string;
  rateLimit: RateLimitOptions;
  /** The capability check's dependencies; the limiter's `admitted` is wired here. */
  capability: Omit<CapabilityDeps, 'admitted'>;
  metrics: MetricsRegistry;
  accessLog: boolean;
}

/**
 * The per-route hooks above, the route table they fill and the rate limiter they run. Its onRoute
 * hook must see every route, so every part that adds a route depends on it; it sets the principal
 * (a request decoration) and throws errors the error handler shapes, so it depends on those two.
 */
export const routePipelinePlugin = fp(
  async (app: FastifyInstance, o: RoutePipelineOptions) => {
    const keys = createRateLimitKeys();
    installRoutePipeline(app, {
      service: o.service,
      table: createRouteTable(app),
      limiter: await createLimiter(app, o.rateLimit, keys),
      capability: { ...o.capability, admitted: keys.admit },
      metrics: o.metrics,
      accessLog: o.accessLog,
    });
  },
  { name: PART.routePipeline, dependencies: [PART.tracing, PART.principal, PART.errors] },
);
