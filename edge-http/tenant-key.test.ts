import { afterEach, describe, expect, it } from 'vitest';
import { MapTenants } from '../testing/edge-doubles.ts';
import { ADMIN_KEY, testApp, type TestApp } from '../testing/edge-app.ts';
import type { EdgeApp } from './types.ts';

/**
 * The capability check with X-Suite-Tenant-Key beside a credential (spec, Authentication rule 6),
 * on the edge alone: which principal results, what is audited, and that a metered route fails
 * closed when no metering is wired. (The real suite's behaviour: routes/tenant-key.test.ts.)
 */
function routes(app: EdgeApp): void {
  const whoami = async (request: { principal: unknown }) => request.principal;
  app.get('/audit', { config: { authority: { kind: 'scope', scope: 'audit:read', admin: true } } }, whoami);
  app.post('/identities', { config: { authority: { kind: 'admin' } } }, whoami);
  app.post('/validate', { config: { authority: { kind: 'scope', scope: 'audit:read', admin: true }, meter: 'validations' } }, whoami);
}

let t: TestApp;
afterEach(async () => {
  await t.app.close();
});

async function build(withTenants = true): Promise<TestApp> {
  const tenants = new MapTenants().add('tk-one', 'ten_1').add('tk-two', 'ten_2').add('tk-off', 'ten_3', { suspended: true });
  t = await testApp(routes, withTenants ? { tenants } : {});
  t.verifier
    .grant('plain', { sub: 'agent-p', scope: ['audit:read'], jti: 'j0' })
    .grant('of-one', { sub: 'agent-1', scope: ['audit:read'], jti: 'j1', tenantId: 'ten_1' });
  return t;
}

async function call(url: string, headers: Record<string, string>, method: 'GET' | 'POST' = 'GET') {
  const res = await t.app.inject({ method, url, headers });
  return { status: res.statusCode, body: res.json() };
}

describe('a tenant key beside a credential', () => {
  it('joins the tenant to a token that has none, and to the admin key, on scope and admin routes', async () => {
    await build();
    expect((await call('/audit', { authorization: 'Bearer plain', 'x-suite-tenant-key': 'tk-one' })).body).toEqual({
      kind: 'token',
      sub: 'agent-p',
      scope: ['audit:read'],
      jti: 'j0',
      tenantId: 'ten_1',
    });
    expect((await call('/audit', { 'x-suite-admin-key': ADMIN_KEY, 'x-suite-tenant-key': 'tk-two' })).body).toMatchObject({
      kind: 'admin',
      sub: 'admin',
      tenantId: 'ten_2',
    });
    expect((await call('/identities', { 'x-suite-admin-key': ADMIN_KEY, 'x-suite-tenant-key': 'tk-two' }, 'POST')).body).toMatchObject({
      kind: 'admin',
      tenantId: 'ten_2',
    });
  });

  it("accepts the key of the tenant the token was issued under, and refuses another tenant's with 403", async () => {
    await build();
    expect((await call('/audit', { authorization: 'Bearer of-one', 'x-suite-tenant-key': 'tk-one' })).status).toBe(200);
    const crossed = await call('/audit', { authorization: 'Bearer of-one', 'x-suite-tenant-key': 'tk-two' });
    expect(crossed).toEqual({
      status: 403,
      body: { error: { code: 'CAPABILITY_INSUFFICIENT', message: 'the token was issued for another tenant than the tenant key names' } },
    });
  });

  it('refuses an unknown or empty key with 401 and a suspended tenant with 403, auditing each denial', async () => {
    await build();
    const unknown = await call('/audit', { authorization: 'Bearer plain', 'x-suite-tenant-key': 'tk-nope' });
    const empty = await call('/audit', { authorization: 'Bearer plain', 'x-suite-tenant-key': '' });
    const off = await call('/audit', { authorization: 'Bearer plain', 'x-suite-tenant-key': 'tk-off' });
    expect([unknown, empty, off].map((a) => [a.status, a.body.error.code])).toEqual([
      [401, 'TENANT_KEY_INVALID'],
      [401, 'TENANT_KEY_INVALID'],
      [403, 'TENANT_SUSPENDED'],
    ]);
    expect(t.audit.decisions.map((d) => [d.subject, d.result, d.reason])).toEqual([
      ['agent-p', 'deny', 'TENANT_KEY_INVALID'],
      ['agent-p', 'deny', 'TENANT_KEY_INVALID'],
      ['agent-p', 'deny', 'TENANT_SUSPENDED'],
    ]);
  });

  it('audits the allow under the tenant', async () => {
    await build();
    await call('/audit', { authorization: 'Bearer plain', 'x-suite-tenant-key': 'tk-one' });
    expect(t.audit.decisions).toEqual([
      { subject: 'agent-p', action: 'audit:read', resource: 'token GET /audit', result: 'allow', reason: 'granted', tenantId: 'ten_1' },
    ]);
  });

  it('checks the credential first: a bad token with a good key is a token error', async () => {
    await build();
    expect((await call('/audit', { authorization: 'Bearer forged', 'x-suite-tenant-key': 'tk-one' })).body.error.code).toBe('TOKEN_INVALID');
    expect((await call('/audit', { 'x-suite-tenant-key': 'tk-one' })).body.error.code).toBe('TOKEN_MISSING');
  });

  it('refuses every tenant key when the deployment has no tenancy', async () => {
    await build(false);
    const a = await call('/audit', { authorization: 'Bearer plain', 'x-suite-tenant-key': 'tk-one' });
    expect([a.status, a.body.error.code]).toEqual([401, 'TENANT_KEY_INVALID']);
  });

  it('fails a metered call with a tenant key closed (503) when no metering is wired, and lets it through without a key', async () => {
    await build();
    const metered = await call('/validate', { authorization: 'Bearer plain', 'x-suite-tenant-key': 'tk-one' }, 'POST');
    expect([metered.status, metered.body.error.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect((await call('/validate', { authorization: 'Bearer plain' }, 'POST')).status).toBe(200);
  });
});
