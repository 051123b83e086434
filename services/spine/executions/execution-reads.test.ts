import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { hashCanonical, type ExecutionRecord } from '../../../core/chain/index.ts';
import { callHarness, harnessTenant, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

/** The read routes of one record, and the list, through the real edge, bus, actors and storage. */
describe.each(storageKinds())('execution read routes on $kind', ({ open }) => {
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

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) => callHarness(h, method, url, token, payload);
  const tenant = () => harnessTenant(h);

  it('lists records newest first in pages, and a cursor walk neither repeats nor skips while records are appended', async () => {
    const t = await tenant();
    const made: ExecutionRecord[] = [];
    for (let i = 0; i < 11; i++) made.push(await t.record({ action: `a${i}` }));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await t.get(`/executions?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body)).toEqual(['records', 'nextCursor']);
      seen.push(...res.body.records.map((r: ExecutionRecord) => r.id));
      cursor = res.body.nextCursor;
      pages++;
      await t.record({ action: 'appended-meanwhile' });
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(made.map((r) => r.id).reverse());
    const first = await t.get('/executions?limit=1');
    expect(first.body.records[0].action).toBe('appended-meanwhile');
    expect(first.body.records[0]).toEqual((await call('GET', `/executions/${first.body.records[0].id}`, t.reader)).body);
  });

  it('ends a page early, with a cursor, when its records are large, so that an answer always fits a bus message', async () => {
    const t = await tenant();
    const evidence = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(2000, 'e'));
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await t.record({ governance: { decision: 'PERMITTED', evidence } }));
    const first = await t.get('/executions?limit=10');
    expect(first.body.records.length).toBe(1);
    expect(first.body.nextCursor).not.toBeNull();
    const ids = [...first.body.records];
    for (let cursor = first.body.nextCursor; cursor !== null; ) {
      const page = await t.get(`/executions?limit=10&cursor=${cursor}`);
      ids.push(...page.body.records);
      cursor = page.body.nextCursor;
    }
    expect(ids.map((r: ExecutionRecord) => r.id)).toEqual(made.map((r) => r.id).reverse());
  });

  it('filters by subject, outcome, module, action and a time window', async () => {
    const t = await tenant();
    const a = await t.record({ subject: 'alice', outcome: 'failure', module: 'crm', action: 'update' });
    const b = await t.record({ subject: 'alice', outcome: 'success', module: 'mail', action: 'send' });
    const c = await t.record({ subject: 'bob', outcome: 'failure', module: 'crm', action: 'delete' });
    const ids = async (q: string) => (await t.get(`/executions?${q}`)).body.records.map((r: ExecutionRecord) => r.id);
    expect(await ids('subject=alice')).toEqual([b.id, a.id]);
    expect(await ids('outcome=failure')).toEqual([c.id, a.id]);
    expect(await ids('module=crm&outcome=failure&subject=bob')).toEqual([c.id]);
    expect(await ids('action=send')).toEqual([b.id]);
    const inWindow = [a, b, c]
      .filter((r) => r.timestamp >= b.timestamp && r.timestamp <= c.timestamp)
      .map((r) => r.id)
      .reverse();
    expect(await ids(`from=${encodeURIComponent(b.timestamp)}&to=${encodeURIComponent(c.timestamp)}`)).toEqual(inWindow);
    // An instant written in another offset means the same instant (compared as time, not as text).
    const inPlusTwo = (ms: number) => new Date(ms + 7_200_000).toISOString().replace('Z', '+02:00');
    expect(await ids(`from=${encodeURIComponent(inPlusTwo(Date.parse(a.timestamp)))}`)).toEqual([c.id, b.id, a.id]);
    expect(await ids(`from=${encodeURIComponent(inPlusTwo(Date.parse(c.timestamp) + 1))}`)).toEqual([]);
    expect((await t.get('/executions?subject=nobody')).body).toEqual({ records: [], nextCursor: null });
  });

  it.each([
    ['limit=0', /limit must be >= 1/],
    ['limit=501', /limit must be <= 500/],
    ['limit=many', /limit must be a whole number/],
    ['limit=1e2', /limit must be a whole number in plain decimal digits/],
    ['from=yesterday', /from/],
    ['colour=blue', /colour|additional/i],
    ['cursor=not*a*cursor', /cursor/],
    ['cursor=WyJhdHRlbnRpb24iLDVd', /cursor is not one this route issued/],
  ])('refuses GET /executions?%s with 400 INVALID_REQUEST naming the rule', async (query, rule) => {
    const t = await tenant();
    const res = await t.get(`/executions?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.message).toMatch(rule);
  });

  it('serves the static routes though /executions/{id} is registered: /executions/stats is not an id', async () => {
    const t = await tenant();
    for (const path of ['stats', 'attention', 'authority', 'unknowns', 'cost']) {
      const res = await t.get(`/executions/${path}`);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.error).toBeUndefined();
    }
    expect(Object.keys((await t.get('/executions/stats')).body)).toContain('unverifiable');
  });

  it('assesses the five conditions of a record, each with its state and field, and a conclusion in words', async () => {
    const t = await tenant();
    const r = await t.record(
      { subject: 'agent-p', scope: ['crm:write'], governance: { decision: 'DENIED', evidence: ['rule-4'] } },
      { sub: 'agent-p', prf: true, scope: ['crm:*'] },
    );
    const res = await t.get(`/executions/${r.id}/conditions`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(r.id);
    expect(res.body.conditions.map((c: { condition: string; state: string; field: string }) => [c.condition, c.state, c.field])).toEqual([
      ['Identity', 'DEMONSTRATED', 'attested.proven'],
      ['Capability', 'DEMONSTRATED', 'scope'],
      ['Evidence', 'DEMONSTRATED', 'governance.evidence'],
      ['Governance', 'FAILED', 'governance.decision'],
      ['Time', 'DEMONSTRATED', 'timestamp'],
    ]);
    expect(res.body.conclusion).toMatch(/^Of the five conditions, 4 demonstrated \(Identity, Capability, Evidence, Time\) and 1 failed \(Governance\)\./);
    const unproven = await t.record({ scope: [] });
    expect((await t.get(`/executions/${unproven.id}/conditions`)).body.conditions.map((c: { state: string }) => c.state)).toEqual([
      'UNKNOWN',
      'ABSENT',
      'ABSENT',
      'ABSENT',
      'DEMONSTRATED',
    ]);
  });

  it('explains a record in sentences built from its signed fields, naming them', async () => {
    const t = await tenant();
    const r = await t.record({ subject: 'agent-x', cost: { amount: 12, currency: 'USD', source: 'invoice' } });
    const res = await t.get(`/executions/${r.id}/explain`);
    expect(res.status).toBe(200);
    expect(res.body.sentences[0].text).toContain(`Record ${r.seq} of the execution chain (${r.id}) was accepted by the suite at ${r.timestamp}`);
    expect(res.body.sentences.flatMap((s: { fields: string[] }) => s.fields)).toEqual(
      expect.arrayContaining(['subject', 'cost.amount', 'attested.proven', 'inputHash']),
    );
    expect(res.body.basis).toMatch(/no model/);
  });

  it("answers 404 for an unknown, malformed or other tenant's id on every per-record route, and 403 without execution:read", async () => {
    const t = await tenant();
    const other = await tenant();
    const theirs = await other.record({});
    const unknown = 'exec_00000000000000000000000000000000';
    for (const route of ['conditions', 'explain', 'replay', 'lineage']) {
      for (const id of [unknown, 'not-an-id', theirs.id]) {
        const res = await t.get(`/executions/${id}/${route}`);
        expect({ route, id, status: res.status, code: res.body.error?.code }).toEqual({ route, id, status: 404, code: 'NOT_FOUND' });
      }
      expect((await other.get(`/executions/${theirs.id}/${route}`)).status).toBe(200);
      expect((await call('GET', `/executions/${theirs.id}/${route}`, await h.token(['execution:record']))).status).toBe(403);
    }
    expect((await call('POST', `/executions/${theirs.id}/replay`, t.reader, { input: 1 })).status).toBe(404);
    expect((await call('GET', '/executions', await h.token(['execution:record']))).status).toBe(403);
  });

  it('replays: GET says what can be compared, POST compares a candidate by hash (match and mismatch)', async () => {
    const t = await tenant();
    const input = { order: 7, lines: [1, 2] };
    const output = { ok: true, n: 2 };
    const r = await t.record({ input, output });
    const info = await t.get(`/executions/${r.id}/replay`);
    expect(info.body).toMatchObject({
      id: r.id,
      inputHash: r.inputHash,
      outputHash: r.outputHash,
      candidateInputHash: null,
      candidateOutputHash: null,
      inputMatches: null,
      outputMatches: null,
    });
    expect(info.body.method).toMatch(/RFC 8785/);
    const same = await call('POST', `/executions/${r.id}/replay`, t.reader, { input: { lines: [1, 2], order: 7 }, output });
    expect(same.body).toMatchObject({ inputMatches: true, outputMatches: true, candidateInputHash: hashCanonical(input), candidateOutputHash: r.outputHash });
    const differs = await call('POST', `/executions/${r.id}/replay`, t.reader, { input: { order: 8, lines: [1, 2] } });
    expect(differs.body).toMatchObject({ inputMatches: false, outputMatches: null, candidateOutputHash: null });
    expect(differs.body.conclusion).toContain('its hash differs');
    const noOutput = await t.record({ output: undefined });
    expect((await call('POST', `/executions/${noOutput.id}/replay`, t.reader, { output: 1 })).body).toMatchObject({
      inputMatches: null,
      outputMatches: null,
      outputHash: null,
    });
  });

  it('refuses a replay without a candidate or with extra fields (400), and never stores, logs or returns the candidate', async () => {
    const t = await tenant();
    const r = await t.record({});
    expect((await call('POST', `/executions/${r.id}/replay`, t.reader, {})).body.error.message).toMatch(/input, output or both/);
    expect((await call('POST', `/executions/${r.id}/replay`, t.reader, { input: 1, extra: 2 })).status).toBe(400);
    const lone = await h.app.inject({
      method: 'POST',
      url: `/executions/${r.id}/replay`,
      headers: { authorization: `Bearer ${t.reader}`, 'content-type': 'application/json' },
      payload: '{"input":"\\ud800"}',
    });
    expect([lone.statusCode, lone.json().error.message]).toEqual([400, 'body/input must be well-formed Unicode (it holds a lone surrogate)']);
    const marker = `CANDIDATE-${randomBytes(6).toString('hex')}`;
    const res = await call('POST', `/executions/${r.id}/replay`, t.reader, { input: { secret: marker }, output: [marker] });
    expect(res.status).toBe(200);
    expect(res.body.candidateInputHash).toBe(hashCanonical({ secret: marker }));
    expect(JSON.stringify(res.body)).not.toContain(marker);
    expect(h.logText()).toContain('/replay');
    expect(h.logText()).not.toContain(marker);
    const stored = (await t.get('/executions?limit=500')).body;
    expect(JSON.stringify(stored)).not.toContain(marker);
  });

  it('keeps every list and record of a tenant from every other tenant, while a token without tenant reads all', async () => {
    const t1 = await tenant();
    const t2 = await tenant();
    const mine = await t1.record({ subject: 'shared-name' });
    const theirs = await t2.record({ subject: 'shared-name' });
    expect((await t1.get('/executions?subject=shared-name')).body.records.map((r: ExecutionRecord) => r.id)).toEqual([mine.id]);
    expect((await t2.get('/executions?subject=shared-name')).body.records.map((r: ExecutionRecord) => r.id)).toEqual([theirs.id]);
    const everyone = await call('GET', '/executions?subject=shared-name', await h.token(['execution:read']));
    expect(everyone.body.records.map((r: ExecutionRecord) => r.id)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
  });
});
