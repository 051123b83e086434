import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { periodEnd, periodOf } from '../../core/tenancy/index.ts';
import { meterUsage } from '../../storage/index.ts';
import { call, claimsOf, createTenant, type CreatedTenant } from '../../testing/tenancy.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * X-Suite-Tenant-Key beside the credential of every guarded route (spec, Authentication rule 6):
 * what it names is recorded under the tenant, what it calls is metered, and a tenant never reads
 * another's records.
 */
let t: TestSuite;
let validator: string;
beforeAll(async () => {
  t = await startTestSuite();
  validator = (await t.mint(['auth:token:validate'])).token;
}, machineTimeout(60_000));
afterAll(() => t?.stop());

/** A tenant that has already used all but `left` of this month's `metric` (usage seeded as earlier calls would). */
async function tenantWithLeft(metric: 'agents' | 'validations', left: number): Promise<CreatedTenant> {
  const tenant = await createTenant(t);
  const limit = metric === 'agents' ? 100 : 10_000;
  if (limit - left > 0) await meterUsage(t.suite.storage!.pool, { tenantId: tenant.id, period: periodOf(Date.now()), metric, amount: limit - left, limit });
  return tenant;
}

const usage = async (tenant: CreatedTenant) => (await call(t, '/usage', { tenantKey: tenant.apiKey })).body.usage as Record<string, number>;
const validate = (tenant: CreatedTenant | undefined, body: unknown = { token: validator }) =>
  call(t, '/auth/token/validate', { token: validator, body, ...(tenant ? { tenantKey: tenant.apiKey } : {}) });

describe('the tenant key on guarded routes', () => {
  it('answers 401 TENANT_KEY_INVALID for an unknown key beside a valid credential, on every listener', async () => {
    for (const [service, path] of [
      ['token', '/audit'],
      ['scheduler', '/capabilities'],
      ['trust', '/capabilities'],
    ] as const) {
      const a = await call(t, path, { admin: true, tenantKey: 'tk_unknown', service });
      expect({ service, status: a.status, code: a.body.error?.code }).toEqual({ service, status: 401, code: 'TENANT_KEY_INVALID' });
    }
    const a = await validate({ id: 'x', apiKey: '', name: '', plan: '' });
    expect(a.body.error.code).toBe('TENANT_KEY_INVALID');
  });

  it('changes nothing when absent: no quota headers, nothing counted', async () => {
    const a = await validate(undefined);
    expect(a.status).toBe(200);
    expect(a.headers.get('x-suite-quota-limit')).toBeNull();
  });

  it("refuses a token issued under one tenant presented with another tenant's key (403 CAPABILITY_INSUFFICIENT)", async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const ofA = await call(t, '/auth/token', { admin: true, tenantKey: a.apiKey, body: { sub: 'agent-a', scope: ['audit:read'] } });
    const crossed = await call(t, '/audit', { token: ofA.body.token, tenantKey: b.apiKey });
    expect({ status: crossed.status, code: crossed.body.error?.code }).toEqual({ status: 403, code: 'CAPABILITY_INSUFFICIENT' });
    expect((await call(t, '/audit', { token: ofA.body.token, tenantKey: a.apiKey })).status).toBe(200);
    expect(await usage(b)).toMatchObject({ agents: 0 });
  });

  it('issues tokens that carry the tenant, whose records and audit entries carry it too', async () => {
    const tenant = await createTenant(t);
    const issued = await call(t, '/auth/token', {
      admin: true,
      tenantKey: tenant.apiKey,
      body: { sub: 'agent-rec', scope: ['execution:record', 'audit:read'] },
    });
    expect(issued.status).toBe(200);
    expect(claimsOf(issued.body.token).ten).toBe(tenant.id);
    const recorded = await call(t, '/executions', {
      token: issued.body.token,
      body: { subject: 'agent-rec', module: 'crm', action: 'update', input: { a: 1 }, outcome: 'success' },
    });
    expect(recorded.status).toBe(201);
    expect(recorded.body.attested.tenantId).toBe(tenant.id);
    const audit = await call(t, '/audit?limit=500', { token: issued.body.token });
    expect(audit.body.entries.length).toBeGreaterThan(0);
    expect(audit.body.entries.some((e: { action: string }) => e.action === 'auth:token:create')).toBe(true);
    for (const entry of audit.body.entries) expect(entry.tenantId).toBe(tenant.id);
  });
});

