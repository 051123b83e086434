import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { call } from '../helpers.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Issue 25, finding 6, through `POST /queue`: tenant A filled the shared queue with tasks delayed a
 * month, and tenant B's `POST /queue` then got 429. Now each tenant has its own cap
 * (`SCHEDULER_QUEUE_TENANT_MAX`) below the shared one; services/scheduler/queue-caps.test.ts shows
 * neither is overrun under concurrency.
 */
let t: TestSuite;
let star: string;
const tenantKeys: string[] = [];
beforeAll(async () => {
  t = await startTestSuite({ SCHEDULER_QUEUE_TENANT_MAX: '3', SCHEDULER_QUEUE_MAX: '100' });
  star = (await t.mint(['*'], { sub: 'queue-tenants' })).token;
  for (const name of ['Tenant A', 'Tenant B']) {
    const created = await call(t.url('token', '/admin/tenants'), { adminKey: t.adminKey, body: { name } });
    tenantKeys.push((created.body as { apiKey: string }).apiKey);
  }
}, machineTimeout(60_000));
afterAll(() => t?.stop());

const MONTH_MS = 31 * 24 * 3_600_000;
const enqueue = (tenantKey: string, id: string) =>
  call(t.url('scheduler', '/queue'), {
    token: star,
    headers: { 'x-suite-tenant-key': tenantKey },
    body: { id, delay: MONTH_MS, task: { type: 'http', url: 'https://example.org/never' } },
  });

describe('the queue cap per tenant', () => {
  it('refuses a tenant at its own cap with 429 and Retry-After, while another tenant still enqueues', async () => {
    const [a, b] = tenantKeys as [string, string];
    for (let i = 0; i < 3; i++) expect((await enqueue(a, `a-${i}`)).status).toBe(201);
    const refused = await enqueue(a, 'a-3');
    expect(refused.status).toBe(429);
    expect(refused.code).toBe('RATE_LIMITED');
    expect((refused.body as { error: { message: string } }).error.message).toMatch(/per tenant/);
    expect((await enqueue(b, 'b-0')).status).toBe(201);
  });
});
