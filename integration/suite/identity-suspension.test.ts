import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { createTestDatabase, type TestDatabase } from '../../testing/storage.ts';
import { caller, newAgentKey, provenRequest, type AgentKey } from '../../testing/identities.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let n = 0;
async function enrolled(call: ReturnType<typeof caller>): Promise<{ subject: string; key: AgentKey }> {
  const subject = `suspended-agent-${++n}`;
  const key = newAgentKey();
  const r = await call('/identities', { admin: true, body: { subject, kind: 'agent', publicKeyPem: key.publicKeyPem } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { subject, key };
}

describe('POST /identities/{subject}/suspend', () => {
  let t: TestSuite;
  let call: ReturnType<typeof caller>;
  beforeAll(async () => {
    t = await startTestSuite();
    call = caller(t);
  }, machineTimeout(60_000));
  afterAll(() => t?.stop());

  it('requires a reason, the admin key, and an enrolled subject', async () => {
    const { subject } = await enrolled(call);
    for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'x', extra: 1 }]) {
      const r = await call(`/identities/${subject}/suspend`, { admin: true, body });
      expect({ status: r.status, code: r.body.error.code }, JSON.stringify(body)).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    }
    expect((await call(`/identities/${subject}/suspend`, { admin: true, body: {} })).body.error.message).toMatch(/reason/);
    expect((await call(`/identities/${subject}`, { admin: true })).body.status).toBe('active');
    const all = await t.mint(['*']);
    expect((await call(`/identities/${subject}/suspend`, { token: all.token, body: { reason: 'r' } })).status).toBe(403);
    expect(await call('/identities/nobody/suspend', { admin: true, body: { reason: 'r' } })).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
  });

  it('stops new tokens, refuses existing ones on every listener, and leaves past records unchanged', async () => {
    const before = await t.mint(['execution:record', 'execution:read'], { sub: 'suspended-agent-early' });
    const { subject, key } = await enrolled(call);
    const scope = ['execution:record', 'execution:read'];
    const proven = (await call('/auth/token', { admin: true, body: await provenRequest(call, subject, key, scope) })).body;
    const second = (await call('/auth/token', { admin: true, body: await provenRequest(call, subject, key, ['a:b']) })).body;
    const bystander = await t.mint(['execution:read']);
    const record = await call('/executions', { token: proven.token, body: { subject, module: 'crm', action: 'update', input: { x: 1 }, outcome: 'success' } });
    expect(record.status).toBe(201);
    expect((await call('/capabilities', { token: proven.token, service: 'scheduler' })).status).toBe(200);
    expect(before.jti).toBeDefined();

    const suspended = await call(`/identities/${subject}/suspend`, { admin: true, body: { reason: 'private key found in a public repository' } });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toEqual({
      subject,
      status: 'suspended',
      reason: 'private key found in a public repository',
      suspendedAt: expect.any(String),
      revokedTokens: 2,
    });

    for (const token of [proven.token, second.token]) {
      for (const service of ['token', 'scheduler'] as const) {
        const r = await call('/capabilities', { token, service });
        expect({ status: r.status, code: r.body.error?.code }, service).toEqual({ status: 401, code: 'TOKEN_REVOKED' });
      }
    }
    expect((await call(`/executions/${record.body.id}`, { token: proven.token })).body.error.code).toBe('TOKEN_REVOKED');
    // New authority stops: with or without proof, and no new challenge.
    expect(await call('/auth/token', { admin: true, body: { sub: subject, scope: ['a:b'] } })).toMatchObject({
      status: 403,
      body: { error: { code: 'IDENTITY_SUSPENDED' } },
    });
    expect(await call(`/identities/${subject}/challenge`, { method: 'POST' })).toMatchObject({ status: 403, body: { error: { code: 'IDENTITY_SUSPENDED' } } });
    // Past records are unchanged and the chain still verifies; other subjects are untouched.
    const after = await call(`/executions/${record.body.id}`, { token: bystander.token });
    expect(after.body).toEqual(record.body);
    expect(after.body.attested.proven).toBe(true);
    expect((await call('/executions-verify-chain', { admin: true })).body.valid).toBe(true);
    expect((await call('/capabilities', { token: before.token })).status).toBe(200);
    expect(await call(`/identities/${subject}`, { admin: true })).toMatchObject({
      status: 200,
      body: { status: 'suspended', reason: 'private key found in a public repository', suspendedAt: suspended.body.suspendedAt },
    });
  });

  it('is final and safe to repeat: a second suspension keeps the first reason and time, and the subject cannot be enrolled again', async () => {
    const { subject, key } = await enrolled(call);
    const token = (await call('/auth/token', { admin: true, body: await provenRequest(call, subject, key, ['a:b']) })).body;
    const first = await call(`/identities/${subject}/suspend`, { admin: true, body: { reason: 'first' } });
    const again = await call(`/identities/${subject}/suspend`, { admin: true, body: { reason: 'second' } });
    expect(again.body).toEqual({ ...first.body, revokedTokens: 1 });
    expect(first.body.revokedTokens).toBe(1);
    expect((await call('/capabilities', { token: token.token })).body.error.code).toBe('TOKEN_REVOKED');
    const reenrol = await call('/identities', { admin: true, body: { subject, kind: 'agent', publicKeyPem: newAgentKey().publicKeyPem } });
    expect(reenrol.status).toBe(409);
  });

  it('revokes tokens issued to the subject before it was enrolled too', async () => {
    const early = await t.mint(['a:b'], { sub: `suspended-agent-${n + 1}` });
    const { subject } = await enrolled(call);
    expect(subject).toBe(`suspended-agent-${n}`);
    expect((await call(`/identities/${subject}/suspend`, { admin: true, body: { reason: 'retired' } })).body.revokedTokens).toBe(1);
    expect((await call('/capabilities', { token: early.token })).body.error.code).toBe('TOKEN_REVOKED');
  });

  it('records enrolment and suspension in the audit trail', async () => {
    const { subject } = await enrolled(call);
    await call(`/identities/${subject}/suspend`, { admin: true, body: { reason: 'audit me' } });
    const entries = (await call('/audit?limit=500&subject=admin', { admin: true })).body.entries as Array<{ action: string; resource: string; reason: string }>;
    const mine = entries.filter((e) => e.resource === `identity:${subject}`).map((e) => e.action);
    expect(mine).toEqual(['identity:suspend', 'identity:enrol']);
  });
});

