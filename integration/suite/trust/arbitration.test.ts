import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../../testing/suite.ts';
import { serviceCaller, type ServiceCall } from '../../../testing/identities.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

let t: TestSuite;
let trust: ServiceCall;

beforeAll(async () => {
  t = await startTestSuite();
  const { token } = await t.mint(['trust:*']);
  trust = serviceCaller(t, 'trust', token);
}, machineTimeout(60_000));
afterAll(() => t?.stop());

/** A digest of every row of every table, by table. */
async function snapshot(): Promise<Record<string, string>> {
  const pool = t.suite.storage!.pool;
  const tables = await pool.anyFirst(sql.unsafe`select tablename from pg_tables where schemaname = 'public' order by tablename`);
  const out: Record<string, string> = {};
  for (const table of tables as string[]) {
    out[table] = (await pool.oneFirst(
      sql.unsafe`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from ${sql.identifier([table])} t`,
    )) as string;
  }
  return out;
}

const opinions = [
  { participant: 'reviewer-1', modelFamily: 'gpt-4', position: 'refund', rationale: 'policy 4.2 applies' },
  { participant: 'reviewer-2', modelFamily: 'gpt-4', position: 'refund' },
  { participant: 'reviewer-3', modelFamily: 'claude', position: 'deny', confidence: 0.9 },
];

describe('trust rule 6: POST /arbitrate evaluates without storing anything', () => {
  it('answers the evaluation and leaves every table but the audit chain of the capability check unchanged', async () => {
    // Settle the audit batcher first, so that only this request's decision can move the audit chain.
    await trust('/disputes');
    expect(await t.suite.audit.flush()).toBe(true);
    const before = await snapshot();
    const r = await trust('/arbitrate', { body: { question: 'Refund order 981?', opinions } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ stored: false, outcome: 'no-consensus', escalate: true, method: 'family-discounted-v1' });
    expect(r.body.positions.find((p: { position: string }) => p.position === 'refund')).toMatchObject({ rawWeight: 2, countedWeight: 1.25, discount: 0.75 });
    // The request's own audit entry committed: every write it caused is in (it stores nothing else).
    expect(await t.suite.audit.flush()).toBe(true);
    const after = await snapshot();
    const changed = Object.keys(before).filter((table) => before[table] !== after[table]);
    // The audit chain records the capability check; the chain writers renew their leases every
    // 250 ms whatever the requests (liveness, not data). Nothing else may change.
    expect(
      changed.every((table) => ['audit_entries', 'chain_heads', 'chain_leases'].includes(table)),
      changed.join(', '),
    ).toBe(true);
    expect(changed).toContain('audit_entries');
    expect(Object.keys(before).filter((k) => k.startsWith('trust_')).length).toBeGreaterThanOrEqual(10);
  });

  it('refuses a participant named twice, or no opinions, with 400 naming the field', async () => {
    const dup = await trust('/arbitrate', { body: { opinions: [opinions[0], opinions[0]] } });
    expect(dup).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
    expect(dup.body.error.message).toMatch(/\/opinions: .*reviewer-1/);
    expect((await trust('/arbitrate', { body: { opinions: [] } })).body.error.message).toMatch(/opinions/);
    expect((await trust('/arbitrate', { body: { opinions: [{ participant: 'x', position: 'y', confidence: 2 }] } })).body.error.message).toMatch(/confidence/);
  });
});

