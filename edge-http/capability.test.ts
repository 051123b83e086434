import { afterEach, describe, expect, it } from 'vitest';
import { MapTenants } from '../testing/edge-doubles.ts';
import { ADMIN_KEY, testApp, type TestApp } from '../testing/edge-app.ts';
import type { EdgeApp } from './types.ts';

function routes(app: EdgeApp): void {
  const whoami = async (request: { principal: unknown }) => request.principal;
  app.get('/audit', { config: { authority: { kind: 'scope', scope: 'audit:read', admin: true } } }, whoami);
  app.get('/executions/:id', { config: { authority: { kind: 'scope', scope: 'execution:read' } } }, whoami);
  app.post('/identities', { config: { authority: { kind: 'admin' } } }, whoami);
  app.get('/usage', { config: { authority: { kind: 'tenant' } } }, whoami);
  app.get('/plans', { config: { authority: { kind: 'public' } } }, whoami);
}

let t: TestApp;
afterEach(async () => {
  await t.app.close();
});

async function build(withTenants = false): Promise<TestApp> {
  const tenants = new MapTenants().add('tk-active', 'ten_1').add('tk-suspended', 'ten_2', { suspended: true });
  t = await testApp(routes, withTenants ? { tenants } : {});
  t.verifier
    .grant('reader', { sub: 'agent-7', scope: ['execution:*', 'audit:read'], jti: 'j1', tenantId: 'ten_1' })
    .grant('writer', { sub: 'agent-8', scope: ['execution:record'] })
    .refuse('old', { code: 'TOKEN_EXPIRED', message: 'token expired at 2024-01-01T00:00:00Z' })
    .refuse('revoked', { code: 'TOKEN_REVOKED', message: 'token revoked' })
    .refuse('elsewhere', { code: 'TOKEN_AUDIENCE_MISMATCH', message: 'audience mismatch' });
  return t;
}

async function call(url: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET') {
  const res = await t.app.inject({ method, url, headers });
  return { status: res.statusCode, body: res.json() };
}

describe('capability check', () => {
  it('lets a public route through with an anonymous principal and audits nothing', async () => {
    await build();
    expect(await call('/plans')).toEqual({ status: 200, body: { kind: 'anonymous', scope: [] } });
    expect(t.audit.decisions).toEqual([]);
  });

  it('answers 401 TOKEN_MISSING without Authorization and without admin key', async () => {
    await build();
    const { status, body } = await call('/executions/e1');
    expect(status).toBe(401);
    expect(body.error.code).toBe('TOKEN_MISSING');
  });

  it('grants a token whose scopes match the route segment by segment, and sets the principal', async () => {
    await build();
    const { status, body } = await call('/executions/e1', { authorization: 'Bearer reader' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ kind: 'token', sub: 'agent-7', jti: 'j1' });
  });

  it('accepts the Bearer scheme in any case', async () => {
    await build();
    expect((await call('/executions/e1', { authorization: 'bearer reader' })).status).toBe(200);
  });

  it('answers 401 TOKEN_INVALID for an Authorization header that is not a bearer token', async () => {
    await build();
    const { status, body } = await call('/executions/e1', { authorization: 'Basic cmVhZGVyOng=' });
    expect(status).toBe(401);
    expect(body.error.code).toBe('TOKEN_INVALID');
  });

  it('answers 403 CAPABILITY_INSUFFICIENT for a valid token with the wrong scope', async () => {
    await build();
    const { status, body } = await call('/executions/e1', { authorization: 'Bearer writer' });
    expect(status).toBe(403);
    expect(body).toEqual({ error: { code: 'CAPABILITY_INSUFFICIENT', message: 'token does not grant execution:read' } });
  });

  it('passes the verifier error code through with its status', async () => {
    await build();
    for (const [token, code] of [
      ['old', 'TOKEN_EXPIRED'],
      ['revoked', 'TOKEN_REVOKED'],
      ['elsewhere', 'TOKEN_AUDIENCE_MISMATCH'],
      ['forged', 'TOKEN_INVALID'],
    ]) {
      const { status, body } = await call('/executions/e1', { authorization: `Bearer ${token}` });
      expect(status, token).toBe(401);
      expect(body.error.code, token).toBe(code);
    }
    expect((await call('/executions/e1', { authorization: 'Bearer old' })).body.error.message).toBe('token expired at 2024-01-01T00:00:00Z');
  });

  it('fails closed with 503 REVOCATION_UNAVAILABLE while the revocation view is not trusted', async () => {
    await build();
    t.verifier.setRevocationTrusted(false);
    const { status, body } = await call('/executions/e1', { authorization: 'Bearer reader' });
    expect(status).toBe(503);
    expect(body.error.code).toBe('REVOCATION_UNAVAILABLE');
    t.verifier.setRevocationTrusted(true);
    expect((await call('/executions/e1', { authorization: 'Bearer reader' })).status).toBe(200);
  });

  it('accepts a valid admin key on a scope route that allows it, as admin with every scope', async () => {
    await build();
    const { status, body } = await call('/audit', { 'x-suite-admin-key': ADMIN_KEY });
    expect(status).toBe(200);
    expect(body).toEqual({ kind: 'admin', sub: 'admin', scope: ['*'] });
  });

  it('answers 401 TOKEN_INVALID for a wrong admin key, even beside a valid token', async () => {
    await build();
    const { status, body } = await call('/audit', { 'x-suite-admin-key': 'guess', authorization: 'Bearer reader' });
    expect(status).toBe(401);
    expect(body.error.code).toBe('TOKEN_INVALID');
  });

  it('ignores the admin key on a scope route that does not accept it', async () => {
    await build();
    expect((await call('/executions/e1', { 'x-suite-admin-key': ADMIN_KEY })).body.error.code).toBe('TOKEN_MISSING');
  });

  it('lets the admin key alone through an admin route', async () => {
    await build();
    expect((await call('/identities', { 'x-suite-admin-key': ADMIN_KEY }, 'POST')).status).toBe(200);
  });

  it('answers an admin route: 401 TOKEN_MISSING without key, 403 with a bearer token, 401 for a wrong key', async () => {
    await build();
    expect(await call('/identities', {}, 'POST')).toMatchObject({ status: 401, body: { error: { code: 'TOKEN_MISSING' } } });
    expect(await call('/identities', { authorization: 'Bearer reader' }, 'POST')).toMatchObject({
      status: 403,
      body: { error: { code: 'CAPABILITY_INSUFFICIENT' } },
    });
    expect(await call('/identities', { 'x-suite-admin-key': 'nope' }, 'POST')).toMatchObject({
      status: 401,
      body: { error: { code: 'TOKEN_INVALID' } },
    });
  });

  it('answers a tenant route 401 TENANT_KEY_INVALID when no tenant resolver is configured', async () => {
    await build();
    expect(await call('/usage', { 'x-suite-tenant-key': 'tk-active' })).toMatchObject({
      status: 401,
      body: { error: { code: 'TENANT_KEY_INVALID' } },
    });
  });

  it('resolves the tenant key on a tenant route: missing 401, unknown 401, suspended 403, active 200', async () => {
    await build(true);
    expect((await call('/usage')).status).toBe(401);
    expect((await call('/usage', { 'x-suite-tenant-key': 'tk-unknown' })).body.error.code).toBe('TENANT_KEY_INVALID');
    expect(await call('/usage', { 'x-suite-tenant-key': 'tk-suspended' })).toMatchObject({
      status: 403,
      body: { error: { code: 'TENANT_SUSPENDED' } },
    });
    expect(await call('/usage', { 'x-suite-tenant-key': 'tk-active' })).toEqual({
      status: 200,
      body: { kind: 'tenant', scope: [], tenantId: 'ten_1' },
    });
  });
});

