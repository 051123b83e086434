import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import type { MetricsRegistry } from '../observability/index.ts';
import type { AuditSink, CapabilityVerifier } from './authority.ts';
import { accessLogger } from './plugins/access-log.ts';
import { createRouteTable } from './plugins/authority.ts';
import type { TenantResolver } from './plugins/capability.ts';
import { MAX_PARAM_LENGTH, clientErrorHandler, frameworkErrorHandler, installErrors, type OnUnmatched, type ServedElsewhere } from './plugins/errors.ts';
import { UNMATCHED_ROUTE, routeObserver } from './plugins/http-metrics.ts';
import { installOpenApi } from './plugins/openapi.ts';
import { installTextInput } from './plugins/text-input.ts';
import { installOpsRoutes } from './plugins/ops.ts';
import { installMetering, type Meter } from './plugins/metering.ts';
import { installCapabilitiesRoute } from './plugins/capabilities.ts';
import { createLimiter, createRateLimitKeys } from './plugins/rate-limit.ts';
import { genRequestId, installRequestIdEcho } from './plugins/request-id.ts';
import { installRoutePipeline } from './plugins/route-pipeline.ts';
import { installPrincipal } from './principal.ts';
import { SERVICES, type EdgeApp, type EdgeRoutes, type ServiceName } from './types.ts';
import { validatorCompiler } from './validation.ts';
import { serializerCompiler } from './serializer.ts';

