import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { CHALLENGE_RATE_LIMIT } from '../../services/token/routes/identities.ts';
import { caller, newAgentKey, provenRequest, type AgentKey } from '../../testing/identities.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let t: TestSuite;
let call: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await startTestSuite();
  call = caller(t);
}, machineTimeout(60_000));
afterAll(() => t?.stop());

let n = 0;
async function enrolled(kind = 'agent'): Promise<{ subject: string; key: AgentKey }> {
  const subject = `agent-${++n}`;
  const key = newAgentKey();
  const r = await call('/identities', { admin: true, body: { subject, kind, publicKeyPem: key.publicKeyPem } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { subject, key };
}

const pemOf = (type: 'rsa' | 'ec' | 'ed25519', part: 'public' | 'private') => {
  const pair =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 1024 })
      : type === 'ec'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('ed25519');
  return part === 'public'
    ? (pair.publicKey.export({ type: 'spki', format: 'pem' }) as string)
    : (pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
};

describe('POST /identities (enrolment)', () => {
  it('enrols an Ed25519 public key and answers 201 with the active identity', async () => {
    const key = newAgentKey();
    const r = await call('/identities', { admin: true, body: { subject: 'billing-agent', kind: 'agent', publicKeyPem: key.publicKeyPem } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ subject: 'billing-agent', kind: 'agent', publicKeyPem: key.publicKeyPem, status: 'active', enrolledAt: expect.any(String) });
    expect(Math.abs(Date.parse(r.body.enrolledAt) - Date.now())).toBeLessThan(60_000);
    for (const kind of ['human', 'service']) await enrolled(kind);
  });

  it('refuses private keys, other key types and garbage with 400 naming publicKeyPem, and enrols nothing', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['private-ed25519', pemOf('ed25519', 'private'), /private key/],
      ['rsa', pemOf('rsa', 'public'), /rsa key; an Ed25519 key is required/],
      ['ec', pemOf('ec', 'public'), /ec key; an Ed25519 key is required/],
      ['private-rsa', pemOf('rsa', 'private'), /private key/],
      ['garbage', 'not a key at all', /one PEM block/],
      ['broken-pem', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----', /not a readable PEM public key/],
      ['two-blocks', `${pemOf('ed25519', 'public')}${pemOf('ed25519', 'public')}`, /one PEM block/],
    ];
    for (const [subject, publicKeyPem, message] of cases) {
      const r = await call('/identities', { admin: true, body: { subject, kind: 'agent', publicKeyPem } });
      expect({ status: r.status, code: r.body.error.code }, subject).toEqual({ status: 400, code: 'INVALID_REQUEST' });
      expect(r.body.error.message, subject).toMatch(/publicKeyPem/);
      expect(r.body.error.message, subject).toMatch(message);
      expect((await call(`/identities/${subject}`, { admin: true })).status, subject).toBe(404);
    }
  });

  it('refuses a malformed body with 400 naming the field', async () => {
    const key = newAgentKey().publicKeyPem;
    const cases: Array<[unknown, RegExp]> = [
      [{ kind: 'agent', publicKeyPem: key }, /subject/],
      [{ subject: 'x', kind: 'robot', publicKeyPem: key }, /kind/],
      [{ subject: 'x', kind: 'agent' }, /publicKeyPem/],
      [{ subject: 'bad\nname', kind: 'agent', publicKeyPem: key }, /subject/],
      [{ subject: 'x', kind: 'agent', publicKeyPem: key, extra: 1 }, /extra/],
    ];
    for (const [body, message] of cases) {
      const r = await call('/identities', { admin: true, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
  });

  it('answers 409 CONFLICT to a second enrolment of the subject and keeps the first key', async () => {
    const { subject, key } = await enrolled();
    const again = await call('/identities', { admin: true, body: { subject, kind: 'agent', publicKeyPem: newAgentKey().publicKeyPem } });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } });
    expect((await call(`/identities/${subject}`, { admin: true })).body.publicKeyPem).toBe(key.publicKeyPem);
  });

  it('requires the admin key: a bearer token with every scope is refused', async () => {
    const all = await t.mint(['*']);
    const r = await call('/identities', { token: all.token, body: { subject: 'x', kind: 'agent', publicKeyPem: newAgentKey().publicKeyPem } });
    expect(r).toMatchObject({ status: 403, body: { error: { code: 'CAPABILITY_INSUFFICIENT' } } });
  });
});

