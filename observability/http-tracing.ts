import { FastifyOtelInstrumentation } from '@fastify/otel';
import {
  ROOT_CONTEXT, TraceFlags, context, propagation, trace, type Context, type Span, type SpanContext, type TracerProvider,
} from '@opentelemetry/api';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteHandlerMethod } from 'fastify';

/**
 * The HTTP server span of every edge. While the process records, the official Fastify
 * instrumentation (@fastify/otel) does the work: it honours an incoming `traceparent`, opens a
 * SERVER span per request, ends it with the status, and runs the route handler inside its context,
 * so the bus requests the handler makes are its children.
 *
 * While it records nothing (no exporter), the instrumentation is not installed at all and the
 * hooks below, written by hand, only keep the trace id flowing: one non-recording span context per
 * request, the handler run inside it. Measured on the token edge (GET /capabilities, embedded
 * suite, one core): the instrumentation's two spans, three contexts and plugin checks per request
 * took about 10% of the main thread's time even with nothing recorded. Registered but switched off,
 * it still runs on every request: an `onRequest` and an `onResponse` hook and a handler wrapper,
 * which read `request.routeOptions` (Fastify builds it afresh, a frozen object, on every read) and
 * format a debug message nobody logs. (Too little to separate from a drifting machine's noise in
 * appends per second; it is work for nothing all the same.)
 *
 * So an edge's mode is chosen when the edge is built, from whether the process records then. It
 * cannot change under a running edge: a start with other settings is refused while one is active
 * (tracing.ts), and edges stop before the tracing that built them.
 */

/** Installs request tracing on an edge's root instance, before any other hook or route. */
export type EdgeTracing = (app: FastifyInstance) => Promise<void>;

export interface HttpTracing {
  /** Recording when the edge is built: the instrumentation's spans. Else: trace ids only. */
  readonly install: EdgeTracing;
  record(on: boolean): void;
}

/**
 * Routes left untraced: probes and scrapes would otherwise add a trace every few seconds each.
 * Matched on the route pattern, and on the URL for requests (the instrumentation checks both).
 */
const UNTRACED: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

/** The context of a request traced by the propagation-only hooks. */
const kContext = Symbol('suite trace context');
type WithContext = { [kContext]?: Context | undefined };

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
  let recording = false;
  const ids = new RandomIdGenerator();
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

  /** Not recording: makes the request's trace context (no span) and echoes it the same way. */
  function onRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    // The URL, not the route pattern: `request.routeOptions` builds an object on every read.
    if (UNTRACED.has(request.url)) {
      done();
      return;
    }
    // What the SDK's tracer makes when its sampler says no (sdk-trace Tracer.startSpan), without
    // the sampler, attribute and metric plumbing around it: a non-recording span with a fresh span
    // id, the caller's trace id (or a fresh one) and tracestate, and flags "not sampled".
    const parent = request.headers.traceparent === undefined ? undefined : trace.getSpanContext(propagation.extract(ROOT_CONTEXT, request.headers));
    const spanContext: SpanContext = {
      traceId: parent?.traceId ?? ids.generateTraceId(),
      spanId: ids.generateSpanId(),
      traceFlags: TraceFlags.NONE,
      ...(parent?.traceState !== undefined ? { traceState: parent.traceState } : {}),
    };
    (request as WithContext)[kContext] = trace.setSpanContext(ROOT_CONTEXT, spanContext);
    reply.header('traceparent', formatTraceparent(spanContext));
    // Only the handler runs inside this context (below): it is what makes bus requests.
    done();
  }

  /** Runs a handler inside its request's context (the body was read in another async context). */
  function inContext(handler: RouteHandlerMethod): RouteHandlerMethod {
    return function handle(this: FastifyInstance, request, reply) {
      const ctx = (request as WithContext)[kContext];
      return ctx === undefined ? handler.call(this, request, reply) : context.with(ctx, handler, this, request, reply);
    };
  }

  return {
    async install(app) {
      if (recording) {
        await app.register(instrumentation.plugin());
        app.addHook('onRequest', echoRecorded);
        return;
      }
      app.decorateRequest(kContext, undefined);
      app.addHook('onRequest', onRequest);
      app.addHook('onRoute', (route) => {
        if (!UNTRACED.has(route.url)) route.handler = inContext(route.handler as RouteHandlerMethod);
      });
    },
    record(on) {
      recording = on;
      if (on) instrumentation.enable();
      else instrumentation.disable();
    },
  };
}
