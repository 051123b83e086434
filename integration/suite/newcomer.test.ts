import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { call } from '../helpers.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Issue 36: what a newcomer still tripped on, each shown through the real listeners. Every test
 * here failed on the code before its fix.
 */
let t: TestSuite;
let star: string;
beforeAll(async () => {
  t = await startTestSuite();
  star = (await t.mint(['*'], { sub: 'newcomer-star' })).token;
}, machineTimeout(60_000));
afterAll(() => t?.stop());

const message = (body: unknown) => (body as { error?: { message?: string } }).error?.message ?? '';

describe('a scope typo on a resource of the suite (item 2)', () => {
  it('refuses audit:raed with 400 naming audit:read', async () => {
    const r = await call(t.url('token', '/auth/token'), { adminKey: t.adminKey, body: { sub: 'typo-agent', scope: ['audit:raed'] } });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.code).toBe('INVALID_REQUEST');
    expect(message(r.body)).toContain('did you mean "audit:read"');
  });

  it('refuses auth:token:valdate naming auth:token:validate', async () => {
    const r = await call(t.url('token', '/auth/token'), { adminKey: t.adminKey, body: { sub: 'typo-agent', scope: ['crm:write', 'auth:token:valdate'] } });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(message(r.body)).toContain('did you mean "auth:token:validate"');
  });

  it("still mints an agent's own scopes and wildcards over the suite's", async () => {
    const r = await call(t.url('token', '/auth/token'), {
      adminKey: t.adminKey,
      body: { sub: 'own-agent', scope: ['crm:write', 'audit:*', 'auth:token:*', 'execution:read'] },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });
});

describe('a wrong HTTP method (item 5)', () => {
  it('answers GET /auth/token with 405 and Allow: POST', async () => {
    const res = await fetch(t.url('token', '/auth/token'));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('still answers 404 for a path no method serves', async () => {
    const res = await fetch(t.url('token', '/auth/nowhere'));
    expect(res.status).toBe(404);
  });
});

describe('a receipt right after its record (item 3)', () => {
  it('answers 200 with the receipt, waiting for the next checkpoint, never 503', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const made = await call(t.url('token', '/executions'), {
        token: star,
        body: { subject: 'receipt-now', module: 'newcomer', action: 'receipt', input: { i }, outcome: 'success' },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const id = (made.body as { id: string }).id;
      const receipt = await call(t.url('token', `/executions/${id}/receipt`), { token: star });
      statuses.push(receipt.status);
      if (receipt.status === 200) expect(receipt.body).toMatchObject({ format: 'execution-receipt/v1', record: { id } });
    }
    expect(statuses).toEqual([200, 200, 200]);
  });
});
