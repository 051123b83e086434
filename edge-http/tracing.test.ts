import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSharedConfig } from '../config/index.ts';
import { startTracing, type Tracing } from '../observability/index.ts';
import { testApp, type TestApp } from '../testing/edge-app.ts';
import { NO_TRACING_WORK, watchTracingWork } from '../testing/tracing-work.ts';
import type { EdgeRoutes } from './types.ts';

const exporter = new InMemorySpanExporter();

/** Tracing for one describe block (one start per process at a time), recording into `exporter` or not. */
function tracingFor(record: boolean): () => Tracing {
  let tracing: Tracing | undefined;
  beforeAll(() => {
    tracing = startTracing({ settings: loadSharedConfig({}).tracing, ...(record ? { spanProcessors: [new SimpleSpanProcessor(exporter)] } : {}) });
  });
  afterAll(() => tracing?.shutdown());
  return () => {
    if (!tracing) throw new Error('tracing did not start');
    return tracing;
  };
}

let t: TestApp;
afterEach(async () => {
  await t.app.close();
  exporter.reset();
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

/** A public route whose handler reports the span it runs in, after reading a body. */
const routes: EdgeRoutes = (app) => {
  app.post('/things/:id', { config: { authority: { kind: 'public' } } }, async () => ({
    activeSpan: trace.getActiveSpan()?.spanContext().spanId ?? null,
    traceId: trace.getActiveSpan()?.spanContext().traceId ?? null,
  }));
  app.get('/secret', { config: { authority: { kind: 'scope', scope: 'secret:read' } } }, async () => ({ ok: true }));
};

describe('request tracing on an edge that records', () => {
  const tracing = tracingFor(true);

  it('installs nothing unless asked: no span, no traceparent on the answer', async () => {
    t = await testApp(routes);
    const res = await t.app.inject({ method: 'POST', url: '/things/1', headers: { traceparent: INCOMING }, payload: {} });
    expect(res.statusCode).toBe(200);
    expect(res.headers.traceparent).toBeUndefined();
    expect(res.json()).toEqual({ activeSpan: null, traceId: null });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("runs the handler inside a server span named after the route, child of the caller's span", async () => {
    t = await testApp(routes, { tracing: tracing().http });
    const res = await t.app.inject({ method: 'POST', url: '/things/7?x=1', headers: { traceparent: INCOMING }, payload: { a: 1 } });
    expect(res.statusCode).toBe(200);
    const server = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER);
    expect(server?.name).toBe('POST /things/:id');
    expect(server?.attributes['http.route']).toBe('/things/:id');
    expect(server?.spanContext().traceId).toBe(TRACE_ID);
    expect(server?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(res.headers.traceparent).toBe(`00-${TRACE_ID}-${server?.spanContext().spanId}-01`);
    // The handler runs in a span of its own under the server span (the instrumentation's), so
    // the bus requests it makes land in the caller's trace.
    const handler = exporter.getFinishedSpans().find((s) => s.spanContext().spanId === res.json().activeSpan);
    expect(handler?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
  });

  it('installs the OpenTelemetry instrumentation, which decorates requests', async () => {
    t = await testApp(routes, { tracing: tracing().http });
    expect(t.app.hasRequestDecorator('opentelemetry')).toBe(true);
  });

  it('names the trace on refusals too', async () => {
    t = await testApp(routes, { tracing: tracing().http });
    const res = await t.app.inject({ method: 'GET', url: '/secret', headers: { traceparent: INCOMING } });
    expect(res.statusCode).toBe(401);
    expect(res.headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER)?.attributes['http.response.status_code']).toBe(401);
  });
});

describe('request tracing in a process that records nothing', () => {
  const tracing = tracingFor(false);

  it('gives edges no tracing at all: no hook to install', () => {
    expect(tracing().recording).toBe(false);
    expect(tracing().http).toBeUndefined();
  });

  it('neither reads nor answers a traceparent, and runs the handler in no span', async () => {
    // As the runtime builds an edge: with whatever tracing the process hands out.
    const http = tracing().http;
    t = await testApp(routes, http === undefined ? {} : { tracing: http });
    const watch = watchTracingWork();
    try {
      const res = await t.app.inject({ method: 'POST', url: '/things/7', headers: { traceparent: INCOMING }, payload: { a: 1 } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ activeSpan: null, traceId: null });
      expect(res.headers.traceparent).toBeUndefined();
      const refused = await t.app.inject({ method: 'GET', url: '/secret' });
      expect(refused.statusCode).toBe(401);
      expect(refused.headers.traceparent).toBeUndefined();
      expect(watch.counts()).toEqual(NO_TRACING_WORK);
    } finally {
      watch.restore();
    }
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
