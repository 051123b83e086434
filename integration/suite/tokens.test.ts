import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { eventually } from '../../testing/http-target.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

async function call(path: string, init: { method?: string; body?: unknown; token?: string; admin?: boolean } = {}) {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.admin) headers['x-suite-admin-key'] = t.adminKey;
  const res = await fetch(t.url('token', path), {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('POST /auth/token', () => {
  it('issues an HS256 at+jwt with kid, a uuid jti, and a 24h default lifetime', async () => {
    const { status, body } = await call('/auth/token', { admin: true, body: { sub: 'agent-1', scope: ['read:users'] } });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['exp', 'iat', 'jti', 'kid', 'token']);
    expect(body.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.exp - body.iat).toBe(86_400);
    expect(decodeProtectedHeader(body.token)).toEqual({ alg: 'HS256', typ: 'at+jwt', kid: body.kid });
    expect(decodeJwt(body.token)).toMatchObject({ sub: 'agent-1', scope: ['read:users'], jti: body.jti });
  });

  it('honours expiresIn in seconds, minutes, hours and days, and aud', async () => {
    for (const [expiresIn, seconds] of [
      ['30s', 30],
      ['15m', 900],
      ['8h', 28_800],
      ['7d', 604_800],
    ] as const) {
      const { body } = await call('/auth/token', { admin: true, body: { sub: 'a', scope: ['x:y'], expiresIn, aud: 'svc' } });
      expect(body.exp - body.iat).toBe(seconds);
      expect(decodeJwt(body.token).aud).toBe('svc');
    }
  });

  it('rejects malformed scopes, durations and bodies with INVALID_REQUEST naming the problem', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ sub: 'a', scope: ['users'] }, /scope entry "users"/],
      [{ sub: 'a', scope: ['a:b'], expiresIn: '10w' }, /expiresIn/],
      [{ sub: 'a', scope: [] }, /scope/],
      [{ scope: ['a:b'] }, /sub/],
      [{ sub: 'a', scope: ['a:b'], extra: 1 }, /extra/],
    ];
    for (const [body, message] of cases) {
      const r = await call('/auth/token', { admin: true, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
      expect(r.body.error.message).toMatch(message);
    }
  });

  it('lets a token issue only scopes it holds itself', async () => {
    const issuer = await t.mint(['auth:token:create', 'read:*']);
    const ok = await call('/auth/token', { token: issuer.token, body: { sub: 'child', scope: ['read:users', 'read:*'] } });
    expect(ok.status).toBe(200);
    const beyond = await call('/auth/token', { token: issuer.token, body: { sub: 'child', scope: ['read:users', 'write:users'] } });
    expect(beyond).toMatchObject({ status: 403, body: { error: { code: 'CAPABILITY_INSUFFICIENT' } } });
    const wider = await call('/auth/token', { token: issuer.token, body: { sub: 'child', scope: ['*'] } });
    expect(wider.status).toBe(403);
  });
});

describe('POST /auth/token/validate', () => {
  it('answers valid with sub, scope and exp, and echoes requiredScope with scopeSatisfied', async () => {
    const caller = await t.mint(['auth:token:validate']);
    const subject = await t.mint(['read:*']);
    const plain = await call('/auth/token/validate', { token: caller.token, body: { token: subject.token } });
    expect(plain).toEqual({ status: 200, body: { valid: true, sub: 'test-agent', scope: ['read:*'], exp: subject.exp } });
    const scoped = await call('/auth/token/validate', { token: caller.token, body: { token: subject.token, requiredScope: 'read:users' } });
    expect(scoped.body).toMatchObject({ valid: true, requiredScope: 'read:users', scopeSatisfied: true });
  });

  it('answers 400 valid:false with the code when the token fails or lacks the required scope', async () => {
    const caller = await t.mint(['auth:token:validate']);
    const subject = await t.mint(['read:*']);
    const deeper = await call('/auth/token/validate', { token: caller.token, body: { token: subject.token, requiredScope: 'read:users:delete' } });
    expect(deeper).toEqual({
      status: 400,
      body: { valid: false, error: 'CAPABILITY_INSUFFICIENT', requiredScope: 'read:users:delete', scopeSatisfied: false },
    });
    const expired = await call('/auth/token/validate', { token: caller.token, body: { token: await t.expiredToken(['read:*']) } });
    expect(expired).toEqual({ status: 400, body: { valid: false, error: 'TOKEN_EXPIRED' } });
    const garbage = await call('/auth/token/validate', { token: caller.token, body: { token: 'not.a.token' } });
    expect(garbage).toEqual({ status: 400, body: { valid: false, error: 'TOKEN_INVALID' } });
  });
});

