import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { call } from '../../testing/tenancy.ts';
import { startTargetServer, type TargetServer } from '../../testing/target-server.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

const spans = new InMemorySpanExporter();
let t: TestSuite;
let target: TargetServer;
beforeAll(async () => {
  t = await startTestSuite({ SUITE_BENCH_POLL_MS: '50', OTEL_TRACES_SAMPLER: 'always_on' }, [], { spanProcessors: [new SimpleSpanProcessor(spans)] });
  target = await startTargetServer();
}, machineTimeout(60_000));
afterAll(async () => {
  await t?.stop();
  await target?.close();
});

describe('bench runs are traced and counted', () => {
  it('records one bench.run span per job, with its settings and outcome', async () => {
    const token = (await t.mint(['bench:run', 'bench:read'])).token;
    const r = await call(t, '/run', { service: 'bench', token, body: { provider: 'http', url: target.url, testRuns: 5, concurrency: 2 } });
    expect(r.status).toBe(202);
    const until = Date.now() + machineTimeout(15_000);
    const jobSpan = () => spans.getFinishedSpans().find((s) => s.name === 'bench.run' && s.attributes['bench.job_id'] === r.body.jobId);
    let span = jobSpan();
    while (!span) {
      if (Date.now() > until) throw new Error('no bench.run span');
      await new Promise((resolve) => setTimeout(resolve, 50));
      span = jobSpan();
    }
    expect(span.attributes).toMatchObject({ 'bench.provider': 'http', 'bench.test_runs': 5, 'bench.concurrency': 2, 'bench.outcome': 'succeeded' });
    // Linked to the request that submitted the job (issue 36): its trace holds the POST /run span.
    const link = span.links[0];
    expect(link, 'the run links to its POST /run request').toBeDefined();
    const submitted = spans.getFinishedSpans().filter((s) => s.spanContext().traceId === link?.context.traceId);
    expect(submitted.some((s) => s.attributes['http.route'] === '/run')).toBe(true);
    expect(submitted.some((s) => s.spanContext().spanId === link?.context.spanId)).toBe(true);
  });

  it('counts jobs and calls on /metrics', async () => {
    const text = await (await fetch(t.url('bench', '/metrics'))).text();
    expect(text).toContain('bench_jobs_total{provider="http",outcome="succeeded"} 1');
    // 5 measured calls and the 2 default warm-ups.
    expect(text).toContain('bench_calls_total{provider="http",result="ok"} 7');
    expect(text).toContain('bench_jobs_running 0');
  });
});
