import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { MessageKind, Result, TracePropagation } from '../bus/index.ts';

/**
 * The bus's trace propagation with spans (DESIGN, "The bus": one trace spans edge -> bus -> actor
 * -> database). A request is a client span on the caller's side and a server span around the
 * handler; a publish is a producer span, each delivery a consumer span. Both sides are named after
 * the declared subject and linked by the W3C `traceparent` header the client side injects.
 * Events are traced only within a trace: a publish outside any (a timer's) makes no spans.
 */

/** Messaging attributes (OpenTelemetry semantic conventions, messaging spans; still "development"). */
const DESTINATION = 'messaging.destination.name';
const OPERATION = 'messaging.operation.type';
const ERROR_TYPE = 'error.type';

/** Codes that mean the serving side failed (as a 5xx would); the others are answers, not faults. */
const FAULTS: ReadonlySet<string> = new Set(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'REVOCATION_UNAVAILABLE']);

function endWith(span: Span, result: Result<unknown> | undefined): void {
  if (result !== undefined && !result.ok && span.isRecording()) {
    span.setAttribute(ERROR_TYPE, result.transport ?? result.error.code);
    if (result.transport !== undefined || FAULTS.has(result.error.code)) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** A handler that threw: its message may hold internals (SQL, secrets) and stays in the logs. */
function endThrown(span: Span, error: unknown): void {
  if (span.isRecording()) {
    span.setAttribute(ERROR_TYPE, error instanceof Error ? error.name : typeof error);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** What a request handler answered, if it looks like a result envelope (checked later by the bus). */
function resultOf(value: unknown): Result<unknown> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as { ok?: unknown; error?: { code?: unknown } };
  if (r.ok === true) return r as Result<unknown>;
  if (r.ok === false && typeof r.error?.code === 'string') return r as Result<unknown>;
  return undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/**
 * `recording` says whether this process records spans now. A process that records nothing from its
 * start is given `noPropagation` instead (tracing.ts); this check is for a bus that outlives the
 * recording start it was built with (tests): it then forwards nothing, as `noPropagation` does.
 */
export function busPropagation(tracer: Tracer, recording: () => boolean): TracePropagation {
  return {
    inject(headers, subject, kind: MessageKind) {
      // An event published outside any trace (a heartbeat from a timer) starts none: one trace a
      // second per process would bury the traces of requests.
      if (!recording() || (kind === 'event' && trace.getSpan(context.active()) === undefined)) return undefined;
      const span = tracer.startSpan(subject, { kind: kind === 'request' ? SpanKind.CLIENT : SpanKind.PRODUCER });
      if (span.isRecording()) span.setAttributes({ [DESTINATION]: subject, [OPERATION]: 'send' });
      propagation.inject(trace.setSpan(context.active(), span), headers);
      return (result) => endWith(span, result);
    },

    extract<T>(headers: Record<string, string>, fn: () => T, subject: string, kind: MessageKind): T {
      // Only the headers cross the bus: the memory transport runs handlers in the caller's async
      // context, which must not leak in as a parent (NATS would not carry it either).
      if (!recording()) return fn();
      if (kind === 'event' && headers.traceparent === undefined) return context.with(ROOT_CONTEXT, fn);
      const parent = propagation.extract(ROOT_CONTEXT, headers);
      const span = tracer.startSpan(subject, { kind: kind === 'request' ? SpanKind.SERVER : SpanKind.CONSUMER }, parent);
      if (span.isRecording()) span.setAttributes({ [DESTINATION]: subject, [OPERATION]: 'process' });
      let value: T;
      try {
        value = context.with(trace.setSpan(parent, span), fn);
      } catch (error) {
        endThrown(span, error);
        throw error;
      }
      const answered = (settled: unknown) => endWith(span, kind === 'request' ? resultOf(settled) : undefined);
      if (!isThenable(value)) {
        answered(value);
        return value;
      }
      return value.then(
        (settled) => {
          answered(settled);
          return settled;
        },
        (error: unknown) => {
          endThrown(span, error);
          throw error;
        },
      ) as T;
    },
  };
}
