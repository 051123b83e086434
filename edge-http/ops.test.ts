import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../testing/edge-app.ts';

let t: TestApp;
afterEach(async () => {
  await t.app.close();
});

const noRoutes = () => {};

describe('operations routes', () => {
  it('answers /health with status, service and integer uptime', async () => {
    t = await testApp(noRoutes, { service: 'scheduler' });
    const res = await t.app.inject({ url: '/health' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ status: 'ok', service: 'scheduler', uptime: expect.any(Number) });
    expect(Number.isInteger(body.uptime)).toBe(true);
  });

  it('answers /ready 200 with the checks when every dependency is usable', async () => {
    t = await testApp(noRoutes);
    const res = await t.app.inject({ url: '/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ready: true, checks: { storage: true, bus: true } });
  });

  it('answers /ready 503 in the error shape naming the failing dependency', async () => {
    t = await testApp(noRoutes, { readiness: async () => ({ storage: false, bus: true }) });
    const res = await t.app.inject({ url: '/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      error: { code: 'SERVICE_UNAVAILABLE', message: 'not ready: storage' },
      checks: { storage: false, bus: true },
    });
  });

  it('answers /ready 503 when the readiness check itself fails', async () => {
    t = await testApp(noRoutes, {
      readiness: async () => {
        throw new Error('pool closed');
      },
    });
    const res = await t.app.inject({ url: '/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toEqual({ code: 'SERVICE_UNAVAILABLE', message: 'not ready: readiness check' });
  });

  it('answers /metrics in Prometheus text with counters labelled by route pattern, never raw URL', async () => {
    t = await testApp((app) => {
      app.get('/executions/:id', { config: { authority: { kind: 'scope', scope: 'execution:read' } } }, async () => ({}));
    });
    t.verifier.grant('reader', { sub: 'a', scope: ['execution:read'] });
    await t.app.inject({ url: '/executions/e-123', headers: { authorization: 'Bearer reader' } });
    await t.app.inject({ url: '/executions/e-456', headers: { authorization: 'Bearer reader' } });
    await t.app.inject({ url: '/executions/e-789' });
    await t.app.inject({ url: '/no/such/thing' });
    const res = await t.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(text).toContain('http_requests_total{service="token",route="/executions/:id",method="GET",status="200"} 2');
    expect(text).toContain('http_requests_total{service="token",route="/executions/:id",method="GET",status="401"} 1');
    expect(text).toContain('http_requests_total{service="token",route="unmatched",method="GET",status="404"} 1');
    expect(text).toContain('http_request_duration_seconds_count{service="token",route="/executions/:id",method="GET"} 3');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).not.toContain('e-123');
  });

  it("serves each app's HTTP series on its own listener and the process series on the first one only", async () => {
    t = await testApp(noRoutes);
    const other = await testApp(noRoutes, { service: 'trust', metrics: t.metrics });
    await other.app.inject({ url: '/health' });
    const mine = (await t.app.inject({ url: '/metrics' })).body;
    const theirs = (await other.app.inject({ url: '/metrics' })).body;
    expect(theirs).toContain('http_requests_total{service="trust",route="/health",method="GET",status="200"} 1');
    expect(mine).not.toContain('service="trust"');
    expect(mine).toContain('process_cpu_user_seconds_total');
    expect(theirs).not.toContain('process_cpu_user_seconds_total');
    await other.app.close();
  });
});
