import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// The bus's own contract fixtures: real transports (memory, and NATS on localhost), no mocks.
import { busPool, deferred, memoryHarness, natsHarness, subjectsFor, uniquePrefix, within, type Harness } from '../testing/bus.ts';
import { loadSharedConfig } from '../config/index.ts';
import { startTracing, type Tracing } from './index.ts';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
beforeAll(() => {
  tracing = startTracing({ settings: loadSharedConfig({}).tracing, spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
afterAll(() => tracing.shutdown());

const tracer = trace.getTracer('bus-tracing-test');
const named = (name: string, kind: SpanKind) => exporter.getFinishedSpans().filter((s) => s.name === name && s.kind === kind);
const only = (spans: ReadableSpan[]): ReadableSpan => {
  expect(spans).toHaveLength(1);
  return spans[0] as ReadableSpan;
};

describe.each([
  { name: 'memory', harness: memoryHarness() },
  { name: 'nats', harness: natsHarness() },
])('bus spans over the $name transport', ({ harness }: { harness: Harness }) => {
  const pool = busPool(harness);
  afterEach(async () => {
    await pool.drainAll();
    exporter.reset();
  });

  it('links the client span of a request and the server span of its handler in one trace', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const [server, client] = [await pool.open({ propagation: tracing.propagation }), await pool.open({ propagation: tracing.propagation })];
    let handlerSpan: string | undefined;
    server.bus.serve(echo, ({ data }) => {
      handlerSpan = trace.getActiveSpan()?.spanContext().spanId;
      return { ok: true, value: data };
    });
    await server.bus.flush();
    const parent = await tracer.startActiveSpan('caller', async (span) => {
      expect(await client.bus.request(echo, { text: 'traced' })).toEqual({ ok: true, value: { text: 'traced' } });
      span.end();
      return span;
    });
    const clientSpan = only(named(echo.subject, SpanKind.CLIENT));
    const serverSpan = only(named(echo.subject, SpanKind.SERVER));
    expect(clientSpan.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(handlerSpan).toBe(serverSpan.spanContext().spanId);
    expect(serverSpan.attributes['messaging.destination.name']).toBe(echo.subject);
  });

  it('marks a fault as an error and a refusal only by its code', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const [server, client] = [await pool.open({ propagation: tracing.propagation }), await pool.open({ propagation: tracing.propagation })];
    server.bus.serve(echo, ({ data }) =>
      data.text === 'fault' ? { ok: false, error: { code: 'INTERNAL_ERROR', message: 'broke' } } : { ok: false, error: { code: 'NOT_FOUND', message: 'none' } },
    );
    await server.bus.flush();
    await client.bus.request(echo, { text: 'fault' });
    await client.bus.request(echo, { text: 'missing' });
    const [fault, refusal] = named(echo.subject, SpanKind.CLIENT);
    expect(fault?.status.code).toBe(SpanStatusCode.ERROR);
    expect(fault?.attributes['error.type']).toBe('INTERNAL_ERROR');
    expect(refusal?.status.code).toBe(SpanStatusCode.UNSET);
    expect(refusal?.attributes['error.type']).toBe('NOT_FOUND');
  });

  it('traces an event published within a trace, and not one published outside any', async () => {
    const { happened } = subjectsFor(uniquePrefix());
    const [subscriber, publisher] = [await pool.open({ propagation: tracing.propagation }), await pool.open({ propagation: tracing.propagation })];
    const seen = [deferred(), deferred()];
    subscriber.bus.subscribe(happened, ({ data }) => seen[data.id]?.resolve());
    await subscriber.bus.flush();
    publisher.bus.publish(happened, { id: 0 });
    await within(seen[0]!.promise, 2000, 'the event outside a trace');
    tracer.startActiveSpan('within', (span) => {
      publisher.bus.publish(happened, { id: 1 });
      span.end();
    });
    await within(seen[1]!.promise, 2000, 'the event within a trace');
    const producer = only(named(happened.subject, SpanKind.PRODUCER));
    // The handler returned synchronously, so its consumer span ended before `seen` settled.
    const consumer = only(named(happened.subject, SpanKind.CONSUMER));
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
  });
});