describe('suspension racing issuance, on Postgres', () => {
  let db: TestDatabase;
  let t: TestSuite;
  let call: ReturnType<typeof caller>;
  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startTestSuite({ SUITE_DATABASE_URL: db.url });
    call = caller(t);
  }, machineTimeout(60_000));
  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  });

  it('never lets a token issued concurrently with the suspension survive it', async () => {
    for (let round = 0; round < 3; round++) {
      const { subject, key } = await enrolled(call);
      const bodies = await Promise.all(Array.from({ length: 12 }, () => provenRequest(call, subject, key, ['a:b'])));
      const issuing = bodies.map((body) => call('/auth/token', { admin: true, body }));
      await new Promise((r) => setTimeout(r, round * 5));
      const suspension = await call(`/identities/${subject}/suspend`, { admin: true, body: { reason: `race ${round}` } });
      const answers = await Promise.all(issuing);
      expect(suspension.status).toBe(200);
      const issued = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 403 && a.body.error.code === 'IDENTITY_SUSPENDED');
      expect(issued.length + refused.length, JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 403))).toBe(12);
      expect(suspension.body.revokedTokens).toBe(issued.length);
      for (const a of issued) expect((await call('/capabilities', { token: a.body.token })).body.error.code).toBe('TOKEN_REVOKED');
    }
  });
});
