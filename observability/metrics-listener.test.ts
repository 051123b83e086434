import { afterEach, describe, expect, it } from 'vitest';
import { Counter } from 'prom-client';
import { createMetricsRegistry } from './metrics.ts';
import { startMetricsListener, type MetricsListener } from './metrics-listener.ts';

let listener: MetricsListener | undefined;
afterEach(async () => {
  await listener?.stop();
  listener = undefined;
});

describe('the metrics listener of a process without listeners', () => {
  it('serves the process-wide series and those of services whose listener the process does not run', async () => {
    const metrics = createMetricsRegistry();
    new Counter({ name: 'scheduler_task_attempts_total', help: 'attempts', registers: [metrics.service('scheduler').registry] }).inc(3);
    listener = await startMetricsListener(metrics, '127.0.0.1', 0);
    const res = await fetch(`http://127.0.0.1:${listener.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('scheduler_task_attempts_total 3');
    expect(text).toContain('suite_chain_writer_leader');
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('answers anything else with 404 in the error shape', async () => {
    listener = await startMetricsListener(createMetricsRegistry(), '127.0.0.1', 0);
    const res = await fetch(`http://127.0.0.1:${listener.port}/health`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'this listener serves GET /metrics only' } });
  });
});
