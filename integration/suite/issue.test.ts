import { generateKeyPairSync, sign } from 'node:crypto';
import { decodeJwt } from 'jose';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { mapIssueRequest } from '../../services/token/routes/issue.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

interface CallInit {
  body?: unknown;
  token?: string;
  admin?: boolean;
}

async function call(path: string, init: CallInit = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.admin) headers['x-suite-admin-key'] = t.adminKey;
  const res = await fetch(t.url('token', path), {
    method: init.body === undefined ? 'GET' : 'POST',
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

/** A dashboard operator's token: may issue, and holds what it hands on. */
const operator = (scope: string[]) => t.mint(['auth:token:create', ...scope], { sub: 'dashboard-operator' });

async function issuedCount(sub: string): Promise<number> {
  return Number(await t.suite.storage!.pool.oneFirst(sql.unsafe`select count(*) from issued_tokens where sub = ${sub}`));
}

describe('POST /issue', () => {
  it('maps actor, action, resource and a duration onto a token for that one scope, and answers the mapping', async () => {
    const op = await operator(['crm:read']);
    const r = await call('/issue', { token: op.token, body: { actor: 'agent-7', action: 'read', resource: 'crm', expires: '15m' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['exp', 'expiresIn', 'iat', 'jti', 'kid', 'scope', 'sub', 'token']);
    expect(r.body).toMatchObject({ sub: 'agent-7', scope: ['crm:read'], expiresIn: '15m' });
    expect(r.body.exp - r.body.iat).toBe(900);
    expect(decodeJwt(r.body.token)).toMatchObject({ sub: 'agent-7', scope: ['crm:read'], jti: r.body.jti, exp: r.body.exp });
  });

  it('gives a token that passes for its scope and no other', async () => {
    const op = await operator(['audit:read']);
    const r = await call('/issue', { token: op.token, body: { actor: 'auditor-1', action: 'read', resource: 'audit', expires: '1h' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await call('/audit?limit=1', { token: r.body.token })).status).toBe(200);
    const other = await call('/executions-verify-chain', { token: r.body.token });
    expect(other).toMatchObject({ status: 403, body: { error: { code: 'CAPABILITY_INSUFFICIENT' } } });
    const yes = await call('/auth/token/validate', { admin: true, body: { token: r.body.token, requiredScope: 'audit:read' } });
    expect(yes.body).toMatchObject({ valid: true, sub: 'auditor-1', scopeSatisfied: true });
    const no = await call('/auth/token/validate', { admin: true, body: { token: r.body.token, requiredScope: 'audit:write' } });
    expect(no).toMatchObject({ status: 400, body: { valid: false, error: 'CAPABILITY_INSUFFICIENT' } });
  });

  it('turns a future date-time into the seconds left, so the token never outlives it', async () => {
    const op = await operator(['crm:read']);
    for (const offset of ['Z', '+02:00']) {
      const target = Math.floor(Date.now() / 1000) + 7200;
      const date = offset === 'Z' ? new Date(target * 1000).toISOString() : isoWithOffset(target, offset);
      const r = await call('/issue', { token: op.token, body: { actor: 'agent-8', action: 'read', resource: 'crm', expires: date } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.expiresIn).toMatch(/^(2h|7199s|7198s)$/);
      expect(r.body.exp).toBeLessThanOrEqual(target);
      expect(r.body.exp).toBeGreaterThanOrEqual(target - 2);
    }
  });

  it('passes the audience on as aud', async () => {
    const op = await operator(['crm:read']);
    const r = await call('/issue', { token: op.token, body: { actor: 'agent-9', action: 'read', resource: 'crm', expires: '30s', audience: 'crm-gateway' } });
    expect(r.body).toMatchObject({ aud: 'crm-gateway', expiresIn: '30s' });
    expect(decodeJwt(r.body.token).aud).toBe('crm-gateway');
  });

  it('refuses a scope the calling token does not hold, with 403, and issues nothing', async () => {
    const op = await operator(['crm:read']);
    const before = await issuedCount('agent-greedy');
    const r = await call('/issue', { token: op.token, body: { actor: 'agent-greedy', action: 'write', resource: 'crm', expires: '15m' } });
    expect(r).toMatchObject({ status: 403, body: { error: { code: 'CAPABILITY_INSUFFICIENT' } } });
    expect(r.body.error.message).toContain('crm:write');
    expect(await issuedCount('agent-greedy')).toBe(before);
    const wild = await call('/issue', { token: op.token, body: { actor: 'agent-greedy', action: '*', resource: 'crm', expires: '15m' } });
    expect(wild.status).toBe(403);
  });

  it('takes a bearer token only: the admin key is not enough, a token without auth:token:create is refused', async () => {
    const admin = await call('/issue', { admin: true, body: { actor: 'a', action: 'read', resource: 'crm', expires: '15m' } });
    expect(admin).toMatchObject({ status: 401, body: { error: { code: 'TOKEN_MISSING' } } });
    const reader = await t.mint(['crm:read']);
    const r = await call('/issue', { token: reader.token, body: { actor: 'a', action: 'read', resource: 'crm', expires: '15m' } });
    expect(r).toMatchObject({ status: 403, body: { error: { code: 'CAPABILITY_INSUFFICIENT' } } });
  });

  it('refuses bad input with 400 INVALID_REQUEST naming the field, and issues nothing', async () => {
    const op = await operator(['*']);
    const ok = { actor: 'agent-bad', action: 'read', resource: 'crm', expires: '15m' };
    const past = new Date(Date.now() - 60_000).toISOString();
    const tooFar = new Date(Date.now() + 400 * 86_400_000).toISOString();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...ok, expires: '10w' }, /body\/expires must be a duration/],
      [{ ...ok, expires: 'tomorrow' }, /body\/expires/],
      [{ ...ok, expires: '0s' }, /body\/expires/],
      [{ ...ok, expires: past }, /body\/expires is in the past/],
      [{ ...ok, expires: tooFar }, /body\/expires is more than 365d ahead/],
      [{ ...ok, expires: '2031-02-30T10:00:00Z' }, /body\/expires is not a valid date-time/],
      [{ ...ok, expires: '2031-01-01T10:00:00' }, /body\/expires/],
      [{ ...ok, action: 'read:all' }, /body\/action must be one scope segment/],
      [{ ...ok, action: '' }, /action/],
      [{ ...ok, resource: 'crm contacts' }, /body\/resource/],
      [{ ...ok, resource: 'crm::x' }, /body\/resource/],
      [{ ...ok, resource: 'r'.repeat(190), action: 'a'.repeat(20) }, /longer than 200/],
      [{ ...ok, scope: ['crm:read'] }, /scope/],
      [{ action: 'read', resource: 'crm', expires: '15m' }, /actor/],
      [{ actor: 'agent-bad', action: 'read', resource: 'crm' }, /expires/],
    ];
    for (const [body, message] of cases) {
      const r = await call('/issue', { token: op.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
      expect(r.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect(await issuedCount('agent-bad')).toBe(0);
  });

  it('passes proof through: an enrolled actor needs it, and gets a proven token with it', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const enrolled = await call('/identities', { admin: true, body: { subject: 'agent-proven', kind: 'agent', publicKeyPem } });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
    const op = await operator(['crm:read']);
    const body = { actor: 'agent-proven', action: 'read', resource: 'crm', expires: '15m' };
    const without = await call('/issue', { token: op.token, body });
    expect(without).toMatchObject({ status: 401, body: { error: { code: 'PROOF_REQUIRED' } } });
    const { nonce } = (await call('/identities/agent-proven/challenge', { body: {} })).body as { nonce: string };
    const signature = sign(null, Buffer.from(nonce, 'utf8'), privateKey).toString('base64');
    const proven = await call('/issue', { token: op.token, body: { ...body, proof: { nonce, signature } } });
    expect(proven.status, JSON.stringify(proven.body)).toBe(200);
    expect(decodeJwt(proven.body.token)).toMatchObject({ sub: 'agent-proven', scope: ['crm:read'], prf: true });
  });
});

describe('mapIssueRequest', () => {
  const now = Date.UTC(2030, 0, 1, 0, 0, 0, 250);
  const map = (expires: string) => mapIssueRequest({ actor: 'a', action: 'read', resource: 'crm:contacts', expires }, now);

  it('maps a nested resource and writes a date as the largest exact unit, rounded down to the second', () => {
    expect(map('2030-01-01T01:00:00.250Z')).toEqual({ ok: true, value: { sub: 'a', scope: ['crm:contacts:read'], expiresIn: '1h' } });
    expect(map('2030-01-01T01:00:00Z')).toMatchObject({ value: { expiresIn: '3599s' } });
    expect(map('2030-01-08T00:00:00.250Z')).toMatchObject({ value: { expiresIn: '7d' } });
    expect(map('2030-01-01T02:00:00.250+01:00')).toMatchObject({ value: { expiresIn: '1h' } });
  });

  it("writes lifetimes beyond the duration format's seven digits in whole minutes, rounded down", () => {
    // 200 days, 1 minute and 17 seconds: 17,280,077 s has eight digits.
    const r = map(new Date(now + (200 * 86_400 + 77) * 1000).toISOString());
    expect(r).toMatchObject({ ok: true, value: { expiresIn: `${200 * 1440 + 1}m` } });
  });

  it('refuses a date that is now, accepts one a second away, and refuses a leap second', () => {
    expect(map('2030-01-01T00:00:00.250Z')).toMatchObject({ ok: false, message: expect.stringContaining('in the past') });
    expect(map('2030-01-01T00:00:01.250Z')).toMatchObject({ ok: true, value: { expiresIn: '1s' } });
    expect(map('2030-12-31T23:59:60Z')).toMatchObject({ ok: false, message: 'body/expires is not a valid date-time' });
  });
});

/** `seconds` (Unix) as an RFC 3339 date-time in another zone, e.g. `+02:00`. */
function isoWithOffset(seconds: number, offset: string): string {
  const sign = offset.startsWith('-') ? -1 : 1;
  const [h, m] = offset.slice(1).split(':').map(Number) as [number, number];
  const local = new Date((seconds + sign * (h * 3600 + m * 60)) * 1000).toISOString().slice(0, 19);
  return `${local}${offset}`;
}