describe('GET /identities/{subject}', () => {
  it('answers the identity to identity:read or the admin key, 403 to other scopes, 404 for an unknown subject', async () => {
    const { subject, key } = await enrolled();
    const reader = await t.mint(['identity:read']);
    expect(await call(`/identities/${subject}`, { token: reader.token })).toMatchObject({
      status: 200,
      body: { subject, status: 'active', publicKeyPem: key.publicKeyPem },
    });
    expect((await call(`/identities/${subject}`, { token: (await t.mint(['audit:read'])).token })).status).toBe(403);
    expect(await call('/identities/nobody-here', { admin: true })).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });
});

describe('POST /identities/{subject}/challenge', () => {
  it('answers without a credential a fresh 32-byte base64url nonce that expires in 120 s', async () => {
    const { subject } = await enrolled();
    const a = await call(`/identities/${subject}/challenge`, { method: 'POST' });
    const b = await call(`/identities/${subject}/challenge`, { method: 'POST', body: {} });
    expect(a.status).toBe(200);
    expect(Object.keys(a.body).sort()).toEqual(['expiresAt', 'nonce']);
    expect(a.body.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.body.nonce, 'base64url')).toHaveLength(32);
    expect(b.body.nonce).not.toBe(a.body.nonce);
    const ttl = Date.parse(a.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(110_000);
    expect(ttl).toBeLessThanOrEqual(121_000);
  });

  it('answers 404 for a subject that is not enrolled, and 400 to a body', async () => {
    expect(await call('/identities/never-enrolled/challenge', { method: 'POST' })).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    const { subject } = await enrolled();
    expect((await call(`/identities/${subject}/challenge`, { body: { subject: 'other' } })).status).toBe(400);
  });
});

