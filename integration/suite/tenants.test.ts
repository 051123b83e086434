import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { findPlan, periodOf } from '../../core/tenancy/index.ts';
import { call, createTenant } from '../../testing/tenancy.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

const total = async () => (await call(t, '/admin/tenants', { admin: true })).body.total as number;

describe('POST /admin/tenants', () => {
  it('creates a free, active tenant and shows its key once, never to be read again', async () => {
    const a = await call(t, '/admin/tenants', { admin: true, body: { name: 'Acme', externalRef: 'cus_acme_1', email: 'ops@acme.example' } });
    expect(a.status).toBe(201);
    expect(a.headers.get('cache-control')).toBe('no-store');
    expect(a.body).toEqual({
      id: expect.stringMatching(/^ten_[0-9a-f]{24}$/),
      name: 'Acme',
      plan: 'free',
      status: 'active',
      statusReason: null,
      externalRef: 'cus_acme_1',
      email: 'ops@acme.example',
      createdAt: expect.any(String),
      apiKey: expect.stringMatching(/^tk_/),
    });
    const key = a.body.apiKey as string;
    const one = await call(t, `/admin/tenants/${a.body.id}`, { admin: true });
    const list = await call(t, '/admin/tenants?limit=500', { admin: true });
    for (const later of [one, list]) {
      expect(later.status).toBe(200);
      expect(later.text).not.toContain(key);
      expect(later.text).not.toContain('apiKey');
    }
  });

  it('accepts a token holding tenant:manage as well as the admin key', async () => {
    const { token } = await t.mint(['tenant:manage']);
    const a = await call(t, '/admin/tenants', { token, body: { name: 'By token', plan: 'team' } });
    expect(a.status).toBe(201);
    expect(a.body.plan).toBe('team');
  });

  it('refuses an unknown plan, unknown fields and a missing name with 400 naming the field, creating nothing', async () => {
    const before = await total();
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'X', plan: 'gold' }, /plan/],
      [{ name: 'X', colour: 'red' }, /colour|additional/i],
      [{ plan: 'team' }, /name/],
      [{ name: '' }, /name/],
      [{ name: 'X', email: 'not-an-address' }, /email/],
    ];
    for (const [body, field] of cases) {
      const a = await call(t, '/admin/tenants', { admin: true, body });
      expect({ status: a.status, code: a.body.error?.code }, JSON.stringify(body)).toEqual({ status: 400, code: 'INVALID_REQUEST' });
      expect(a.body.error.message).toMatch(field);
    }
    expect(await total()).toBe(before);
  });

  it('refuses a second tenant for the same billing customer with 409 CONFLICT', async () => {
    await createTenant(t, { externalRef: 'cus_dup' });
    const a = await call(t, '/admin/tenants', { admin: true, body: { name: 'Again', externalRef: 'cus_dup' } });
    expect(a.status).toBe(409);
    expect(a.body.error.code).toBe('CONFLICT');
  });
});

describe('GET /admin/tenants', () => {
  it('pages tenants as usage reports of the current month, with the total', async () => {
    await createTenant(t);
    await createTenant(t);
    const all = await call(t, '/admin/tenants?limit=500', { admin: true });
    const page = await call(t, '/admin/tenants?limit=1&offset=1', { admin: true });
    expect(page.body).toMatchObject({ total: all.body.total, limit: 1, offset: 1, period: periodOf(Date.now()) });
    expect(page.body.tenants).toHaveLength(1);
    expect(page.body.tenants[0]).toEqual(all.body.tenants[1]);
    const report = all.body.tenants[0];
    expect(Object.keys(report).sort()).toEqual(['approachingLimit', 'period', 'plan', 'quotas', 'tenant', 'usage']);
    expect(report.plan).toEqual(findPlan(report.tenant.plan));
  });

  it('refuses a limit above 500 and a malformed period with 400', async () => {
    for (const q of ['limit=501', 'limit=0', 'offset=-1', 'period=2025-13', 'period=march']) {
      const a = await call(t, `/admin/tenants?${q}`, { admin: true });
      expect({ q, status: a.status, code: a.body.error?.code }).toEqual({ q, status: 400, code: 'INVALID_REQUEST' });
    }
  });
});

