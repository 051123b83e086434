import { describe, expect, it } from 'vitest';
import { createLogger, createMetricsRegistry, REDACT_PATHS } from './index.ts';

describe('logger', () => {
  it('binds the service and redacts credential headers wherever a headers object is logged', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', service: 'bench', destination: { write: (l: string) => lines.push(l) } });
    log.info({ headers: { authorization: 'Bearer abc', 'x-suite-tenant-key': 'tk' }, req: { headers: { cookie: 'c=1' } } }, 'x');
    const line = JSON.parse(lines[0] ?? '{}');
    expect(line.service).toBe('bench');
    expect(line.headers).toEqual({ authorization: '[redacted]', 'x-suite-tenant-key': '[redacted]' });
    expect(JSON.stringify(line)).not.toMatch(/abc|tk"|c=1/);
  });

  it('names each credential header in its redaction paths', () => {
    expect(REDACT_PATHS).toContain('req.headers["x-suite-admin-key"]');
    expect(REDACT_PATHS).toContain('request.headers["x-suite-tenant-key"]');
    expect(REDACT_PATHS).toContain('headers["authorization"]');
  });

  it('logs nothing below its level', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', service: 'trust', destination: { write: (l: string) => lines.push(l) } });
    log.info('quiet');
    expect(lines).toEqual([]);
  });
});

describe('metrics registry', () => {
  it('serves the HTTP metrics of a listener and the process metrics on the first listener set up', async () => {
    const metrics = createMetricsRegistry();
    const bench = metrics.exposition('bench');
    const trust = metrics.exposition('trust');
    metrics.service('bench').requests.inc({ service: 'bench', route: '/run', method: 'POST', status: '201' });
    metrics.service('trust').requests.inc({ service: 'trust', route: '/score', method: 'GET', status: '200' });
    const first = await bench();
    expect(first).toContain('http_requests_total{service="bench",route="/run",method="POST",status="201"} 1');
    expect(first).toContain('# TYPE http_request_duration_seconds histogram');
    expect(first).toContain('nodejs_eventloop_lag_seconds');
    expect(first).toContain('suite_audit_backlog_entries');
    expect(first).not.toContain('service="trust"');
    const second = await trust();
    expect(second).toContain('http_requests_total{service="trust",route="/score",method="GET",status="200"} 1');
    expect(second).not.toContain('nodejs_eventloop_lag_seconds');
    expect(second).not.toContain('suite_audit_backlog_entries');
  });

  it('gives each registry its own metrics, so two registries do not collide', async () => {
    const a = createMetricsRegistry();
    const b = createMetricsRegistry();
    a.service('token').requests.inc({ service: 'token', route: '/x', method: 'GET', status: '200' });
    expect(await b.exposition('token')()).not.toContain('route="/x"');
  });
});