describe('POST /auth/token for an enrolled identity', () => {
  it('issues a token with prf:true on valid proof, and a record made with it attests proven', async () => {
    const { subject, key } = await enrolled();
    const r = await call('/auth/token', { admin: true, body: await provenRequest(call, subject, key, ['execution:record', 'execution:read']) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(decodeJwt(r.body.token)).toMatchObject({ sub: subject, prf: true });
    expect(await t.suite.storage!.pool.oneFirst(sql.unsafe`select proven from issued_tokens where jti = ${r.body.jti}`)).toBe(true);
    const recorded = await call('/executions', {
      token: r.body.token,
      body: { subject, scope: ['crm:write'], module: 'crm', action: 'update', input: { a: 1 }, outcome: 'success' },
    });
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(201);
    expect(recorded.body.attested).toMatchObject({ sub: subject, proven: true, jti: r.body.jti });
    const read = await call(`/executions/${recorded.body.id}`, { token: r.body.token });
    expect(read.body.attested.proven).toBe(true);
  });

  it('leaves tokens of subjects that are not enrolled unproven, and refuses proof for them with 400', async () => {
    const plain = await t.mint(['execution:record'], { sub: 'not-enrolled' });
    expect(decodeJwt(plain.token).prf).toBeUndefined();
    const recorded = await call('/executions', {
      token: plain.token,
      body: { subject: 'not-enrolled', module: 'm', action: 'a', input: 1, outcome: 'success' },
    });
    expect(recorded.body.attested.proven).toBe(false);
    const withProof = await call('/auth/token', { admin: true, body: { sub: 'not-enrolled', scope: ['a:b'], proof: { nonce: 'x', signature: 'y' } } });
    expect(withProof.status).toBe(400);
    expect(withProof.body.error.message).toMatch(/proof/);
  });

  it('answers 401 PROOF_REQUIRED to every kind of missing or bad proof, the admin key included', async () => {
    const { subject, key } = await enrolled();
    const other = await enrolled();
    const nonce = async (s = subject) => (await call(`/identities/${s}/challenge`, { method: 'POST' })).body.nonce as string;
    const expired = await nonce();
    await t.suite.storage!.pool.query(sql.unsafe`update identity_nonces set expires_at = now() - interval '1 second' where nonce = ${expired}`);
    const used = await nonce();
    expect((await call('/auth/token', { admin: true, body: { sub: subject, scope: ['a:b'], proof: { nonce: used, signature: key.sign(used) } } })).status).toBe(
      200,
    );
    const mine = await nonce();
    const foreign = await nonce(other.subject);
    const issuer = await t.mint(['auth:token:create', 'a:*']);
    const cases: Array<[string, Record<string, unknown>, { token?: string; admin?: boolean }]> = [
      ['no proof, admin key', {}, { admin: true }],
      ['no proof, bearer token', {}, { token: issuer.token }],
      ['unknown nonce', { proof: { nonce: 'made-up', signature: key.sign('made-up') } }, { admin: true }],
      ['expired nonce', { proof: { nonce: expired, signature: key.sign(expired) } }, { admin: true }],
      ['used nonce', { proof: { nonce: used, signature: key.sign(used) } }, { admin: true }],
      ['nonce of another subject', { proof: { nonce: foreign, signature: key.sign(foreign) } }, { admin: true }],
      ['signed by another key', { proof: { nonce: mine, signature: other.key.sign(mine) } }, { admin: true }],
      ['signature over other bytes', { proof: { nonce: mine, signature: key.sign(`${mine}x`) } }, { admin: true }],
      ['signature not base64', { proof: { nonce: mine, signature: '!!!' } }, { admin: true }],
    ];
    for (const [label, extra, who] of cases) {
      const r = await call('/auth/token', { ...who, body: { sub: subject, scope: ['a:b'], ...extra } });
      expect({ status: r.status, code: r.body.error?.code }, label).toEqual({ status: 401, code: 'PROOF_REQUIRED' });
    }
    // A wrong signature did not use the nonce up; the right one still works, once.
    expect((await call('/auth/token', { admin: true, body: { sub: subject, scope: ['a:b'], proof: { nonce: mine, signature: key.sign(mine) } } })).status).toBe(
      200,
    );
    // The foreign nonce was not consumed either: its own subject can still use it.
    expect(
      (await call('/auth/token', { admin: true, body: { sub: other.subject, scope: ['a:b'], proof: { nonce: foreign, signature: other.key.sign(foreign) } } }))
        .status,
    ).toBe(200);
  });

  it('accepts a nonce once: a replay after success is refused', async () => {
    const { subject, key } = await enrolled();
    const body = await provenRequest(call, subject, key, ['a:b']);
    expect((await call('/auth/token', { admin: true, body })).status).toBe(200);
    expect(await call('/auth/token', { admin: true, body })).toMatchObject({ status: 401, body: { error: { code: 'PROOF_REQUIRED' } } });
  });

  it('issues exactly one token when 20 requests present the same proof at once', async () => {
    const { subject, key } = await enrolled();
    const body = await provenRequest(call, subject, key, ['a:b']);
    const answers = await Promise.all(Array.from({ length: 20 }, () => call('/auth/token', { admin: true, body })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 401 && a.body.error.code === 'PROOF_REQUIRED')).toHaveLength(19);
  });
});

/** The fenced block after `<!-- <marker> -->` in docs/IDENTITIES.md. */
function documented(marker: string): string {
  const doc = readFileSync(new URL('../../docs/IDENTITIES.md', import.meta.url), 'utf8');
  const at = doc.indexOf(`<!-- ${marker} -->`);
  const match = at < 0 ? null : /```sh\n([\s\S]*?)```/.exec(doc.slice(at));
  if (!match) throw new Error(`docs/IDENTITIES.md has no sh block after <!-- ${marker} -->`);
  return match[1]!;
}

describe('the openssl steps of docs/IDENTITIES.md', () => {
  it('make a key and a signature that the service accepts as proof', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'suite-identity-'));
    const sh = (script: string, env: Record<string, string> = {}) => {
      const r = spawnSync('sh', ['-ec', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    try {
      sh(documented('script:make-key'));
      const publicKeyPem = readFileSync(join(dir, 'agent.pub'), 'utf8');
      expect((await call('/identities', { admin: true, body: { subject: 'openssl-agent', kind: 'agent', publicKeyPem } })).status).toBe(201);
      const nonce = (await call('/identities/openssl-agent/challenge', { method: 'POST' })).body.nonce as string;
      const signature = sh(documented('script:sign-nonce'), { NONCE: nonce }).trim();
      const r = await call('/auth/token', { admin: true, body: { sub: 'openssl-agent', scope: ['a:b'], proof: { nonce, signature } } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(decodeJwt(r.body.token).prf).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Last in the file: it spends this client's challenge budget.
describe('the challenge rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a client exceeds its challenge budget, storing no nonce', async () => {
    const { subject } = await enrolled();
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i <= CHALLENGE_RATE_LIMIT.max; i++) {
      last = await fetch(t.url('token', `/identities/${subject}/challenge`), { method: 'POST' });
      statuses.push(last.status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(CHALLENGE_RATE_LIMIT.max);
    expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await last!.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    const stored = await t.suite.storage!.pool.oneFirst(sql.unsafe`select count(*)::int8 from identity_nonces where subject = ${subject}`);
    expect(stored).toBe(statuses.filter((s) => s === 200).length);
    // Other routes keep the edge's own budget.
    expect((await call(`/identities/${subject}`, { admin: true })).status).toBe(200);
  });
});