describe('POST /auth/token/revoke', () => {
  it('revokes by token or by jti, idempotently, and the token is refused at once', async () => {
    const a = await t.mint(['audit:read']);
    expect((await call('/audit?limit=1', { token: a.token })).status).toBe(200);
    expect(await call('/auth/token/revoke', { admin: true, body: { token: a.token } })).toEqual({ status: 200, body: { revoked: true, jti: a.jti } });
    expect((await call('/audit?limit=1', { token: a.token })).body.error.code).toBe('TOKEN_REVOKED');
    expect((await call('/auth/token/revoke', { admin: true, body: { jti: a.jti } })).body).toEqual({ revoked: true, jti: a.jti });
    const b = await t.mint(['audit:read']);
    expect((await call('/auth/token/revoke', { admin: true, body: { jti: b.jti } })).body).toEqual({ revoked: true, jti: b.jti });
    expect((await call('/audit?limit=1', { token: b.token })).status).toBe(401);
  });

  it('reports revoked:false for an unknown jti or an already expired token, and refuses foreign tokens', async () => {
    expect((await call('/auth/token/revoke', { admin: true, body: { jti: 'no-such-jti' } })).body).toEqual({ revoked: false, jti: 'no-such-jti' });
    const expired = await call('/auth/token/revoke', { admin: true, body: { token: await t.expiredToken(['a:b']) } });
    expect(expired.body.revoked).toBe(false);
    const foreign = await call('/auth/token/revoke', { admin: true, body: { token: 'eyJhbGciOiJIUzI1NiJ9.e30.x' } });
    expect(foreign).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
    expect((await call('/auth/token/revoke', { admin: true, body: {} })).status).toBe(400);
  });
});

describe('the audit trail', () => {
  it('records issue, validate, revoke and capability decisions, newest first, with filters and totals', async () => {
    const reader = await t.mint(['audit:read', 'auth:token:validate'], { sub: 'auditor-7' });
    await call('/auth/token/validate', { token: reader.token, body: { token: reader.token } });
    await call('/auth/token/revoke', { admin: true, body: { jti: 'nothing' } });
    // Decisions are recorded asynchronously: read until the three are in (or the wait gives up).
    const wanted = ['auth:token:create', 'auth:token:validate', 'auth:token:revoke'];
    const all = await eventually(
      async () => {
        const page = await call('/audit?limit=500', { token: reader.token });
        const seen = page.status === 200 ? page.body.entries.map((e: any) => e.action) : [];
        return wanted.every((a) => seen.includes(a)) ? page : undefined;
      },
      `audit entries for ${wanted.join(', ')}`,
    );
    expect(all.status).toBe(200);
    const actions = all.body.entries.map((e: any) => e.action);
    expect(actions).toEqual(expect.arrayContaining(wanted));
    const seqs = all.body.entries.map((e: any) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x: number, y: number) => y - x));
    for (const e of all.body.entries)
      expect(Object.keys(e)).toEqual(expect.arrayContaining(['id', 'timestamp', 'subject', 'action', 'resource', 'result', 'reason', 'prevHash', 'hash']));
    const mine = await call('/audit?subject=auditor-7&limit=500', { token: reader.token });
    expect(mine.body.entries.length).toBeGreaterThan(0);
    expect(mine.body.entries.every((e: any) => e.subject === 'auditor-7')).toBe(true);
    const denies = await call('/audit?result=deny&limit=500', { token: reader.token });
    expect(denies.body.entries.every((e: any) => e.result === 'deny')).toBe(true);
    // Every audit read is itself audited, so pages are compared within a closed time window.
    const to = encodeURIComponent(new Date(Date.parse(all.body.entries[0].timestamp) - 1).toISOString());
    const window = await call(`/audit?limit=500&to=${to}`, { token: reader.token });
    const page = await call(`/audit?limit=2&offset=1&to=${to}`, { token: reader.token });
    expect(page.body.entries.map((e: any) => e.seq)).toEqual(window.body.entries.slice(1, 3).map((e: any) => e.seq));
    expect(page.body.total).toBe(window.body.total);
    const future = await call(`/audit?from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`, { token: reader.token });
    expect(future.body).toEqual({ entries: [], total: 0 });
    expect((await call('/audit?limit=501', { token: reader.token })).status).toBe(400);
    expect((await call('/audit?result=maybe', { token: reader.token })).status).toBe(400);
  });

  it('verifies the chain, and reports the first edited entry', async () => {
    const reader = await t.mint(['audit:read']);
    const ok = await call('/audit/verify', { token: reader.token });
    expect(ok.body).toMatchObject({ valid: true });
    expect(ok.body.checked).toBeGreaterThan(3);
    const { sql } = await import('slonik');
    await t.suite.storage!.pool.query(sql.unsafe`update audit_entries set reason = 'edited' where seq = 3`);
    const broken = await call('/audit/verify', { token: reader.token });
    expect(broken.body).toMatchObject({ valid: false, brokenAt: 3, reason: 'content does not match its hash' });
  });
});
