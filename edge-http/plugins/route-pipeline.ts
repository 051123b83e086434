import type { FastifyInstance } from 'fastify';
import type { MetricsRegistry } from '../../observability/index.ts';
import { accessLogger } from './access-log.ts';
import { declaredAuthority, type RouteEntry } from './authority.ts';
import { guardFor, type CapabilityDeps } from './capability.ts';
import { durableDecision } from './durable-decision.ts';
import { routeObserver } from './http-metrics.ts';
import type { Limiter } from './rate-limit.ts';

export interface PipelineOptions {
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
export function installRoutePipeline(app: FastifyInstance, options: PipelineOptions): void {
  const { service, table, limiter, capability, metrics, accessLog } = options;
  app.addHook('onRoute', (route) => {
    const authority = declaredAuthority(route, table);
    const methods = typeof route.method === 'string' ? [route.method] : route.method;
    const resources = Object.fromEntries(methods.map((m) => [m, `${service} ${m} ${route.url}`]));
    const guard = guardFor(authority, resources, capability);

    const first = [];
    if (route.config?.rateLimit === undefined) first.push(limiter);
    if (guard !== null) first.push(guard);
    route.onRequest = [...first, ...asArray(route.onRequest)] as typeof route.onRequest;
    // The guard recorded a decision (allow or deny): it is answered only once its entry is durable.
    if (guard !== null && capability.audit.durable !== undefined) {
      route.onSend = [...asArray(route.onSend), durableDecision(capability.audit.durable)] as typeof route.onSend;
    }

    const last = [routeObserver(metrics, service, route.url)];
    if (accessLog) last.push(accessLogger(route.url));
    route.onResponse = [...asArray(route.onResponse), ...last] as typeof route.onResponse;
  });
}