describe('one tenant', () => {
  it('answers 404 NOT_FOUND for an unknown or malformed id on every tenant route', async () => {
    for (const id of ['ten_ffffffffffffffffffffffff', 'nope', 'ten_1']) {
      const answers = [
        await call(t, `/admin/tenants/${id}`, { admin: true }),
        await call(t, `/admin/tenants/${id}/plan`, { admin: true, body: { plan: 'team' } }),
        await call(t, `/admin/tenants/${id}/rotate-key`, { admin: true, method: 'POST' }),
        await call(t, `/admin/tenants/${id}/status`, { admin: true, body: { status: 'suspended', reason: 'x' } }),
      ];
      for (const a of answers) expect({ id, status: a.status, code: a.body.error?.code }).toEqual({ id, status: 404, code: 'NOT_FOUND' });
    }
  });

  it('moves a tenant to another plan, whose limits its report then shows; an unknown plan is 400 and changes nothing', async () => {
    const tenant = await createTenant(t);
    const moved = await call(t, `/admin/tenants/${tenant.id}/plan`, { admin: true, body: { plan: 'business' } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: tenant.id, plan: 'business' });
    expect(moved.body.apiKey).toBeUndefined();
    const bad = await call(t, `/admin/tenants/${tenant.id}/plan`, { admin: true, body: { plan: 'platinum' } });
    expect(bad.status).toBe(400);
    const report = await call(t, `/admin/tenants/${tenant.id}`, { admin: true });
    expect(report.body.plan.id).toBe('business');
    expect(report.body.quotas[0]).toEqual({ metric: 'agents', limit: 25_000, used: 0, remaining: 25_000 });
  });

  it('rotates the key: the new one is shown once and works, the old one is refused at once', async () => {
    const tenant = await createTenant(t);
    expect((await call(t, '/usage', { tenantKey: tenant.apiKey })).status).toBe(200);
    const rotated = await call(t, `/admin/tenants/${tenant.id}/rotate-key`, { admin: true, method: 'POST' });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body).toMatchObject({ id: tenant.id, apiKey: expect.stringMatching(/^tk_/) });
    expect(rotated.body.apiKey).not.toBe(tenant.apiKey);
    const old = await call(t, '/usage', { tenantKey: tenant.apiKey });
    expect({ status: old.status, code: old.body.error?.code }).toEqual({ status: 401, code: 'TENANT_KEY_INVALID' });
    const { token } = await t.mint(['auth:token:validate']);
    const oldOnValidate = await call(t, '/auth/token/validate', { token, tenantKey: tenant.apiKey, body: { token } });
    expect(oldOnValidate.status).toBe(401);
    expect((await call(t, '/usage', { tenantKey: rotated.body.apiKey })).status).toBe(200);
    const withBody = await call(t, `/admin/tenants/${tenant.id}/rotate-key`, { admin: true, body: { keep: true } });
    expect(withBody.status).toBe(400);
  });

  it('suspends with a required reason, refuses the key with 403 TENANT_SUSPENDED, and reactivates', async () => {
    const tenant = await createTenant(t);
    const noReason = await call(t, `/admin/tenants/${tenant.id}/status`, { admin: true, body: { status: 'suspended' } });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.message).toMatch(/reason/);
    expect((await call(t, `/admin/tenants/${tenant.id}/status`, { admin: true, body: { status: 'paused', reason: 'x' } })).status).toBe(400);
    expect((await call(t, '/usage', { tenantKey: tenant.apiKey })).status).toBe(200);

    const suspended = await call(t, `/admin/tenants/${tenant.id}/status`, { admin: true, body: { status: 'suspended', reason: 'abuse report #12' } });
    expect(suspended.body).toMatchObject({ status: 'suspended', statusReason: 'abuse report #12' });
    const { token } = await t.mint(['auth:token:validate']);
    for (const a of [
      await call(t, '/usage', { tenantKey: tenant.apiKey }),
      await call(t, '/auth/token/validate', { token, tenantKey: tenant.apiKey, body: { token } }),
      await call(t, '/capabilities', { token, tenantKey: tenant.apiKey, service: 'scheduler' }),
    ])
      expect({ status: a.status, code: a.body.error?.code }).toEqual({ status: 403, code: 'TENANT_SUSPENDED' });

    const active = await call(t, `/admin/tenants/${tenant.id}/status`, { admin: true, body: { status: 'active' } });
    expect(active.body).toMatchObject({ status: 'active', statusReason: null });
    expect((await call(t, '/usage', { tenantKey: tenant.apiKey })).status).toBe(200);
  });

  it('keeps tenant management away from a credential acting for a tenant', async () => {
    const tenant = await createTenant(t);
    const own = await call(t, '/auth/token', { admin: true, tenantKey: tenant.apiKey, body: { sub: 'ops', scope: ['tenant:manage'] } });
    expect(own.status).toBe(200);
    for (const a of [
      await call(t, '/admin/tenants', { token: own.body.token }),
      await call(t, `/admin/tenants/${tenant.id}`, { token: own.body.token }),
      await call(t, '/admin/tenants', { admin: true, tenantKey: tenant.apiKey }),
    ])
      expect({ status: a.status, code: a.body.error?.code }).toEqual({ status: 403, code: 'CAPABILITY_INSUFFICIENT' });
  });
});

describe('GET /usage', () => {
  it('answers 401 TENANT_KEY_INVALID without a tenant key, whatever else is presented', async () => {
    const { token } = await t.mint(['*']);
    for (const o of [{}, { admin: true }, { token }, { tenantKey: '' }]) {
      const a = await call(t, '/usage', o);
      expect({ status: a.status, code: a.body.error?.code }).toEqual({ status: 401, code: 'TENANT_KEY_INVALID' });
    }
  });

  it('answers 401 TENANT_KEY_INVALID for a key it does not know', async () => {
    const a = await call(t, '/usage', { tenantKey: 'tk_not-a-key-of-this-suite' });
    expect({ status: a.status, code: a.body.error?.code }).toEqual({ status: 401, code: 'TENANT_KEY_INVALID' });
  });

  it('reports the current month by default and any month asked for, without the key', async () => {
    const tenant = await createTenant(t, { plan: 'team' });
    const now = await call(t, '/usage', { tenantKey: tenant.apiKey });
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({ period: periodOf(Date.now()), tenant: { id: tenant.id, plan: 'team' }, plan: findPlan('team') });
    expect(now.text).not.toContain(tenant.apiKey);
    const past = await call(t, '/usage?period=2020-02', { tenantKey: tenant.apiKey });
    expect(past.body).toMatchObject({ period: '2020-02', usage: { agents: 0, validations: 0, schedules: 0, benchmarkRuns: 0 } });
  });

  it('refuses a malformed period with 400 naming it', async () => {
    const tenant = await createTenant(t);
    for (const period of ['2025-1', '2025-13', '202501', 'now', '2025-01-01']) {
      const a = await call(t, `/usage?period=${period}`, { tenantKey: tenant.apiKey });
      expect({ period, status: a.status, code: a.body.error?.code }).toEqual({ period, status: 400, code: 'INVALID_REQUEST' });
      expect(a.body.error.message).toMatch(/period/);
    }
  });
});
