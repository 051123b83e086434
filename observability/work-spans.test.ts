import { ROOT_CONTEXT, TraceFlags, context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSharedConfig } from '../config/index.ts';
import { NO_TRACING_WORK, watchTracingWork } from '../testing/tracing-work.ts';
import { backgroundSpan, batchSpan, detached, linkToActive, startTracing, type Tracing } from './index.ts';

/** The spans of work that is not one request's, and how the sampler treats them (work-spans.ts). */

const exporter = new InMemorySpanExporter();
let tracing: Tracing | undefined;
afterEach(async () => {
  await tracing?.shutdown();
  tracing = undefined;
  exporter.reset();
});

function record(env: Record<string, string> = {}) {
  tracing = startTracing({ settings: loadSharedConfig(env).tracing, spanProcessors: [new SimpleSpanProcessor(exporter)] });
}

/** A request's context with the given sampled flag, as the edge would make. */
function request(sampled: boolean) {
  const ids = { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8) };
  const remote = trace.wrapSpanContext({ ...ids, traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true });
  return trace.setSpan(ROOT_CONTEXT, remote);
}

describe('batch spans', () => {
  it('are roots of their own that link to the requests they serve, recorded when one of those is', async () => {
    record();
    const links = [context.with(request(true), linkToActive), context.with(request(false), linkToActive)];
    await context.with(request(true), () =>
      batchSpan('chain.commit executions', links, { 'suite.chain': 'executions' }, async () => {
        trace.getTracer('t').startSpan('insert').end();
      }),
    );
    const [insert, commit] = exporter.getFinishedSpans();
    expect(commit?.name).toBe('chain.commit executions');
    expect(commit?.parentSpanContext).toBeUndefined();
    expect(commit?.spanContext().traceId).not.toBe('ab'.repeat(16));
    expect(commit?.links.map((l) => l.context.spanId)).toEqual(['cd'.repeat(8), 'cd'.repeat(8)]);
    expect(commit?.attributes).toMatchObject({ 'suite.span.role': 'batch', 'suite.batch.requests': 2 });
    expect(insert?.parentSpanContext?.spanId).toBe(commit?.spanContext().spanId);
  });

  it('are not recorded when no request they serve was, nor their children', async () => {
    record();
    await batchSpan('audit.append', [context.with(request(false), linkToActive), undefined], {}, async () => {
      trace.getTracer('t').startSpan('send').end();
    });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('background spans', () => {
  it('are not recorded by default, even inside a sampled request', async () => {
    record();
    await context.with(request(true), () =>
      backgroundSpan('scheduler.poll', async () => {
        trace.getTracer('t').startSpan('claim').end();
      }),
    );
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('are roots of their own when SUITE_TRACE_BACKGROUND_RATIO records them', async () => {
    record({ SUITE_TRACE_BACKGROUND_RATIO: '1' });
    await context.with(request(true), () => backgroundSpan('scheduler.poll', async () => {}));
    const [poll] = exporter.getFinishedSpans();
    expect(poll?.name).toBe('scheduler.poll');
    expect(poll?.parentSpanContext).toBeUndefined();
    expect(poll?.spanContext().traceId).not.toBe('ab'.repeat(16));
  });
});

describe('detached', () => {
  it("runs with no active span, so timers set within keep nothing of the caller's trace", async () => {
    record();
    const seen = await context.with(request(true), () =>
      detached(
        () =>
          new Promise((resolve) => {
            setTimeout(() => resolve(trace.getSpan(context.active())), 1);
          }),
      ),
    );
    expect(seen).toBeUndefined();
    expect(context.with(request(true), linkToActive)?.context.spanId).toBe('cd'.repeat(8));
  });
});

describe('work spans in a process that records nothing', () => {
  it('make no span, no context frame and no link: the work runs as it is', async () => {
    tracing = startTracing({ settings: loadSharedConfig({}).tracing });
    const watch = watchTracingWork();
    try {
      const link = linkToActive();
      const committed = await batchSpan('chain.commit executions', [link, undefined], { 'suite.chain': 'executions' }, async (span) => {
        span.setAttribute('suite.chain.head', 7);
        return span.isRecording() ? 'recorded' : 'committed';
      });
      const polled = await backgroundSpan('scheduler.poll', async () => 'polled');
      const timer = await detached(() => new Promise((resolve) => setTimeout(() => resolve('fired'), 1)));
      expect([link, committed, polled, timer]).toEqual([undefined, 'committed', 'polled', 'fired']);
      expect(watch.counts()).toEqual(NO_TRACING_WORK);
    } finally {
      watch.restore();
    }
  });

  it("still run outside the caller's trace when one is active (a library's span), and link to nothing", async () => {
    tracing = startTracing({ settings: loadSharedConfig({}).tracing });
    const seen = await context.with(request(true), () => batchSpan('audit.append', [linkToActive()], {}, async () => trace.getSpan(context.active())));
    expect(seen).toBeUndefined();
    expect(context.with(request(true), linkToActive)).toBeUndefined();
  });
});
