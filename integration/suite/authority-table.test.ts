import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRoutes, type Authority } from '../../edge-http/index.ts';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Every route of every listener × every credential case, against the real suite: the status and
 * code the spec's Authentication rules demand. Routes are listed from the running apps, so a route
 * added later is covered without touching this file.
 */

type Case = 'none' | 'bad signature' | 'expired' | 'revoked' | 'wrong scope' | 'admin key';
const CASES: Case[] = ['none', 'bad signature', 'expired', 'revoked', 'wrong scope', 'admin key'];
const PASSES = 'passes the capability check';
type Expected = { status: number; code: string } | typeof PASSES;

function expected(authority: Authority, c: Case): Expected {
  const refuse = (status: number, code: string) => ({ status, code });
  if (authority.kind === 'public') return PASSES;
  if (authority.kind === 'admin') {
    if (c === 'admin key') return PASSES;
    return c === 'none' ? refuse(401, 'TOKEN_MISSING') : refuse(403, 'CAPABILITY_INSUFFICIENT');
  }
  if (authority.kind === 'tenant') return refuse(401, 'TENANT_KEY_INVALID');
  switch (c) {
    case 'none':
      return refuse(401, 'TOKEN_MISSING');
    case 'bad signature':
      return refuse(401, 'TOKEN_INVALID');
    case 'expired':
      return refuse(401, 'TOKEN_EXPIRED');
    case 'revoked':
      return refuse(401, 'TOKEN_REVOKED');
    case 'wrong scope':
      return authority.kind === 'token' ? PASSES : refuse(403, 'CAPABILITY_INSUFFICIENT');
    case 'admin key':
      return authority.kind === 'scope' && !authority.admin ? refuse(401, 'TOKEN_MISSING') : PASSES;
  }
}

/**
 * Routes public to the capability check that hold their own authority (issue 32): `/mcp` checks the
 * bearer itself (RFC 9728's 401), and registration takes an optional initial access token, answering
 * in RFC 6750/7591 terms (`{error: "invalid_token"}`); a confidential client (the `{}` body's default)
 * needs one.
 */
const OWN_AUTHORITY: Record<string, (c: Case) => Expected> = {
  'POST /mcp': (c) => (c === 'admin key' ? { status: 401, code: 'TOKEN_MISSING' } : expected({ kind: 'token' }, c)),
  'POST /oauth/register': (c) => {
    if (c === 'admin key') return PASSES;
    return c === 'wrong scope' ? { status: 403, code: 'insufficient_scope' } : { status: 401, code: 'invalid_token' };
  },
};

let t: TestSuite;
const headers: Record<Case, Record<string, string>> = {} as Record<Case, Record<string, string>>;

beforeAll(async () => {
  t = await startTestSuite();
  const full = await t.mint(['*']);
  const revoked = await t.mint(['*']);
  const res = await fetch(t.url('token', '/auth/token/revoke'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
    body: JSON.stringify({ jti: revoked.jti }),
  });
  expect(await res.json()).toEqual({ revoked: true, jti: revoked.jti });
  const [h, p, s] = full.token.split('.') as [string, string, string];
  const flipped = Buffer.from(s, 'base64url');
  flipped[0]! ^= 1;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  headers.none = {};
  headers['bad signature'] = bearer(`${h}.${p}.${flipped.toString('base64url')}`);
  headers.expired = bearer(await t.expiredToken(['*']));
  headers.revoked = bearer(revoked.token);
  headers['wrong scope'] = bearer((await t.mint(['nothing:granted'])).token);
  headers['admin key'] = { 'x-suite-admin-key': t.adminKey };
}, machineTimeout(60_000));

afterAll(() => t?.stop());

describe('every route of every listener under every credential', () => {
  it('lists routes for all six listeners, each with a declared authority', () => {
    expect(t.suite.edges.map((e) => e.service).sort()).toEqual(['bench', 'connector', 'dashboard', 'scheduler', 'token', 'trust']);
    for (const edge of t.suite.edges) for (const r of listRoutes(edge.app)) expect(r.authority, `${r.method} ${r.url}`).toBeDefined();
  });

  it('answers each credential case with the status and code the spec requires', { timeout: machineTimeout(60_000) }, async () => {
    const rows: string[] = [];
    for (const edge of t.suite.edges) {
      for (const route of listRoutes(edge.app)) {
        if (route.method === 'HEAD' || route.method === 'OPTIONS') continue;
        const path = route.url.replace(/:([A-Za-z]+)/g, 'x');
        for (const c of CASES) {
          const res = await fetch(`http://127.0.0.1:${edge.port}${path}`, {
            method: route.method,
            headers: { ...headers[c], ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { 'content-type': 'application/json' }) },
            ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: '{}' }),
          });
          const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } | string };
          const own = OWN_AUTHORITY[`${route.method} ${route.url}`];
          const want = own !== undefined ? own(c) : expected(route.authority, c);
          const label = `${edge.service} ${route.method} ${route.url} with ${c}`;
          if (want === PASSES) {
            // Passing the check means the route itself answered: not refused (401, 403), and not a
            // failure of the route (5xx): a 500 for a credential that should pass is a bug too.
            expect(res.status < 500 && res.status !== 401 && res.status !== 403, `${label}: got ${res.status} ${JSON.stringify(body)}`).toBe(true);
          } else {
            expect({ status: res.status, code: typeof body.error === 'string' ? body.error : body.error?.code }, label).toEqual(want);
          }
          rows.push(`${label}: ${res.status}`);
        }
      }
    }
    console.log(`route x credential table: ${rows.length} cases checked`);
    expect(rows.length).toBeGreaterThanOrEqual(6 * 6 * 3);
  });
});

describe('GET /capabilities', () => {
  it('lists exactly the routes a token may call on that listener, and everything for the admin key', async () => {
    const narrow = await t.mint(['audit:read']);
    const res = await fetch(t.url('token', '/capabilities'), { headers: { authorization: `Bearer ${narrow.token}` } });
    const body = (await res.json()) as { sub: string; scope: string[]; exp: number; routes: Array<{ method: string; url: string }> };
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ sub: 'test-agent', scope: ['audit:read'], exp: narrow.exp });
    const names = body.routes.map((r) => `${r.method} ${r.url}`);
    expect(names).toEqual(expect.arrayContaining(['GET /audit', 'GET /audit/verify', 'GET /plans', 'GET /health', 'GET /capabilities']));
    expect(names).not.toContain('POST /auth/token');
    expect(names).not.toContain('POST /auth/token/revoke');
    const admin = await fetch(t.url('token', '/capabilities'), { headers: { 'x-suite-admin-key': t.adminKey } });
    const adminNames = ((await admin.json()) as { routes: Array<{ method: string; url: string }> }).routes.map((r) => `${r.method} ${r.url}`);
    expect(adminNames).toEqual(expect.arrayContaining(['POST /auth/token', 'POST /auth/token/revoke', 'GET /audit']));
  });
});
