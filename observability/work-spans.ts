import { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, SpanStatusCode, context, trace, type Attributes, type Link, type Span } from '@opentelemetry/api';

/**
 * Spans for work that is not one request's (docs/OBSERVABILITY.md, "Trace shape"). The active
 * context (AsyncLocalStorage) follows every timer and promise created inside it, so a loop or a
 * batcher first kicked by a request would otherwise keep adding its work to that request's trace
 * for as long as it runs. Three shapes, after OpenTelemetry's own advice (links for batches):
 *
 * - `detached(fn)`: run with no active span, so what `fn` starts (timers, queued work) keeps
 *   nothing of the caller's trace;
 * - `batchSpan`: work done for many requests at once (a group commit, an audit batch) is a root
 *   span of its own that links to the span of each request it serves; it is recorded when any of
 *   them is (tracing.ts, RoleSampler);
 * - `backgroundSpan`: one turn of a background loop (a poll, a tick, a lease renewal) is a root
 *   span, sampled by the background ratio (`SUITE_TRACE_BACKGROUND_RATIO`, default 0: off).
 */

/** Attribute the sampler reads to tell batch and background roots from request roots. */
export const SPAN_ROLE = 'suite.span.role';
export type SpanRole = 'batch' | 'background';

/** Most links one batch span carries (the SDK's default link limit is 128 as well). */
export const MAX_LINKS = 128;

/**
 * Whether this process records spans now: set by tracing.ts at each start and stop. While it does
 * not (no exporter), these helpers make no span and no context frame: per request and per commit
 * they cost one boolean read (docs/OBSERVABILITY.md, "Cost").
 */
let recording = false;

export function recordWorkSpans(on: boolean): void {
  recording = on;
}

/** What a helper hands its `fn` while nothing records: one shared non-recording span, made once. */
const UNRECORDED: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export function detached<T>(fn: () => T): T {
  // Already outside any trace (always so while nothing records: no context is ever entered), a
  // frame of its own would change nothing and cost an AsyncLocalStorage switch.
  return context.active() === ROOT_CONTEXT ? fn() : context.with(ROOT_CONTEXT, fn);
}

/** Runs `fn` outside any trace with the shared non-recording span: a helper's whole work while nothing records. */
function unrecorded<T>(fn: (span: Span) => T): T {
  return context.active() === ROOT_CONTEXT ? fn(UNRECORDED) : context.with(ROOT_CONTEXT, fn, undefined, UNRECORDED);
}

/** A link to the active span, for a batch that will serve this caller later; undefined outside a trace. */
export function linkToActive(): Link | undefined {
  if (!recording) return undefined;
  const ctx = trace.getSpanContext(context.active());
  return ctx === undefined || !trace.isSpanContextValid(ctx) ? undefined : { context: ctx };
}

const tracer = () => trace.getTracer('suite.work');

async function inRoot<T>(name: string, role: SpanRole, links: Link[], attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!recording) return unrecorded(fn);
  return tracer().startActiveSpan(name, { root: true, links, attributes: { ...attributes, [SPAN_ROLE]: role } }, ROOT_CONTEXT, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      if (span.isRecording()) {
        span.setAttribute('error.type', err instanceof Error ? err.name : typeof err);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Batch work for the requests `links` point to, in a root span of its own. */
export function batchSpan<T>(name: string, links: readonly (Link | undefined)[], attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!recording) return unrecorded(fn);
  const kept: Link[] = [];
  for (const l of links) {
    if (l !== undefined && kept.length < MAX_LINKS) kept.push(l);
  }
  return inRoot(name, 'batch', kept, { ...attributes, 'suite.batch.requests': links.length }, fn);
}

/** One turn of a background loop, in a root span of its own (sampled down: see SPAN_ROLE). */
export function backgroundSpan<T>(name: string, fn: (span: Span) => Promise<T>, attributes: Attributes = {}): Promise<T> {
  return inRoot(name, 'background', [], attributes, fn);
}

/**
 * The active span as a W3C traceparent (`00-trace-span-flags`), to store with work queued for later
 * (a scheduler task, a benchmark job) whose span then links back (issue 36, item 4); undefined
 * outside a trace or while nothing records.
 */
export function activeTraceParent(): string | undefined {
  const link = linkToActive();
  if (link === undefined) return undefined;
  const c = link.context;
  return `00-${c.traceId}-${c.spanId}-${c.traceFlags.toString(16).padStart(2, '0')}`;
}

/** A link to a stored traceparent; undefined when none or malformed. */
export function linkFromTraceParent(traceParent: string | null | undefined): Link | undefined {
  const m = traceParent == null ? null : /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceParent);
  if (!m) return undefined;
  return { context: { traceId: m[1]!, spanId: m[2]!, traceFlags: Number.parseInt(m[3]!, 16), isRemote: true } };
}
