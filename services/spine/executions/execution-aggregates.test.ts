import { randomBytes } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { callHarness, harnessTenant, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

/** Lineage, attention and the aggregates, through the real edge, bus, actors and storage. */
describe.each(storageKinds())('execution aggregate routes on $kind', ({ open }) => {
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

  const get = (url: string, token: string) => callHarness(h, 'GET', url, token);
  const tenant = () => harnessTenant(h);
  const content = () => ({ marker: randomBytes(8).toString('hex') });

  it("follows lineage A output -> B input -> C input: C inherits A's failure, A's blast radius reaches B and C", async () => {
    const t = await tenant();
    const [x, y, z] = [content(), content(), content()];
    const a = await t.record({ subject: 'producer', input: z, output: x, outcome: 'failure' });
    const b = await t.record({ subject: 'middle', input: x, output: y });
    const c = await t.record({ subject: 'consumer', input: y, output: content() });
    const fromC = await t.get(`/executions/${c.id}/lineage`);
    expect(fromC.status).toBe(200);
    expect(fromC.body.inheritedFailures).toEqual([{ id: a.id, subject: 'producer', outcome: 'failure', depth: 2 }]);
    expect(fromC.body.upstream).toEqual({ count: 2, maxDepth: 2, truncated: false });
    expect(fromC.body.blastRadius).toEqual({ records: [], count: 0, maxDepth: 0, truncated: false });
    expect(fromC.body.meaning).toMatch(/not that one caused the other/);
    const fromA = await t.get(`/executions/${a.id}/lineage`);
    expect(fromA.body.blastRadius).toEqual({
      records: [
        { id: b.id, subject: 'middle', outcome: 'success', depth: 1 },
        { id: c.id, subject: 'consumer', outcome: 'success', depth: 2 },
      ],
      count: 2,
      maxDepth: 2,
      truncated: false,
    });
    expect(fromA.body.inheritedFailures).toEqual([]);
    const shallow = await t.get(`/executions/${a.id}/lineage?depth=1`);
    expect(shallow.body.blastRadius).toMatchObject({ count: 1, maxDepth: 1, truncated: true });
    expect((await t.get(`/executions/${c.id}/lineage?limit=1`)).body.upstream).toEqual({ count: 1, maxDepth: 1, truncated: true });
  });

  it('draws no lineage edge to a consumer recorded before the producer, nor across tenants', async () => {
    const t = await tenant();
    const other = await tenant();
    const x = content();
    const early = await t.record({ input: x });
    await setTimeout(5); // timestamps have millisecond resolution: make "earlier" strictly earlier
    const producer = await t.record({ output: x });
    await other.record({ input: x });
    const late = await t.record({ input: x });
    expect((await t.get(`/executions/${producer.id}/lineage`)).body.blastRadius.records.map((r: { id: string }) => r.id)).toEqual([late.id]);
    expect((await t.get(`/executions/${early.id}/lineage`)).body.upstream.count).toBe(0);
  });

  it.each([['depth=0'], ['depth=21'], ['limit=1001'], ['width=3']])('refuses lineage with %s (400 INVALID_REQUEST)', async (q) => {
    const t = await tenant();
    const r = await t.record({});
    const res = await t.get(`/executions/${r.id}/lineage?${q}`);
    expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });

  it('lists records needing attention with the field that says so, filtered by reason and paged', async () => {
    const t = await tenant();
    const own = { sub: 'agent-p', prf: true, scope: ['crm:*'] };
    await t.record({ subject: 'agent-p', scope: ['crm:write'], governance: { decision: 'PERMITTED' } }, own);
    const failed = await t.record({ subject: 'agent-p', scope: ['crm:write'], outcome: 'failure' }, own);
    const unauthorised = await t.record({ subject: 'agent-p', scope: ['billing:refund'] }, own);
    const refused = await t.record({ subject: 'agent-p', scope: ['crm:write'], governance: { decision: 'DENIED' } }, own);
    const unproven = await t.record({ subject: 'agent-u' });
    const all = await t.get('/executions/attention');
    expect(all.body.records.map((r: { id: string }) => r.id)).toEqual([unproven, refused, unauthorised, failed].map((r) => r.id));
    const reasons = Object.fromEntries(
      all.body.records.map((r: { id: string; reasons: Array<{ kind: string; field: string }> }) => [r.id, r.reasons.map((x) => `${x.kind}:${x.field}`)]),
    );
    expect(reasons[failed.id]).toEqual(['outcome:outcome']);
    expect(reasons[unauthorised.id]).toEqual(['capability:scope vs attested.scope']);
    expect(reasons[refused.id]).toEqual(['governance:governance.decision']);
    expect(reasons[unproven.id]).toEqual(['identity:attested.proven']);
    expect((await t.get('/executions/attention?reason=outcome,governance')).body.records.map((r: { id: string }) => r.id)).toEqual([refused.id, failed.id]);
    const p1 = await t.get('/executions/attention?limit=3');
    const p2 = await t.get(`/executions/attention?limit=3&cursor=${p1.body.nextCursor}`);
    expect([...p1.body.records, ...p2.body.records].map((r: { id: string }) => r.id)).toEqual(all.body.records.map((r: { id: string }) => r.id));
    expect(p2.body.nextCursor).toBeNull();
    expect((await t.get('/executions/attention?reason=vibes')).status).toBe(400);
    expect((await t.get(`/executions/attention?cursor=${(await t.get('/executions?limit=1')).body.nextCursor}`)).body.error.message).toMatch(
      /not one this route issued/,
    );
  });

  it('reports authority exercised per subject from recorded behaviour, paged by subject', async () => {
    const t = await tenant();
    const own = { sub: 'alice', prf: true, scope: ['crm:*'] };
    const first = await t.record({ subject: 'alice', scope: ['crm:write'], module: 'crm', action: 'update' }, own);
    await t.record({ subject: 'alice', scope: ['crm:write', 'mail:send'], module: 'mail', action: 'send', outcome: 'failure' }, own);
    const last = await t.record({ subject: 'alice', scope: ['crm:write'], module: 'crm', action: 'update' }, own);
    await t.record({ subject: 'bob', scope: [], module: 'crm', action: 'read' });
    await t.record({ subject: 'carol', scope: ['x:y'], module: 'x', action: 'y' });
    const page1 = await t.get('/executions/authority?limit=1');
    expect(page1.body.subjects).toEqual([
      {
        subject: 'alice',
        records: 3,
        firstSeen: first.timestamp,
        lastSeen: last.timestamp,
        scopes: [
          { scope: 'crm:write', count: 3 },
          { scope: 'mail:send', count: 1 },
        ],
        modules: [
          { module: 'crm', count: 2 },
          { module: 'mail', count: 1 },
        ],
        actions: [
          { module: 'crm', action: 'update', count: 2 },
          { module: 'mail', action: 'send', count: 1 },
        ],
        outcomes: [
          { outcome: 'success', count: 2 },
          { outcome: 'failure', count: 1 },
        ],
        capability: [
          { state: 'DEMONSTRATED', count: 2 },
          { state: 'FAILED', count: 1 },
        ],
        truncated: false,
      },
    ]);
    const page2 = await t.get(`/executions/authority?limit=1&cursor=${page1.body.nextCursor}`);
    const page3 = await t.get(`/executions/authority?limit=1&cursor=${page2.body.nextCursor}`);
    expect([page2.body.subjects[0].subject, page3.body.subjects[0].subject, page3.body.nextCursor]).toEqual(['bob', 'carol', null]);
    expect((await t.get('/executions/authority?subject=bob')).body.subjects.map((s: { subject: string }) => s.subject)).toEqual(['bob']);
  });

  it('sums cost per currency and never across currencies, with coverage first and subjects paged', async () => {
    const t = await tenant();
    const big = Number.MAX_SAFE_INTEGER;
    await t.record({ subject: 'a', cost: { amount: 1250, currency: 'EUR', source: 'invoice' } });
    await t.record({ subject: 'a', cost: { amount: 300, currency: 'USD', source: 'invoice' } });
    await t.record({ subject: 'a' });
    await t.record({ subject: 'b', cost: { amount: big, currency: 'JPY', source: 'meter' } });
    await t.record({ subject: 'b', cost: { amount: big, currency: 'JPY', source: 'meter' } });
    await t.record({ subject: 'c' });
    const res = await t.get('/executions/cost');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['coverage', 'totals', 'subjects', 'nextCursor']);
    expect(res.body.coverage).toMatchObject({ records: 6, priced: 4, unpriced: 2 });
    expect(res.body.coverage.meaning).toMatch(/never across currencies/);
    expect(res.body.totals).toEqual([
      { currency: 'EUR', amount: 1250 },
      { currency: 'JPY', amount: (2n * BigInt(big)).toString() },
      { currency: 'USD', amount: 300 },
    ]);
    expect(res.body.subjects).toEqual([
      {
        subject: 'a',
        priced: 2,
        unpriced: 1,
        totals: [
          { currency: 'EUR', amount: 1250 },
          { currency: 'USD', amount: 300 },
        ],
      },
      { subject: 'b', priced: 2, unpriced: 0, totals: [{ currency: 'JPY', amount: (2n * BigInt(big)).toString() }] },
      { subject: 'c', priced: 0, unpriced: 1, totals: [] },
    ]);
    const p1 = await t.get('/executions/cost?limit=2');
    const p2 = await t.get(`/executions/cost?limit=2&cursor=${p1.body.nextCursor}`);
    expect([...p1.body.subjects, ...p2.body.subjects]).toEqual(res.body.subjects);
    expect([p1.body.totals, p2.body.nextCursor]).toEqual([res.body.totals, null]);
    const onlyA = await t.get('/executions/cost?subject=a');
    expect(onlyA.body.coverage).toMatchObject({ records: 3, priced: 2, unpriced: 1 });
    expect((await t.get(`/executions/cost?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.coverage.records).toBe(0);
  });

  it('counts records by outcome, module and condition state, verifies the chain live, and names what is unverifiable', async () => {
    const t = await tenant();
    await t.record({ subject: 'agent-p', scope: ['crm:write'], outcome: 'failure' }, { sub: 'agent-p', prf: true, scope: ['crm:*'] });
    await t.record({ module: 'mail', cost: { amount: 1, currency: 'EUR', source: 's' }, output: undefined });
    const res = await t.get('/executions/stats');
    expect(res.status).toBe(200);
    expect(res.body.records).toMatchObject({ total: 2, subjects: 2, priced: 1, unpriced: 1, withoutOutput: 1 });
    expect(res.body.byOutcome).toEqual({
      counts: [
        { outcome: 'failure', count: 1 },
        { outcome: 'success', count: 1 },
      ],
      distinct: 2,
    });
    expect(res.body.byModule.distinct).toBe(2);
    const identity = res.body.conditions.find((c: { condition: string }) => c.condition === 'Identity');
    expect(identity.states).toEqual({ DEMONSTRATED: 1, FAILED: 0, UNKNOWN: 1, ABSENT: 0 });
    const whole = await get('/executions-verify-chain', t.reader);
    expect(res.body.chain).toMatchObject({ mode: 'chain', valid: true });
    expect(res.body.chain.checked).toBeLessThanOrEqual(whole.body.checked);
    expect(res.body.unverifiable.map((u: { what: string }) => u.what)).toEqual(expect.arrayContaining(['cost', 'governance', 'identity', 'outcome']));
    expect(JSON.stringify(res.body)).not.toMatch(/"score"/);
  });

  it('groups unknowns by the action that would resolve them, counts only', async () => {
    const t = await tenant();
    await t.record({ scope: [], output: undefined });
    await t.record({ governance: { decision: 'PERMITTED' } });
    await t.record(
      { subject: 'agent-p', scope: ['crm:write'], governance: { decision: 'maybe', evidence: ['e'] }, cost: { amount: 1, currency: 'EUR', source: 's' } },
      { sub: 'agent-p', prf: true, scope: ['crm:*'] },
    );
    const res = await t.get('/executions/unknowns');
    expect(res.status).toBe(200);
    expect(res.body.records).toBe(3);
    const by = Object.fromEntries(res.body.unknowns.map((u: { field: string; records: number }) => [u.field, u.records]));
    expect(by).toEqual({
      'attested.proven': 2,
      'attested.sub': 1,
      scope: 1,
      governance: 1,
      'governance.decision': 1,
      'governance.evidence': 2,
      cost: 2,
      outputHash: 1,
    });
    expect(res.body.meaning).toMatch(/no priority/);
    for (const u of res.body.unknowns) expect(Object.keys(u)).not.toContain('priority');
  });

  it("keeps a tenant's aggregates to its own records", async () => {
    const t1 = await tenant();
    const t2 = await tenant();
    const x = content();
    const producer = await t1.record({ subject: 'p', output: x, cost: { amount: 5, currency: 'EUR', source: 's' }, outcome: 'failure' });
    await t2.record({ subject: 'q', input: x, cost: { amount: 7, currency: 'EUR', source: 's' }, outcome: 'failure' });
    expect((await t2.get('/executions/stats')).body.records.total).toBe(1);
    expect((await t2.get('/executions/unknowns')).body.records).toBe(1);
    expect((await t2.get('/executions/cost')).body.totals).toEqual([{ currency: 'EUR', amount: 7 }]);
    expect((await t2.get('/executions/authority')).body.subjects.map((s: { subject: string }) => s.subject)).toEqual(['q']);
    expect((await t2.get('/executions/attention?reason=outcome')).body.records.map((r: { subject: string }) => r.subject)).toEqual(['q']);
    expect((await t1.get(`/executions/${producer.id}/lineage`)).body.blastRadius.count).toBe(0);
  });
});