describe('metering', () => {
  it('counts a validation and a token issued with the tenant key, with quota headers on the answers', async () => {
    const tenant = await createTenant(t);
    const a = await validate(tenant);
    expect(a.status).toBe(200);
    expect(a.headers.get('x-suite-quota-metric')).toBe('validations');
    expect(a.headers.get('x-suite-quota-limit')).toBe('10000');
    expect(a.headers.get('x-suite-quota-remaining')).toBe('9999');
    expect(a.headers.get('x-suite-quota-reset')).toBe(String(periodEnd(periodOf(Date.now())).getTime() / 1000));
    const issued = await call(t, '/auth/token', { admin: true, tenantKey: tenant.apiKey, body: { sub: 'm', scope: ['audit:read'] } });
    expect(issued.headers.get('x-suite-quota-remaining')).toBe('99');
    expect(await usage(tenant)).toEqual({ agents: 1, validations: 1, schedules: 0, benchmarkRuns: 0 });
  });

  it('counts a validation that finds the token invalid: the validation was performed', async () => {
    const tenant = await createTenant(t);
    const a = await validate(tenant, { token: 'not.a.token' });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ valid: false });
    expect(a.headers.get('x-suite-quota-remaining')).toBe('9999');
    expect((await usage(tenant)).validations).toBe(1);
  });

  it('takes no unit for a malformed body, nor for an issue the service refuses', async () => {
    const tenant = await createTenant(t);
    expect((await validate(tenant, { token: 5 })).status).toBe(400);
    expect((await validate(tenant, { nope: true })).status).toBe(400);
    const narrow = (await t.mint(['auth:token:create'])).token;
    const beyond = await call(t, '/auth/token', { token: narrow, tenantKey: tenant.apiKey, body: { sub: 'x', scope: ['audit:read'] } });
    expect({ status: beyond.status, code: beyond.body.error?.code }).toEqual({ status: 403, code: 'CAPABILITY_INSUFFICIENT' });
    expect(beyond.headers.get('x-suite-quota-remaining')).toBe('100');
    const badScope = await call(t, '/auth/token', { admin: true, tenantKey: tenant.apiKey, body: { sub: 'x', scope: ['noColon'] } });
    expect(badScope.status).toBe(400);
    expect(await usage(tenant)).toEqual({ agents: 0, validations: 0, schedules: 0, benchmarkRuns: 0 });
  });

  it('answers 402 QUOTA_EXCEEDED once the limit is reached, with the quota headers', async () => {
    const tenant = await tenantWithLeft('agents', 1);
    const last = await call(t, '/auth/token', { admin: true, tenantKey: tenant.apiKey, body: { sub: 'x', scope: ['audit:read'] } });
    expect(last.status).toBe(200);
    expect(last.headers.get('x-suite-quota-remaining')).toBe('0');
    const over = await call(t, '/auth/token', { admin: true, tenantKey: tenant.apiKey, body: { sub: 'x', scope: ['audit:read'] } });
    expect({ status: over.status, code: over.body.error?.code }).toEqual({ status: 402, code: 'QUOTA_EXCEEDED' });
    expect(over.headers.get('x-suite-quota-limit')).toBe('100');
    expect(over.headers.get('x-suite-quota-remaining')).toBe('0');
    expect(over.body.error.message).toMatch(/agents/);
    // The same call without the tenant key is unmetered (spec: limits apply only with a key).
    expect((await call(t, '/auth/token', { admin: true, body: { sub: 'x', scope: ['audit:read'] } })).status).toBe(200);
    const report = (await call(t, '/usage', { tenantKey: tenant.apiKey })).body;
    expect(report.usage.agents).toBe(100);
    expect(report.approachingLimit).toContainEqual({ metric: 'agents', limit: 100, used: 100, remaining: 0, percentUsed: 100 });
  });

  it('accepts exactly the quota when many more calls arrive at once', async () => {
    const quota = 15;
    const extra = 35;
    const tenant = await tenantWithLeft('validations', quota);
    const answers = await Promise.all(Array.from({ length: quota + extra }, () => validate(tenant)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(quota);
    expect(statuses.filter((s) => s === 402)).toHaveLength(extra);
    expect(answers.filter((a) => a.status === 402).every((a) => a.body.error.code === 'QUOTA_EXCEEDED')).toBe(true);
    expect((await usage(tenant)).validations).toBe(10_000);
  });
});

describe('isolation', () => {
  it('shows each tenant its own audit entries only, and everything to an unscoped operator', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const tokenA = (await call(t, '/auth/token', { admin: true, tenantKey: a.apiKey, body: { sub: 'reader-a', scope: ['audit:read'] } })).body.token;
    const tokenB = (await call(t, '/auth/token', { admin: true, tenantKey: b.apiKey, body: { sub: 'reader-b', scope: ['audit:read'] } })).body.token;
    await call(t, '/audit', { token: tokenA });
    await call(t, '/audit', { token: tokenB });
    const seenByA = (await call(t, '/audit?limit=500', { token: tokenA })).body;
    const seenByB = (await call(t, '/audit?limit=500', { token: tokenB })).body;
    expect(seenByA.total).toBeGreaterThan(0);
    expect(seenByA.entries.every((e: { tenantId?: string }) => e.tenantId === a.id)).toBe(true);
    expect(seenByB.entries.every((e: { tenantId?: string }) => e.tenantId === b.id)).toBe(true);
    expect(seenByA.entries.some((e: { subject: string }) => e.subject === 'reader-b')).toBe(false);
    // The same token without the key, and the admin key with A's key, still see only A.
    const adminAsA = (await call(t, '/audit?limit=500', { admin: true, tenantKey: a.apiKey })).body;
    expect(adminAsA.entries.every((e: { tenantId?: string }) => e.tenantId === a.id)).toBe(true);
    const operator = (await call(t, '/audit?limit=500', { admin: true })).body;
    expect(operator.entries.some((e: { tenantId?: string }) => e.tenantId === b.id)).toBe(true);
  });

  it('shows each tenant its own usage only: the key alone names the tenant', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    await validate(a);
    await validate(a);
    const ofA = (await call(t, '/usage', { tenantKey: a.apiKey })).body;
    const ofB = (await call(t, '/usage', { tenantKey: b.apiKey })).body;
    expect(ofA.tenant.id).toBe(a.id);
    expect(ofA.usage.validations).toBe(2);
    expect(ofB.tenant.id).toBe(b.id);
    expect(ofB.usage.validations).toBe(0);
    const tokenA = (await call(t, '/auth/token', { admin: true, tenantKey: a.apiKey, body: { sub: 'u', scope: ['*'] } })).body.token;
    expect((await call(t, '/usage', { token: tokenA, tenantKey: b.apiKey })).body.tenant.id).toBe(b.id);
    expect((await call(t, `/usage?tenant=${a.id}`, { tenantKey: b.apiKey })).status).toBe(400);
  });
});
