import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeGrants } from '../core/capability/index.ts';
import type { ExecutionRecord } from '../core/chain/index.ts';
import { assessConditions, CONDITION_RULES } from '../core/assessment/index.ts';
import { storageKinds, type TestStorage } from '../testing/storage.ts';
import {
  conditionCounts,
  conditionSql,
  costTotals,
  countsBy,
  executionTotals,
  getExecutionOf,
  insertExecutions,
  lineageStep,
  listAttention,
  listExecutions,
  subjectBreakdown,
  subjectsPage,
  type NewExecution,
} from './index.ts';
import { machineTimeout } from '../testing/machine-time.ts';

// Scopes from a small alphabet, so that wildcards, equal and unequal segment counts all occur.
const segment = fc.constantFrom('a', 'b', '*', 'read', '');
const scope = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join(':'));

let seq = 0;
const hex = () => randomBytes(32).toString('hex');
type Fields = Partial<Omit<ExecutionRecord, 'seq' | 'id' | 'hash' | 'prevHash' | 'signature'>>;

/** A stored row with the given fields (hashes and signature are not checked by these reads). */
function row(f: Fields, tenantId: string | null): NewExecution {
  seq++;
  return {
    seq,
    id: `exec_${randomBytes(16).toString('hex')}`,
    timestamp: new Date(1_750_000_000_000 + seq * 1000).toISOString(),
    subject: 'agent-a',
    scope: [],
    module: 'm',
    action: 'act',
    outcome: 'success',
    inputHash: hex(),
    outputHash: null,
    cost: null,
    governance: null,
    keyId: 'ed25519-0000000000000000',
    prevHash: hex(),
    hash: hex(),
    signature: 'c2ln',
    idempotencyKey: null,
    ...f,
    attested: { jti: null, sub: 'agent-a', scope: [], proven: false, ...(f.attested ?? {}), tenantId },
  };
}