export interface EdgeOptions {
  service: ServiceName;
  logger: Logger;
  verifier: CapabilityVerifier;
  audit: AuditSink;
  /** Resolves `X-Suite-Tenant-Key` on every guarded route; absent: every tenant key is refused (401). */
  tenants?: TenantResolver;
  /** Counts routes' `config.meter` against the plan of a tenant-keyed caller; absent: such calls fail closed (503). */
  meter?: Meter;
  /** Each named dependency usable or not; `/ready` is 503 when any is false. */
  readiness: () => Promise<Record<string, boolean>>;
  rateLimit: { max: number; windowMs: number };
  metrics: MetricsRegistry;
  /** One info line per request (method, route, status, ms, reqId). */
  accessLog: boolean;
  /** Registers the service's routes; each must declare `config.authority`. */
  routes: EdgeRoutes;
  /** Largest accepted request body in bytes; default 1 MiB. */
  bodyLimit?: number;
  /** Socket timeouts (issue 25, finding 5: slow or idle sockets are closed); defaults below. */
  timeouts?: Partial<SocketTimeouts>;
  /**
   * Request tracing (observability/http-tracing.ts: an OpenTelemetry server span per request, the
   * handler inside its context), installed on the root instance before any other hook or route.
   * Absent: nothing is installed and requests pay nothing for it.
   */
  tracing?: (app: FastifyInstance) => Promise<void>;
  /** Names the listener that serves a path this one does not, for the 404's message; absent: plain 404s. */
  servedElsewhere?: ServedElsewhere;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * How long a socket may take, in milliseconds (docs/CONFIGURATION.md, `SUITE_HTTP_*_TIMEOUT_MS`):
 * - `headersMs`: from the connection (or the previous answer) to the end of the request's headers:
 *   a slow-loris client trickling header bytes, or a socket that sends nothing, is closed (408);
 * - `requestMs`: to the end of the whole request, body included (408); never the answer's time, so
 *   long answers (exports, event streams) are not cut;
 * - `keepAliveMs`: an idle kept-alive socket after its answer.
 */
export interface SocketTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

export const DEFAULT_SOCKET_TIMEOUTS: Readonly<SocketTimeouts> = Object.freeze({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 10_000 });

function positiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`createEdgeApp: ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/** Options checked and defaulted once; an error names the offending option. */
function compile(options: EdgeOptions) {
  if (!(SERVICES as readonly string[]).includes(options.service)) {
    throw new TypeError(`createEdgeApp: service must be one of ${SERVICES.join(', ')}`);
  }
  return Object.freeze({
    ...options,
    bodyLimit: positiveInteger(options.bodyLimit ?? DEFAULT_BODY_LIMIT, 'bodyLimit'),
    timeouts: socketTimeouts({ ...DEFAULT_SOCKET_TIMEOUTS, ...options.timeouts }),
    rateLimit: Object.freeze({
      max: positiveInteger(options.rateLimit.max, 'rateLimit.max'),
      windowMs: positiveInteger(options.rateLimit.windowMs, 'rateLimit.windowMs'),
    }),
  });
}

function socketTimeouts(t: SocketTimeouts): Readonly<SocketTimeouts> {
  const checked = {
    headersMs: positiveInteger(t.headersMs, 'timeouts.headersMs'),
    requestMs: positiveInteger(t.requestMs, 'timeouts.requestMs'),
    keepAliveMs: positiveInteger(t.keepAliveMs, 'timeouts.keepAliveMs'),
  };
  // Node refuses a headers timeout longer than the request timeout.
  if (checked.headersMs > checked.requestMs) throw new TypeError('createEdgeApp: timeouts.headersMs must not exceed timeouts.requestMs');
  return Object.freeze(checked);
}

type Compiled = ReturnType<typeof compile>;

/**
 * The HTTP edge of one service (DESIGN, "The edges"): shared error shape, validation, capability
 * check, rate limit, request ids, logs, metrics and the operations routes, then the service's
 * routes in their own plugin. Resolves once the routes are registered; a route without an
 * authority rejects here. Listen with `app.listen()`, stop with `app.close()` (it drains).
 */
export async function createEdgeApp(options: EdgeOptions): Promise<EdgeApp> {
  const o = compile(options);
  const unmatched: OnUnmatched[] = [];
  const onUnmatched: OnUnmatched = (request, reply) => {
    for (const observe of unmatched) observe(request, reply);
  };
  const app = Fastify({
    loggerInstance: o.logger,
    // Fastify's own request lines would log on every request; ours is the opt-in access log.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId: genRequestId,
    bodyLimit: o.bodyLimit,
    // Requests arriving while closing are served (and drained) rather than answered with
    // Fastify's own 503 body, which is not in the error shape.
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler(onUnmatched),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler,
    keepAliveTimeout: o.timeouts.keepAliveMs,
    requestTimeout: o.timeouts.requestMs,
    // Node checks the header and request timeouts on this interval (default 30 s, which would let a
    // slow socket live up to 30 s past its timeout); a tenth of the shorter, at least 100 ms.
    http: { headersTimeout: o.timeouts.headersMs, connectionsCheckingInterval: Math.max(100, Math.floor(o.timeouts.headersMs / 10)) },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as EdgeApp;
  try {
    await install(app, o, unmatched, onUnmatched);
  } catch (err) {
    // A refused route (or a failed plugin) leaves a half-built app: release what it holds.
    await app.close().catch(() => {});
    throw err;
  }
  return app;
}

/** The shared plugins, in the order they must see routes and requests, then the routes. */
async function install(app: EdgeApp, o: Compiled, unmatched: OnUnmatched[], onUnmatched: OnUnmatched): Promise<void> {
  const root = app as unknown as FastifyInstance;
  // First: its hooks must see every route as it is registered, and every request before ours do.
  if (o.tracing !== undefined) await o.tracing(root);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // The API speaks JSON only; a route that needs another body type (the billing webhook's raw
  // body) adds its parser in its own plugin.
  app.removeContentTypeParser('text/plain');
  installTextInput(root);
  installPrincipal(root);
  installRequestIdEcho(root);
  installErrors(root, onUnmatched, o.servedElsewhere);

  const none = (): void => {};
  const observeUnmatched = routeObserver(o.metrics, o.service, UNMATCHED_ROUTE);
  unmatched.push((request, reply) => observeUnmatched(request, reply, none));
  if (o.accessLog) {
    const logUnmatched = accessLogger(UNMATCHED_ROUTE);
    unmatched.push((request, reply) => logUnmatched(request, reply, none));
  }

  const rateLimitKeys = createRateLimitKeys();
  installRoutePipeline(root, {
    service: o.service,
    table: createRouteTable(root),
    limiter: await createLimiter(root, o.rateLimit, rateLimitKeys),
    capability: { verifier: o.verifier, audit: o.audit, tenants: o.tenants, admitted: rateLimitKeys.admit },
    metrics: o.metrics,
    accessLog: o.accessLog,
  });
  installMetering(root, o.meter);
  // Before any route: it describes the routes registered after it, /openapi.json included.
  await installOpenApi(root, { service: o.service });
  installOpsRoutes(app, { service: o.service, readiness: o.readiness, metrics: o.metrics });
  installCapabilitiesRoute(app, root, o.service);
  const serviceRoutes = async (scope: FastifyInstance): Promise<void> => {
    await o.routes(scope as unknown as EdgeApp);
  };
  // Names the plugin in Fastify's tree and in the handler spans of tracing ("handler - token routes").
  Object.assign(serviceRoutes, { [Symbol.for('fastify.display-name')]: `${o.service} routes` });
  await app.register(serviceRoutes);
}
