import { context, propagation, trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { vi } from 'vitest';

/** How many times this process did each kind of tracing work since `watchTracingWork` or `reset`. */
export interface TracingWork {
  /** Spans the SDK started, recorded or not (every tracer of the registered provider). */
  spans: number;
  /** `context.with` frames (AsyncLocalStorage switches). */
  contextFrames: number;
  /** Span contexts put into a context by hand (`trace.setSpan`, `trace.setSpanContext`). */
  spanContexts: number;
  /** W3C Trace Context written to or read from a carrier (headers). */
  injected: number;
  extracted: number;
}

export interface TracingWorkWatch {
  counts(): TracingWork;
  reset(): void;
  restore(): void;
}

/**
 * Counts the tracing work done in this process, by spying on the OpenTelemetry API's singletons and
 * on the registered SDK tracer's class (every tracer, a library's cached one included, is one of
 * those). Call after `startTracing`: the SDK provider must be registered.
 */
export function watchTracingWork(): TracingWorkWatch {
  const sdk = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
  const tracerClass = Object.getPrototypeOf(sdk.getTracer('tracing-work-probe')) as { startSpan: (...args: never[]) => unknown };
  if (typeof tracerClass.startSpan !== 'function') throw new Error('no SDK tracer registered: start tracing first');
  const spies = {
    spans: [vi.spyOn(tracerClass, 'startSpan')],
    contextFrames: [vi.spyOn(context, 'with')],
    spanContexts: [vi.spyOn(trace, 'setSpan'), vi.spyOn(trace, 'setSpanContext')],
    injected: [vi.spyOn(propagation, 'inject')],
    extracted: [vi.spyOn(propagation, 'extract')],
  };
  const all = Object.values(spies).flat();
  const count = (list: ReadonlyArray<{ mock: { calls: unknown[] } }>) => list.reduce((n, s) => n + s.mock.calls.length, 0);
  return {
    counts: () => ({
      spans: count(spies.spans),
      contextFrames: count(spies.contextFrames),
      spanContexts: count(spies.spanContexts),
      injected: count(spies.injected),
      extracted: count(spies.extracted),
    }),
    reset: () => {
      for (const s of all) s.mockClear();
    },
    restore: () => {
      for (const s of all) s.mockRestore();
    },
  };
}

/** No tracing work of any kind. */
export const NO_TRACING_WORK: TracingWork = Object.freeze({ spans: 0, contextFrames: 0, spanContexts: 0, injected: 0, extracted: 0 });