describe('audit of capability decisions', () => {
  it('records an allow with subject, scope, route pattern and tenant', async () => {
    await build();
    await call('/executions/e1', { authorization: 'Bearer reader' });
    expect(t.audit.decisions).toEqual([
      { subject: 'agent-7', action: 'execution:read', resource: 'token GET /executions/:id', result: 'allow', reason: 'granted', tenantId: 'ten_1' },
    ]);
  });

  it('records each denial with its code as the reason', async () => {
    await build();
    await call('/executions/e1');
    await call('/executions/e1', { authorization: 'Bearer writer' });
    await call('/executions/e1', { authorization: 'Bearer old' });
    await call('/identities', { 'x-suite-admin-key': 'nope' }, 'POST');
    t.verifier.setRevocationTrusted(false);
    await call('/executions/e1', { authorization: 'Bearer reader' });
    expect(t.audit.decisions.map((d) => [d.subject, d.action, d.resource, d.result, d.reason])).toEqual([
      ['anonymous', 'execution:read', 'token GET /executions/:id', 'deny', 'TOKEN_MISSING'],
      ['agent-8', 'execution:read', 'token GET /executions/:id', 'deny', 'CAPABILITY_INSUFFICIENT'],
      ['anonymous', 'execution:read', 'token GET /executions/:id', 'deny', 'TOKEN_EXPIRED'],
      ['anonymous', 'admin', 'token POST /identities', 'deny', 'TOKEN_INVALID'],
      ['anonymous', 'execution:read', 'token GET /executions/:id', 'deny', 'REVOCATION_UNAVAILABLE'],
    ]);
  });

  it('records admin-key and tenant-key grants', async () => {
    await build(true);
    await call('/audit', { 'x-suite-admin-key': ADMIN_KEY });
    await call('/usage', { 'x-suite-tenant-key': 'tk-active' });
    expect(t.audit.decisions).toEqual([
      { subject: 'admin', action: 'audit:read', resource: 'token GET /audit', result: 'allow', reason: 'granted', tenantId: undefined },
      { subject: 'tenant', action: 'tenant', resource: 'token GET /usage', result: 'allow', reason: 'granted', tenantId: 'ten_1' },
    ]);
  });

  it('audits a HEAD request once, under its own method', async () => {
    await build();
    const res = await t.app.inject({ method: 'HEAD', url: '/executions/e1', headers: { authorization: 'Bearer reader' } });
    expect(res.statusCode).toBe(200);
    expect(t.audit.decisions.map((d) => d.resource)).toEqual(['token HEAD /executions/:id']);
  });

  it('runs the check before the body is read, so an unauthenticated malformed body is a 401', async () => {
    t = await testApp((app) => {
      app.post('/executions', { config: { authority: { kind: 'scope', scope: 'execution:record' } } }, async () => ({}));
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/executions',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(401);
  });
});
