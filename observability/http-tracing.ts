import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { Span, SpanContext, TracerProvider } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * The HTTP server span of every edge, while the process records: the official Fastify
 * instrumentation (@fastify/otel) honours an incoming `traceparent`, opens a SERVER span per
 * request, ends it with the status, and runs the route handler inside its context, so the bus
 * requests the handler makes are its children.
 *
 * While the process records nothing (no exporter), edges are given no tracing at all (tracing.ts):
 * no hook, no context, no `traceparent` read or answered (docs/OBSERVABILITY.md, "Cost"). Even
 * registered but switched off, the instrumentation would run on every request: an `onRequest` and
 * an `onResponse` hook and a handler wrapper, which read `request.routeOptions` (Fastify builds it
 * afresh, a frozen object, on every read) and format a debug message nobody logs.
 *
 * So an edge's mode is chosen when the edge is built, from whether the process records then. It
 * cannot change under a running edge: a start with other settings is refused while one is active
 * (tracing.ts), and edges stop before the tracing that built them.
 */

/** Installs request tracing on an edge's root instance, before any other hook or route. */
export type EdgeTracing = (app: FastifyInstance) => Promise<void>;

export interface HttpTracing {
  /** The instrumentation's spans; handed to edges only while the process records. */
  readonly install: EdgeTracing;
  record(on: boolean): void;
}

/**
 * Routes left untraced: probes and scrapes would otherwise add a trace every few seconds each.
 * Matched on the route pattern, and on the URL for requests (the instrumentation checks both).
 */
const UNTRACED: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

/** The HTTP semantic conventions name a server span `{method} {http.route}`; the plugin says "request". */
function nameAfterRoute(span: Span, request: FastifyRequest): void {
  if (!span.isRecording()) return;
  const route = request.routeOptions.url;
  span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
}

/** W3C Trace Context: `version-traceid-parentid-flags`. */
export function formatTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

export function httpTracing(provider: TracerProvider): HttpTracing {
  const instrumentation = new FastifyOtelInstrumentation({
    enabled: false,
    // One span per request (and its handler), not one per hook: hook spans cost on every request.
    instrumentHooks: false,
    // Exception texts may hold internals; the status and `error.type` say enough, the logs the rest.
    recordExceptions: false,
    ignorePaths: (route) => UNTRACED.has(route.url),
    requestHook: nameAfterRoute,
  });
  instrumentation.setTracerProvider(provider);

  /**
   * First `onRequest` hook after the instrumentation's. Echoes the request's trace to the client in
   * a `traceparent` response header (errors included: headers set before an error are kept), so a
   * caller can find the trace of a call it made.
   */
  function echoRecorded(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const span = request.opentelemetry().span;
    if (span !== null) reply.header('traceparent', formatTraceparent(span.spanContext()));
    done();
  }

  return {
    async install(app) {
      await app.register(instrumentation.plugin());
      app.addHook('onRequest', echoRecorded);
    },
    record(on) {
      if (on) instrumentation.enable();
      else instrumentation.disable();
    },
  };
}
