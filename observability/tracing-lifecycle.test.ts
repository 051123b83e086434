import { context, trace, TraceFlags } from '@opentelemetry/api';
import { Type } from 'typebox';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createBus, createMemoryNetwork, noPropagation, requestSubject } from '../bus/index.ts';
import { loadSharedConfig } from '../config/index.ts';
import { startTracing, type Tracing } from './index.ts';

// A library's tracer taken when it loads, before any provider exists (as slonik's are).
const libraryTracer = trace.getTracer('a-library');

const settings = (env: Record<string, string> = {}) => loadSharedConfig(env).tracing;

function recorder() {
  const exporter = new InMemorySpanExporter();
  return { exporter, processors: [new SimpleSpanProcessor(exporter)] };
}

const running: Tracing[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.shutdown()));
});

function start(...args: Parameters<typeof startTracing>): Tracing {
  const t = startTracing(...args);
  running.push(t);
  return t;
}

describe('startTracing', () => {
  it('shares one start between users and records until the last of them shuts down', async () => {
    const { exporter, processors } = recorder();
    const first = start({ settings: settings(), spanProcessors: processors });
    const second = start({ settings: settings(), spanProcessors: processors });
    await first.shutdown();
    libraryTracer.startSpan('while the second runs').end();
    await second.shutdown();
    libraryTracer.startSpan('after both stopped').end();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['while the second runs']);
  });

  it('refuses a second start that asks for other span processors while one runs', () => {
    start({ settings: settings(), spanProcessors: recorder().processors });
    expect(() => startTracing({ settings: settings(), spanProcessors: recorder().processors })).toThrow(/already started/);
    expect(() => startTracing({ settings: settings({ OTEL_SERVICE_NAME: 'another' }) })).toThrow(/one service name per process/);
  });

  it('starts afresh after the last shutdown, reaching tracers that libraries took long before', async () => {
    const before = recorder();
    await start({ settings: settings(), spanProcessors: before.processors }).shutdown();
    const after = recorder();
    start({ settings: settings(), spanProcessors: after.processors });
    libraryTracer.startSpan('second life').end();
    expect(before.exporter.getFinishedSpans()).toEqual([]);
    expect(after.exporter.getFinishedSpans().map((s) => s.name)).toEqual(['second life']);
  });

  it('records nothing without an exporter, yet gives root spans real ids to propagate', () => {
    start({ settings: settings() });
    const span = libraryTracer.startSpan('unsampled root');
    expect(span.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(span.spanContext())).toBe(true);
    span.end();
  });

  it('follows the configured sampler when it records', () => {
    start({ settings: settings({ OTEL_TRACES_SAMPLER: 'always_off' }), spanProcessors: recorder().processors });
    expect(libraryTracer.startSpan('dropped').isRecording()).toBe(false);
  });

  it('records database work only within a trace', () => {
    start({ settings: settings(), spanProcessors: recorder().processors });
    expect(libraryTracer.startSpan('slonik.executeQuery').isRecording()).toBe(false);
    libraryTracer.startActiveSpan('request', (parent) => {
      expect(libraryTracer.startSpan('slonik.executeQuery').isRecording()).toBe(true);
      parent.end();
    });
  });

  it('installs nothing at all when the SDK is disabled', async () => {
    const t = startTracing({ settings: settings({ OTEL_SDK_DISABLED: 'true' }) });
    expect(t.propagation).toBe(noPropagation);
    expect(t.http).toBeUndefined();
    await t.shutdown();
  });

  it('hands a process that records nothing no bus propagation: messages carry no trace header', async () => {
    const t = start({ settings: settings() });
    expect(t.recording).toBe(false);
    expect(t.propagation).toBe(noPropagation);
    const network = createMemoryNetwork();
    const [server, client] = [createBus(network.connect(), { propagation: t.propagation }), createBus(network.connect(), { propagation: t.propagation })];
    const ask = requestSubject('test.trace.ask', Type.Object({}), Type.Object({ traceparent: Type.String() }));
    server.serve(ask, ({ headers }) => ({ ok: true, value: { traceparent: headers.traceparent ?? 'none' } }));
    // Even a caller inside a span (a library's, or one left by a user) sends nothing of it.
    const caller = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED });
    const reply = await context.with(trace.setSpan(context.active(), caller), () => client.request(ask, {}));
    expect(reply).toEqual({ ok: true, value: { traceparent: 'none' } });
    await Promise.all([server.drain(), client.drain()]);
  });
});
