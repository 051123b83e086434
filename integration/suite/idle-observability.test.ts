import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { call, pollUntil } from '../helpers.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/** Issue 36, item 9: a fresh, idle suite as Grafana and a trace backend see it. */
const spans = new InMemorySpanExporter();
let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite({}, [], { spanProcessors: [new SimpleSpanProcessor(spans)] });
}, machineTimeout(60_000));
afterAll(() => t?.stop());

describe('a fresh suite', () => {
  it('exports suite_verification_runs_total at 0 for each result before any verification', async () => {
    const text = await (await fetch(t.url('token', '/metrics'))).text();
    for (const result of ['valid', 'invalid', 'error']) expect(text).toContain(`suite_verification_runs_total{result="${result}"} 0`);
  });

  it("exports no trace for the dashboard's background reads of the audit trail", async () => {
    const token = (await t.mint(['audit:read'], { sub: 'idle-watcher' })).token;
    // The trends' first round has read the hour of decisions once the allow series has points.
    await pollUntil(
      "the dashboard trends' first round",
      async () => {
        const r = await call(t.url('dashboard', '/dashboard/history'), { token });
        const allow = (r.body as { series?: { name: string; points: (number | null)[] }[] }).series?.find((s) => s.name === 'allow');
        return { done: allow?.points.some((p) => p !== null) === true, seen: r.status };
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const reads = spans.getFinishedSpans().filter((s) => s.name === 'suite.audit.list');
    expect(reads.length).toBe(0);
  });
});
