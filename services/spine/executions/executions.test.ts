import { createPublicKey, verify } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { subjects } from '../../../bus/index.ts';
import { hashCanonical, type ExecutionRecord } from '../../../core/chain/index.ts';
import { executionBody, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

describe.each(storageKinds())('POST /executions and its reads on $kind', ({ open }) => {
  let db: TestStorage;
  let h: ExecutionHarness;
  beforeAll(async () => {
    db = await open();
    h = await startExecutionHarness({ storage: db.storage });
  }, machineTimeout(60_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  const get = async (url: string, token?: string) => {
    const res = await h.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.statusCode, body: res.json() };
  };
  const post = async (url: string, payload: object) => {
    const res = await h.app.inject({ method: 'POST', url, payload });
    return { status: res.statusCode, body: res.json() };
  };
  const reader = () => h.token(['execution:read']);

  it('records an execution and answers 201 with the signed record, its hashes and its sequence number', async () => {
    const token = await h.token(['execution:record'], { sub: 'recorder-1', prf: true, ten: 'ten_acme' });
    const body = executionBody({ cost: { amount: 1250, currency: 'EUR', source: 'provider-invoice', unit: 'tokens', quantity: 0.5 } });
    const res = await h.record(body, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const r = res.body;
    expect(r.id).toMatch(/^exec_[0-9a-f]{32}$/);
    expect(r).toMatchObject({
      subject: 'agent-crm',
      scope: ['crm:write'],
      module: 'crm',
      action: 'update-contact',
      outcome: 'success',
      inputHash: hashCanonical(body.input),
      outputHash: hashCanonical(body.output),
      cost: { amount: 1250, currency: 'EUR', source: 'provider-invoice', unit: 'tokens', quantity: 0.5 },
      governance: null,
      attested: { sub: 'recorder-1', scope: ['execution:record'], proven: true, tenantId: 'ten_acme' },
    });
    expect(r.attested.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isInteger(r.seq) && r.seq >= 1).toBe(true);
    const key = await get('/executions/public-key');
    expect(key.body).toMatchObject({ keyId: r.keyId, algorithm: 'Ed25519', ephemeral: true });
    expect(verify(null, Buffer.from(r.hash, 'hex'), createPublicKey(key.body.publicKey), Buffer.from(r.signature, 'base64'))).toBe(true);
  });

  it('records the governance object as the claim it is, and absent scope as an empty list', async () => {
    const governance = { policyRef: 'p/refunds', policyVersion: '7', decision: 'DENIED', evidence: ['e1'], evaluatedBy: 'opa' };
    const res = await h.record(executionBody({ governance, scope: undefined }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ governance, scope: [] });
  });

  it.each([
    ['a non-integer amount', { amount: 12.5, currency: 'EUR', source: 's' }, /non-integer amount is rejected/],
    ['a negative amount', { amount: -1, currency: 'EUR', source: 's' }, /must not be negative/],
    ['a lowercase currency', { amount: 1, currency: 'eur', source: 's' }, /lowercase currency is rejected/],
    ['a currency that is not three letters', { amount: 1, currency: 'EURO', source: 's' }, /ISO 4217 code of three upper-case letters/],
    ['a missing source', { amount: 1, currency: 'EUR' }, /source is required/],
    ['an empty source', { amount: 1, currency: 'EUR', source: '' }, /source is required/],
    ['a unit without quantity', { amount: 1, currency: 'EUR', source: 's', unit: 'tokens' }, /quantity is required when unit is present/],
  ])('rejects %s with 400 INVALID_REQUEST naming the cost rule, and records nothing', async (_name, cost, rule) => {
    const before = await get('/executions-verify-chain', await reader());
    const res = await h.record(executionBody({ cost }));
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('INVALID_REQUEST');
    expect(res.body.error?.message).toMatch(rule);
    expect((await get('/executions-verify-chain', await reader())).body.checked).toBe(before.body.checked);
  });

  it('refuses text that cannot be stored or canonicalised (NUL, lone surrogate) with 400, before the writer', async () => {
    const nul = await h.app.inject({
      method: 'POST',
      url: '/executions',
      headers: { authorization: `Bearer ${await h.token(['execution:record'])}`, 'content-type': 'application/json' },
      payload: JSON.stringify(executionBody({ subject: 'a\u0000b' })),
    });
    expect(nul.statusCode).toBe(400);
    const lone = await h.app.inject({
      method: 'POST',
      url: '/executions',
      headers: { authorization: `Bearer ${await h.token(['execution:record'])}`, 'content-type': 'application/json' },
      payload: '{"subject":"s","module":"m","action":"a","outcome":"success","input":"\\ud800"}',
    });
    expect(lone.statusCode).toBe(400);
    // The edge's text rule names the field before RFC 8785 canonicalisation would refuse it.
    expect(lone.json().error.message).toBe('body/input must be well-formed Unicode (it holds a lone surrogate)');
  });

  it('never stores, logs, counts or returns the input and output: only their hashes', async () => {
    const marker = `MARKER-${Math.random().toString(36).slice(2)}`;
    const res = await h.record(executionBody({ input: { secret: marker }, output: [marker] }), { idempotencyKey: 'privacy-1' });
    expect(res.status).toBe(201);
    const refused = await h.record(executionBody({ input: marker, cost: { amount: -1, currency: 'EUR', source: 's' } }));
    expect(refused.status).toBe(400);
    const read = await get(`/executions/${res.body.id}`, await reader());
    const verified = await post('/executions/verify', { id: res.body.id });
    // Every row of every table of the schema, as text.
    const tables = await h.storage.pool.anyFirst(sql.unsafe`
      select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`);
    expect(tables).toEqual(expect.arrayContaining(['executions', 'audit_entries', 'trace_keys']));
    let dump = '';
    for (const table of tables) {
      dump += await h.storage.pool.oneFirst(sql.unsafe`select coalesce(string_agg(t::text, '|'), '') from ${sql.identifier([String(table)])} t`);
    }
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('http_request');
    expect(h.logText()).toContain('/executions');
    for (const text of [
      JSON.stringify(res.body),
      JSON.stringify(refused.body),
      JSON.stringify(read.body),
      JSON.stringify(verified.body),
      dump,
      metrics.body,
      h.logText(),
    ]) {
      expect(text).not.toContain(marker);
    }
    expect(String(dump)).toContain(hashCanonical({ secret: marker }));
  });

  it('answers a retry with the same Idempotency-Key with the same record (200), and writes it once', async () => {
    const first = await h.record(executionBody({ action: 'retry-seq' }), { idempotencyKey: 'retry-seq-1' });
    const again = await h.record(executionBody({ action: 'retry-seq' }), { idempotencyKey: 'retry-seq-1' });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body).toEqual(first.body);
    const rows = await h.storage.pool.oneFirst(sql.unsafe`select count(*)::int from executions where idempotency_key = 'retry-seq-1'`);
    expect(rows).toBe(1);
  });

  it('answers 20 concurrent requests with one Idempotency-Key with one record: one 201, nineteen 200', async () => {
    const body = executionBody({ action: 'retry-concurrent' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => h.record(body, { idempotencyKey: 'retry-concurrent-1' })));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(19).fill(200), 201]);
    for (const a of answers) expect(a.body).toEqual(answers[0]!.body);
    expect(await h.storage.pool.oneFirst(sql.unsafe`select count(*)::int from executions where idempotency_key = 'retry-concurrent-1'`)).toBe(1);
  });

  it('refuses an Idempotency-Key reused for a different execution with 409, and keeps keys per token subject', async () => {
    const first = await h.record(executionBody({ action: 'a1' }), { idempotencyKey: 'shared-key' });
    const other = await h.record(executionBody({ action: 'a2' }), { idempotencyKey: 'shared-key' });
    expect(first.status).toBe(201);
    expect(other.status).toBe(409);
    expect(other.body.error?.code).toBe('CONFLICT');
    const elsewhere = await h.record(executionBody({ action: 'a2' }), {
      idempotencyKey: 'shared-key',
      token: await h.token(['execution:record'], { sub: 'someone-else' }),
    });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.id).not.toBe(first.body.id);
  });

  it("serves GET /executions/{id} with every signed field, hash and signature; 404 for an unknown, malformed or other tenant's id", async () => {
    const made = await h.record(executionBody());
    const read = await get(`/executions/${made.body.id}`, await reader());
    expect(read.status).toBe(200);
    expect(read.body).toEqual(made.body);
    expect((await get('/executions/exec_00000000000000000000000000000000', await reader())).status).toBe(404);
    expect((await get('/executions/not-an-id', await reader())).body.error.code).toBe('NOT_FOUND');
    expect((await get(`/executions/${made.body.id}`, await h.token(['execution:record']))).status).toBe(403);
    const tenantToken = await h.token(['execution:record', 'execution:read'], { ten: 'ten_x' });
    const ownTenant = await h.record(executionBody(), { token: tenantToken });
    expect((await get(`/executions/${ownTenant.body.id}`, tenantToken)).status).toBe(200);
    expect((await get(`/executions/${made.body.id}`, tenantToken)).status).toBe(404);
  });

  it('serves the public key though /executions/{id} is registered (static route wins), and earlier keys by keyId', async () => {
    const current = await get('/executions/public-key');
    expect(current.status).toBe(200);
    expect(current.body.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect((await get(`/executions/public-key?keyId=${current.body.keyId}`)).body).toEqual(current.body);
    expect((await get('/executions/public-key?keyId=ed25519-0000000000000000')).status).toBe(404);
  });

  it('verifies the chain on both routes, with the spec fields', async () => {
    const r = await h.record(executionBody());
    const viaGet = await get('/executions-verify-chain', await reader());
    const viaPost = await post('/executions/verify', {});
    expect(viaGet.body).toEqual({ mode: 'chain', valid: true, checked: r.body.seq, headHash: r.body.hash });
    expect(viaPost.body).toEqual(viaGet.body);
    const noBody = await h.app.inject({ method: 'POST', url: '/executions/verify' });
    expect(noBody.json()).toEqual(viaGet.body);
    expect((await get('/executions-verify-chain')).status).toBe(401);
  });

  it('verifies one record given in full or by id, against the published key or a supplied one', async () => {
    const r = (await h.record(executionBody())).body as ExecutionRecord;
    const key = (await get('/executions/public-key')).body.publicKey as string;
    expect((await post('/executions/verify', { record: r })).body).toMatchObject({ mode: 'record', valid: true, id: r.id, inChain: true });
    expect((await post('/executions/verify', { id: r.id, publicKey: key })).body).toMatchObject({ valid: true, seq: r.seq });
    const edited = await post('/executions/verify', { record: { ...r, outcome: 'failure' } });
    expect(edited.body).toMatchObject({ valid: false, brokenAt: r.seq, brokenId: r.id, contentIntact: false, inChain: false });
    const { generateKeyPairSync } = await import('node:crypto');
    const otherKey = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const wrongKey = await post('/executions/verify', { record: r, publicKey: otherKey });
    expect(wrongKey.body).toMatchObject({ valid: false, contentIntact: true, reason: 'signature does not verify against the public key' });
    expect((await post('/executions/verify', { record: r, id: r.id })).status).toBe(400);
    expect((await post('/executions/verify', { publicKey: 'not a key' })).body.error.code).toBe('INVALID_REQUEST');
    expect((await post('/executions/verify', { id: 'exec_00000000000000000000000000000000' })).status).toBe(404);
  });

  it('publishes suite.executions.appended after the commit with identifiers only, never payloads', async () => {
    const seen: unknown[] = [];
    let announced!: () => void;
    const arrived = new Promise<void>((resolve) => (announced = resolve));
    const sub = h.bus.subscribe(subjects.executionsAppended, ({ data }) => {
      seen.push(data);
      announced();
    });
    const r = (await h.record(executionBody({ input: { payload: 'not on the bus' } }))).body;
    await arrived;
    await sub.unsubscribe();
    expect(seen).toEqual([{ id: r.id, seq: r.seq, hash: r.hash, subject: r.subject, outcome: r.outcome }]);
  });

  it('requires execution:record to record', async () => {
    const res = await h.record(executionBody(), { token: await h.token(['execution:read']) });
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('CAPABILITY_INSUFFICIENT');
  });
});