describe('disputes', () => {
  it('trust rule 6: arbitrating a dispute discounts same-family agreement and shows by how much', async () => {
    const created = await trust('/disputes', { body: { title: 'Order 981', question: 'Refund?', irreversible: false, opinions } });
    expect(created.status).toBe(201);
    expect(created.body.state).toBe('pending');
    expect((await trust('/disputes/pending')).body.disputes.map((d: { id: string }) => d.id)).toContain(created.body.id);
    const r = await trust(`/disputes/${created.body.id}/arbitrate`, { body: {} });
    expect(r.status).toBe(200);
    expect(r.body.state).toBe('escalated');
    const refund = r.body.arbitration.positions.find((p: { position: string }) => p.position === 'refund');
    expect(refund).toMatchObject({ rawWeight: 2, countedWeight: 1.25, discount: 0.75 });
    expect(r.body.arbitration.reason).toMatch(/a human decides/);
    const decided = await trust(`/disputes/${created.body.id}/decide`, { body: { outcome: 'refund', reason: 'the customer was charged twice' } });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ state: 'decided', decision: { outcome: 'refund', by: 'human' } });
    expect((await trust('/disputes/pending')).body.disputes.map((d: { id: string }) => d.id)).not.toContain(created.body.id);
  });

  it('trust rule 6: an irreversible dispute escalates to a human even when all participants agree, and is never resolved by arbitration', async () => {
    const unanimous = [
      { participant: 'a', modelFamily: 'gpt-4', position: 'delete the account' },
      { participant: 'b', modelFamily: 'claude', position: 'delete the account' },
      { participant: 'c', modelFamily: 'llama', position: 'delete the account' },
    ];
    const created = await trust('/disputes', { body: { title: 'Account 7', question: 'Delete?', irreversible: true, opinions: unanimous } });
    const r = await trust(`/disputes/${created.body.id}/arbitrate`, { body: {} });
    expect(r.body).toMatchObject({ state: 'escalated', arbitration: { outcome: 'consensus', escalate: true } });
    expect(r.body.arbitration.reason).toMatch(/irreversible/);
    expect((await trust('/disputes/pending')).body.disputes.map((d: { id: string }) => d.id)).toContain(created.body.id);
  });

  it('resolves a reversible dispute by independent consensus, after which a second arbitration or a decision is 409', async () => {
    const created = await trust('/disputes', { body: { title: 'Ticket 5', question: 'Close?', irreversible: false } });
    const r = await trust(`/disputes/${created.body.id}/arbitrate`, {
      body: {
        opinions: [
          { participant: 'a', modelFamily: 'gpt-4', position: 'close' },
          { participant: 'b', modelFamily: 'claude', position: 'close' },
        ],
      },
    });
    expect(r.body.state).toBe('resolved');
    const again = await trust(`/disputes/${created.body.id}/arbitrate`, { body: {} });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/"resolved": arbitrate needs it to be "pending"/);
    expect((await trust(`/disputes/${created.body.id}/decide`, { body: { outcome: 'x', reason: 'y' } })).status).toBe(409);
    expect((await trust(`/disputes/${created.body.id}`)).body.state).toBe('resolved');
  });

  it('answers 404 for an unknown dispute and 400 naming the field for a bad body', async () => {
    expect((await trust('/disputes/dsp_nope')).status).toBe(404);
    expect((await trust('/disputes/dsp_nope/arbitrate', { body: {} })).status).toBe(404);
    expect((await trust('/disputes/dsp_nope/decide', { body: { outcome: 'x', reason: 'y' } })).status).toBe(404);
    const bad = await trust('/disputes', { body: { title: 'x', question: 'y' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/irreversible/);
    const empty = await trust('/disputes', { body: { title: 'x', question: 'y', irreversible: false } });
    expect((await trust(`/disputes/${empty.body.id}/arbitrate`, { body: {} })).status).toBe(400);
  });
});

describe('POST /verify', () => {
  it('trust rule 5: answers risk signals with spans and a notice, never a verdict', async () => {
    const r = await trust('/verify', { body: { output: 'The bridge cost 19 million dollars.', sources: ['The bridge cost 18 million dollars.'] } });
    expect(r.status).toBe(200);
    expect(r.body.signals).toEqual([expect.objectContaining({ type: 'number-not-in-sources', span: { start: 16, end: 18, text: '19' } })]);
    expect(r.body).not.toHaveProperty('verdict');
    expect((await trust('/verify', { body: { output: 'x', sources: [] } })).body.error.message).toMatch(/sources/);
  });
});