const record = fc.record({
  subject: fc.constantFrom('agent-a', 'agent-b'),
  scope: fc.array(scope, { maxLength: 3 }),
  attested: fc.record({
    jti: fc.constant(null),
    sub: fc.constantFrom('agent-a', 'agent-b'),
    scope: fc.array(scope, { maxLength: 3 }),
    proven: fc.boolean(),
    tenantId: fc.constant(null),
  }),
  governance: fc.option(
    fc.record(
      {
        policyRef: fc.constant('p'),
        decision: fc.constantFrom('PERMITTED', 'DENIED', 'permitted', 'ESCALATED', 'NOT_PERMITTED'),
        evidence: fc.array(fc.constant('e'), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
    { nil: null },
  ),
  timestamp: fc.constantFrom('2025-01-02T03:04:05.006Z', '2025-01-02T03:04:05Z', '2025-01-02 03:04:05', 'yesterday'),
});

describe.each(storageKinds())('execution read models on $kind', ({ open }) => {
  let t: TestStorage;
  beforeAll(async () => {
    t = await open();
  }, machineTimeout(60_000));
  afterAll(() => t?.dispose());
  const db = () => t.storage.pool;
  const insert = (rows: NewExecution[]) => db().transaction((tx) => insertExecutions(tx, rows));

  it('matches scopes in SQL exactly as the capability check does (execution_scope_granted vs scopeGrants)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(scope, { maxLength: 4 }), scope, async (granted, required) => {
        const inSql = await db().oneFirst(sql.unsafe`select execution_scope_granted(${sql.jsonb(granted)}, ${required}) as g`);
        expect(inSql).toBe(scopeGrants(granted, required));
      }),
      { numRuns: 150 },
    );
  });

  it('gives every record the same five condition states in SQL as the assessment in code', async () => {
    const c = conditionSql(CONDITION_RULES);
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 6 }), async (fields) => {
        const tenant = `prop-${randomBytes(4).toString('hex')}`;
        const rows = fields.map((f) => row(f as Fields, tenant));
        await insert(rows);
        const states = await db().any(sql.unsafe`
        select id, ${c.identity} as "Identity", ${c.capability} as "Capability", ${c.evidence} as "Evidence",
          ${c.governance} as "Governance", ${c.time} as "Time"
        from executions where tenant_id = ${tenant} order by seq`);
        expect(states).toEqual(
          rows.map((r) => ({
            id: r.id,
            ...Object.fromEntries(assessConditions(r).conditions.map((x) => [x.condition, x.state])),
          })),
        );
      }),
      { numRuns: 40 },
    );
  });

  it('pages newest first by sequence, with filters, and never repeats or skips a record while others are appended', async () => {
    const tenant = 'ten-list';
    const rows = Array.from({ length: 25 }, (_, i) =>
      row({ subject: i % 2 ? 'odd' : 'even', outcome: i % 5 === 0 ? 'failure' : 'success', module: `m${i % 3}` }, tenant),
    );
    await insert(rows);
    const seen: string[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await listExecutions(db(), { tenantId: tenant, limit: 7, ...(before !== undefined ? { beforeSeq: before } : {}) });
      if (page.length === 0) break;
      seen.push(...page.map((r) => r.id));
      before = page[page.length - 1]!.seq;
      await insert([row({}, tenant)]); // appended meanwhile: newer than every cursor, never in a later page
    }
    expect(seen).toEqual([...rows].reverse().map((r) => r.id));
    const failures = await listExecutions(db(), { tenantId: tenant, outcome: 'failure', subject: 'even', limit: 100 });
    expect(failures.map((r) => r.id)).toEqual(
      rows
        .filter((_, i) => i % 5 === 0 && i % 2 === 0)
        .reverse()
        .map((r) => r.id),
    );
    const window = await listExecutions(db(), { tenantId: tenant, module: 'm1', from: rows[3]!.timestamp, to: rows[12]!.timestamp, limit: 100 });
    expect(window.map((r) => r.id)).toEqual(
      rows
        .slice(3, 13)
        .filter((r) => r.module === 'm1')
        .reverse()
        .map((r) => r.id),
    );
    expect(await listExecutions(db(), { tenantId: 'nobody', limit: 10 })).toEqual([]);
  });

  it('reads one record only within its tenant', async () => {
    const [r] = [row({}, 'ten-one')];
    await insert([r!]);
    expect((await getExecutionOf(db(), r!.id))?.id).toBe(r!.id);
    expect((await getExecutionOf(db(), r!.id, 'ten-one'))?.id).toBe(r!.id);
    expect(await getExecutionOf(db(), r!.id, 'ten-other')).toBeNull();
  });

  it('lists records needing attention by kind: outcome, unproven identity, capability failed, refused governance', async () => {
    const tenant = 'ten-attention';
    const proven = { sub: 'agent-a', proven: true, scope: ['crm:*'] };
    const fine = row({ attested: { ...proven } as never, scope: ['crm:write'], governance: { decision: 'PERMITTED' } }, tenant);
    const failed = row({ attested: { ...proven } as never, outcome: 'failure' }, tenant);
    const unproven = row({}, tenant);
    const unauthorised = row({ attested: { ...proven } as never, scope: ['billing:write'] }, tenant);
    const refused = row({ attested: { ...proven } as never, governance: { decision: 'DENIED' } }, tenant);
    await insert([fine, failed, unproven, unauthorised, refused]);
    const ids = async (kinds: Parameters<typeof listAttention>[2]['kinds']) =>
      (await listAttention(db(), CONDITION_RULES, { tenantId: tenant, kinds, limit: 100 })).map((r) => r.id);
    expect(await ids(['outcome', 'identity', 'capability', 'governance'])).toEqual([refused, unauthorised, unproven, failed].map((r) => r.id));
    expect(await ids(['outcome'])).toEqual([failed.id]);
    expect(await ids(['identity'])).toEqual([unproven.id]);
    expect(await ids(['capability'])).toEqual([unauthorised.id]);
    expect(await ids(['governance'])).toEqual([refused.id]);
    expect(
      (
        await listAttention(db(), CONDITION_RULES, {
          tenantId: tenant,
          kinds: ['outcome', 'identity', 'capability', 'governance'],
          limit: 2,
          beforeSeq: unauthorised.seq,
        })
      ).map((r) => r.id),
    ).toEqual([unproven.id, failed.id]);
  });

  it('steps lineage both ways: same hash, consumer no earlier than producer, excluded records skipped', async () => {
    const tenant = 'ten-lineage';
    const h1 = hex();
    const h2 = hex();
    const a = row({ outputHash: h1 }, tenant);
    const b = row({ inputHash: h1, outputHash: h2 }, tenant);
    const early = { ...row({ inputHash: h1 }, tenant), timestamp: '2000-01-01T00:00:00.000Z' };
    const c = row({ inputHash: h2 }, tenant);
    const foreign = row({ inputHash: h1 }, 'ten-elsewhere');
    await insert([a, b, early, c, foreign]);
    const from = (r: NewExecution, h: string | null) => [{ hash: h!, timestamp: r.timestamp }];
    const down = await lineageStep(db(), { direction: 'downstream', from: from(a, a.outputHash), exclude: [a.id], limit: 10, tenantId: tenant });
    expect(down.map((n) => n.id)).toEqual([b.id]);
    expect((await lineageStep(db(), { direction: 'downstream', from: from(a, a.outputHash), exclude: [a.id], limit: 10 })).map((n) => n.id)).toEqual([
      b.id,
      foreign.id,
    ]);
    expect(
      (await lineageStep(db(), { direction: 'upstream', from: from(c, c.inputHash), exclude: [c.id], limit: 10, tenantId: tenant })).map((n) => n.id),
    ).toEqual([b.id]);
    expect(
      (await lineageStep(db(), { direction: 'upstream', from: from(b, b.inputHash), exclude: [b.id], limit: 10, tenantId: tenant })).map((n) => n.id),
    ).toEqual([a.id]);
    expect(await lineageStep(db(), { direction: 'upstream', from: from(b, b.inputHash), exclude: [b.id, a.id], limit: 10, tenantId: tenant })).toEqual([]);
  });

  it('aggregates in SQL: totals, counts by column, condition states, subjects and their breakdowns', async () => {
    const tenant = 'ten-agg';
    const mine = { sub: 'alice', proven: true, scope: ['crm:*'] };
    await insert([
      row({ subject: 'alice', attested: mine as never, scope: ['crm:write'], module: 'crm', action: 'update', outputHash: hex() }, tenant),
      row(
        {
          subject: 'alice',
          attested: mine as never,
          scope: ['crm:write', 'mail:send'],
          module: 'mail',
          action: 'send',
          outcome: 'failure',
          cost: { amount: 5, currency: 'EUR', source: 's' },
        },
        tenant,
      ),
      row({ subject: 'bob', module: 'crm', action: 'update', cost: { amount: 7, currency: 'USD', source: 's' } }, tenant),
    ]);
    const f = { tenantId: tenant };
    const totals = await executionTotals(db(), f);
    expect(totals).toMatchObject({ records: 3, priced: 2, withoutOutput: 2, subjects: 2 });
    expect(totals.firstTimestamp! < totals.lastTimestamp!).toBe(true);
    expect(await countsBy(db(), 'module', f, 10)).toEqual({
      counts: [
        { value: 'crm', count: 2 },
        { value: 'mail', count: 1 },
      ],
      distinct: 2,
    });
    expect(await countsBy(db(), 'module', f, 1)).toEqual({ counts: [{ value: 'crm', count: 2 }], distinct: 2 });
    const states = await conditionCounts(db(), CONDITION_RULES, f);
    expect(states.reduce((n, s) => n + s.n, 0)).toBe(3);
    expect(states.filter((s) => s.capability === 'FAILED').reduce((n, s) => n + s.n, 0)).toBe(1);
    const page = await subjectsPage(db(), { ...f, limit: 1 });
    expect(page).toEqual([expect.objectContaining({ subject: 'alice', records: 2, priced: 1 })]);
    expect((await subjectsPage(db(), { ...f, limit: 5, afterSubject: 'alice' })).map((s) => s.subject)).toEqual(['bob']);
    const scopes = await subjectBreakdown(db(), CONDITION_RULES, 'scope', ['alice', 'bob'], f, 1);
    expect(scopes).toEqual([{ subject: 'alice', value: 'crm:write', module: null, count: 2 }]);
    const actions = await subjectBreakdown(db(), CONDITION_RULES, 'action', ['alice'], f, 10);
    expect(actions).toEqual([
      { subject: 'alice', value: 'send', module: 'mail', count: 1 },
      { subject: 'alice', value: 'update', module: 'crm', count: 1 },
    ]);
    const capability = await subjectBreakdown(db(), CONDITION_RULES, 'capability', ['alice', 'bob'], f, 10);
    expect(capability).toEqual([
      { subject: 'alice', value: 'DEMONSTRATED', module: null, count: 1 },
      { subject: 'alice', value: 'FAILED', module: null, count: 1 },
      { subject: 'bob', value: 'ABSENT', module: null, count: 1 },
    ]);
  });

  it('sums cost claims per currency, never across currencies, exactly beyond 2^53', async () => {
    const tenant = 'ten-cost';
    const big = Number.MAX_SAFE_INTEGER;
    await insert([
      row({ subject: 'a', cost: { amount: big, currency: 'EUR', source: 's' } }, tenant),
      row({ subject: 'a', cost: { amount: big, currency: 'EUR', source: 's' } }, tenant),
      row({ subject: 'b', cost: { amount: 3, currency: 'JPY', source: 's' } }, tenant),
      row({ subject: 'b' }, tenant),
    ]);
    expect(await costTotals(db(), { tenantId: tenant })).toEqual([
      { subject: null, currency: 'EUR', amount: (2n * BigInt(big)).toString() },
      { subject: null, currency: 'JPY', amount: '3' },
    ]);
    expect(await costTotals(db(), { tenantId: tenant }, ['b'])).toEqual([{ subject: 'b', currency: 'JPY', amount: '3' }]);
    expect(await costTotals(db(), { tenantId: 'ten-none' })).toEqual([]);
  });
});
