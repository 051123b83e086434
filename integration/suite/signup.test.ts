import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { SIGNUPS_PER_HOUR } from '../../services/token/tenancy/index.ts';
import { call, claimsOf } from '../../testing/tenancy.ts';
import { SIGNUP_SCOPES } from '../../services/token/routes/signup.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

describe('public signup, enabled', () => {
  let t: TestSuite;
  beforeAll(async () => {
    t = await startTestSuite({ SUITE_SIGNUP_ENABLED: 'true' });
  }, machineTimeout(60_000));
  afterAll(() => t?.stop());

  it('serves a small HTML form that posts to /signup', async () => {
    const a = await call(t, '/signup');
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^text\/html/);
    expect(a.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(a.text).toMatch(/<form method="post" action="\/signup">/);
    expect(a.text).toMatch(/name="name"/);
    expect(a.text).toMatch(/name="email"/);
  });

  it('creates a free tenant from JSON, shows its key and a bootstrap token once, and both work', async () => {
    const a = await call(t, '/signup', { body: { name: 'Solo dev', email: 'dev@example.com' } });
    expect(a.status).toBe(201);
    expect(a.headers.get('cache-control')).toBe('no-store');
    expect(a.body).toMatchObject({ name: 'Solo dev', plan: 'free', status: 'active', email: 'dev@example.com', apiKey: expect.stringMatching(/^tk_/) });
    expect(a.body.bootstrapToken.scope).toEqual([...SIGNUP_SCOPES]);
    expect(claimsOf(a.body.bootstrapToken.token)).toMatchObject({ ten: a.body.id, sub: `owner@${a.body.id}` });
    const usage = await call(t, '/usage', { tenantKey: a.body.apiKey });
    expect(usage.body.tenant.id).toBe(a.body.id);
    // The bootstrap token mints narrower tokens for the tenant, never tenant management.
    const minted = await call(t, '/auth/token', {
      token: a.body.bootstrapToken.token,
      tenantKey: a.body.apiKey,
      body: { sub: 'agent-1', scope: ['audit:read'] },
    });
    expect(minted.status).toBe(200);
    expect(claimsOf(minted.body.token).ten).toBe(a.body.id);
    const manage = await call(t, '/auth/token', { token: a.body.bootstrapToken.token, body: { sub: 'x', scope: ['tenant:manage'] } });
    expect(manage.status).toBe(403);
  });

  it("takes the form's URL-encoded body and answers an HTML page with the key, escaped", async () => {
    const a = await call(t, '/signup', {
      body: 'name=%3Cb%3EForm+%26+Co%3C%2Fb%3E&email=',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      method: 'POST',
    });
    expect(a.status).toBe(201);
    expect(a.headers.get('content-type')).toMatch(/^text\/html/);
    expect(a.text).toContain('&#60;b&#62;Form &#38; Co&#60;/b&#62;');
    expect(a.text).not.toContain('<b>Form');
    expect(a.text).toMatch(/tk_[A-Za-z0-9_-]{43}/);
  });

  it('refuses a missing name and unknown fields with 400', async () => {
    for (const body of [{}, { name: '' }, { name: 'x', plan: 'enterprise' }, { name: 'x', email: 'nope' }]) {
      const a = await call(t, '/signup', { body });
      expect({ status: a.status, code: a.body.error?.code }, JSON.stringify(body)).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    }
  });

  it(`allows ${SIGNUPS_PER_HOUR} signups per address and hour, then 429 RATE_LIMITED with Retry-After`, async () => {
    // This address has signed up twice in the tests above.
    const answers = [];
    for (let i = 0; i < SIGNUPS_PER_HOUR; i++) answers.push(await call(t, '/signup', { body: { name: `n${i}` } }));
    const statuses = answers.map((a) => a.status);
    expect(statuses.slice(0, SIGNUPS_PER_HOUR - 2)).toEqual(Array(SIGNUPS_PER_HOUR - 2).fill(201));
    const limited = answers.at(-1)!;
    expect({ status: limited.status, code: limited.body.error?.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });
});

describe('public signup, disabled (the default)', () => {
  let t: TestSuite;
  beforeAll(async () => {
    t = await startTestSuite();
  }, machineTimeout(60_000));
  afterAll(() => t?.stop());

  it('answers 404 NOT_FOUND on both routes, and creates nothing', async () => {
    const before = (await call(t, '/admin/tenants', { admin: true })).body.total;
    for (const a of [await call(t, '/signup'), await call(t, '/signup', { body: { name: 'x' } })]) {
      expect({ status: a.status, code: a.body.error?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    }
    expect((await call(t, '/admin/tenants', { admin: true })).body.total).toBe(before);
  });
});
