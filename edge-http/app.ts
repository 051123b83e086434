import Fastify, { LogController, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import type { MetricsRegistry } from '../observability/index.ts';
import type { AuditSink, CapabilityVerifier } from './authority.ts';
import { accessLogger } from './plugins/access-log.ts';
import type { TenantResolver } from './plugins/capability.ts';
import { capabilitiesRoutePlugin } from './plugins/capabilities.ts';
import { compilersPlugin } from './plugins/compilers.ts';
import { MAX_PARAM_LENGTH, clientErrorHandler, errorsPlugin, frameworkErrorHandler, type OnUnmatched, type ServedElsewhere } from './plugins/errors.ts';
import { UNMATCHED_ROUTE, routeObserver } from './plugins/http-metrics.ts';
import { meteringPlugin, type Meter } from './plugins/metering.ts';
import { PART } from './plugins/names.ts';
import { openApiPlugin } from './plugins/openapi.ts';
import { opsRoutesPlugin } from './plugins/ops.ts';
import { genRequestId, requestIdPlugin } from './plugins/request-id.ts';
import { routePipelinePlugin } from './plugins/route-pipeline.ts';
import { textInputPlugin } from './plugins/text-input.ts';
import { tracingPlugin } from './plugins/tracing.ts';
import { principalPlugin } from './principal.ts';
import { SERVICES, type EdgeApp, type EdgeRoutes, type ServiceName } from './types.ts';

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

/**
 * The shared parts, each a named Fastify plugin that declares the parts it needs (plugins/names.ts;
 * docs/ARCHITECTURE.md, "The edges"), so Fastify itself refuses an order in which a part comes
 * before one it depends on. They do not encapsulate: their hooks, handlers and decorations hold for
 * the whole app. Then the service's routes, in their own (encapsulated) plugin.
 */
async function install(app: EdgeApp, o: Compiled, unmatched: OnUnmatched[], onUnmatched: OnUnmatched): Promise<void> {
  const root = app as unknown as FastifyInstance;
  const none = (): void => {};
  const observeUnmatched = routeObserver(o.metrics, o.service, UNMATCHED_ROUTE);
  unmatched.push((request, reply) => observeUnmatched(request, reply, none));
  if (o.accessLog) {
    const logUnmatched = accessLogger(UNMATCHED_ROUTE);
    unmatched.push((request, reply) => logUnmatched(request, reply, none));
  }

  root.register(tracingPlugin, { install: o.tracing });
  root.register(compilersPlugin);
  root.register(textInputPlugin);
  root.register(principalPlugin);
  root.register(requestIdPlugin);
  root.register(errorsPlugin, { onUnmatched, servedElsewhere: o.servedElsewhere });
  root.register(routePipelinePlugin, {
    service: o.service,
    rateLimit: o.rateLimit,
    capability: { verifier: o.verifier, audit: o.audit, tenants: o.tenants },
    metrics: o.metrics,
    accessLog: o.accessLog,
  });
  root.register(meteringPlugin, { meter: o.meter });
  root.register(openApiPlugin, { service: o.service });
  root.register(opsRoutesPlugin, { service: o.service, readiness: o.readiness, metrics: o.metrics });
  root.register(capabilitiesRoutePlugin, { service: o.service });
  await root.register(serviceRoutesPlugin(o.service, o.routes));
}

/**
 * The service's routes, encapsulated (what they add stays theirs), after every part a route relies
 * on. Named "<service> routes" in Fastify's tree and in the handler spans of tracing ("handler - token routes").
 */
function serviceRoutesPlugin(service: ServiceName, routes: EdgeRoutes) {
  return fp(async (scope: FastifyInstance) => routes(scope as unknown as EdgeApp), {
    name: `${service} routes`,
    encapsulate: true,
    dependencies: [PART.compilers, PART.textInput, PART.principal, PART.requestId, PART.errors, PART.routePipeline, PART.metering, PART.openApi],
  });
}
