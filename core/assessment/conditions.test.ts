import { describe, expect, it } from 'vitest';
import type { ExecutionRecord } from '../chain/index.ts';
import { assessConditions, conclude, type ConditionName, type ConditionState } from './conditions.ts';
import { attentionReasons } from './attention.ts';

/** A record as the chain would hold it; override any field. */
function record(o: Partial<Omit<ExecutionRecord, 'attested'>> & { attested?: Partial<ExecutionRecord['attested']> } = {}): ExecutionRecord {
  const { attested, ...rest } = o;
  return {
    seq: 7,
    id: 'exec_0123456789abcdef0123456789abcdef',
    timestamp: '2025-01-02T03:04:05.006Z',
    subject: 'agent-crm',
    scope: ['crm:write'],
    module: 'crm',
    action: 'update-contact',
    outcome: 'success',
    inputHash: 'a'.repeat(64),
    outputHash: null,
    cost: null,
    governance: null,
    prevHash: 'b'.repeat(64),
    keyId: 'ed25519-0000000000000000',
    hash: 'c'.repeat(64),
    signature: 'c2ln',
    ...rest,
    attested: { jti: 'j', sub: 'agent-crm', scope: ['crm:*'], proven: true, tenantId: null, ...attested },
  };
}

const stateOf = (r: ExecutionRecord, name: ConditionName) => assessConditions(r).conditions.find((c) => c.condition === name)!;

describe('the five-condition assessment', () => {
  it('reports the five conditions in the spec order, each with a state and the field it was read from, and no score', () => {
    const a = assessConditions(record());
    expect(a.conditions.map((c) => [c.condition, c.field])).toEqual([
      ['Identity', 'attested.proven'],
      ['Capability', 'scope'],
      ['Evidence', 'governance.evidence'],
      ['Governance', 'governance'],
      ['Time', 'timestamp'],
    ]);
    expect(Object.keys(a).sort()).toEqual(['conclusion', 'conditions']);
    for (const c of a.conditions) {
      expect(Object.keys(c).sort()).toEqual(['condition', 'detail', 'field', 'state']);
      expect(Object.values(c).every((v) => typeof v === 'string')).toBe(true);
    }
  });

  it.each<[string, ConditionState, Parameters<typeof record>[0]]>([
    ['proven token of the claimed subject', 'DEMONSTRATED', {}],
    ['proven token of another subject', 'FAILED', { attested: { sub: 'someone-else' } }],
    ['unproven token of the claimed subject', 'UNKNOWN', { attested: { proven: false } }],
    ['unproven token of another subject', 'UNKNOWN', { attested: { proven: false, sub: 'orchestrator' } }],
  ])('Identity: a %s gives %s', (_name, state, o) => {
    expect(stateOf(record(o), 'Identity').state).toBe(state);
  });

  it.each<[string, ConditionState, Parameters<typeof record>[0]]>([
    ['no scope claimed', 'ABSENT', { scope: [] }],
    ["claimed scopes granted by a wildcard of the subject's own token", 'DEMONSTRATED', { scope: ['crm:write', 'crm:read'] }],
    ["a claimed scope the subject's own token does not grant", 'FAILED', { scope: ['crm:write', 'billing:refund'] }],
    ['a claimed scope deeper than the wildcard (segment-exact)', 'FAILED', { scope: ['crm:write:all'] }],
    ["scopes recorded by another subject's token", 'UNKNOWN', { attested: { sub: 'orchestrator', scope: ['*'] } }],
    ['the bare * grants everything', 'DEMONSTRATED', { scope: ['any:thing:at:all'], attested: { scope: ['*'] } }],
  ])('Capability: %s gives %s', (_name, state, o) => {
    expect(stateOf(record(o), 'Capability').state).toBe(state);
  });

  it.each<[string, ConditionState, ConditionState, ExecutionRecord['governance']]>([
    ['no governance', 'ABSENT', 'ABSENT', null],
    ['PERMITTED with evidence', 'DEMONSTRATED', 'DEMONSTRATED', { decision: 'PERMITTED', evidence: ['ticket-1'] }],
    ['PERMITTED without evidence', 'DEMONSTRATED', 'UNKNOWN', { decision: 'PERMITTED' }],
    ['DENIED', 'FAILED', 'DEMONSTRATED', { decision: 'DENIED', evidence: ['rule 4'] }],
    ['REJECTED', 'FAILED', 'UNKNOWN', { decision: 'REJECTED' }],
    ['a decision outside the vocabulary', 'UNKNOWN', 'UNKNOWN', { decision: 'ESCALATED' }],
    ['lower-case permitted (compared exactly)', 'UNKNOWN', 'UNKNOWN', { decision: 'permitted' }],
    ['a policy reference without a decision', 'UNKNOWN', 'ABSENT', { policyRef: 'p/1' }],
    ['evidence without a decision', 'UNKNOWN', 'DEMONSTRATED', { evidence: ['doc'] }],
  ])('Governance and Evidence: %s gives Governance %s and Evidence %s', (_name, g, e, governance) => {
    const r = record({ governance });
    expect([stateOf(r, 'Governance').state, stateOf(r, 'Evidence').state]).toEqual([g, e]);
  });

  it('names governance.decision as the field once a governance claim exists, and says the suite never asserts it', () => {
    const g = stateOf(record({ governance: { policyRef: 'p/refunds', policyVersion: '7', decision: 'DENIED' } }), 'Governance');
    expect(g.field).toBe('governance.decision');
    expect(g.detail).toContain('"p/refunds" version "7" decided "DENIED"');
    expect(g.detail).toContain('never asserts');
  });

  it("Time is DEMONSTRATED from the suite's own signed timestamp, FAILED for one the suite never writes", () => {
    expect(stateOf(record(), 'Time')).toMatchObject({ state: 'DEMONSTRATED', field: 'timestamp' });
    expect(stateOf(record(), 'Time').detail).toContain('2025-01-02T03:04:05.006Z');
    expect(stateOf(record({ timestamp: 'yesterday' }), 'Time').state).toBe('FAILED');
  });

  it('reads an edited record without throwing (attested and governance of the wrong shape)', () => {
    const edited = { ...record(), attested: 'nonsense', governance: [1, 2] } as unknown as ExecutionRecord;
    expect(assessConditions(edited).conditions.map((c) => c.state)).toEqual(['UNKNOWN', 'UNKNOWN', 'ABSENT', 'ABSENT', 'DEMONSTRATED']);
  });

  it('concludes in words, naming each condition under its state', () => {
    const a = assessConditions(record({ scope: [], attested: { proven: false } }));
    expect(a.conclusion).toBe(
      'Of the five conditions, 1 demonstrated (Time), 1 unknown (Identity) and 3 absent (Capability, Evidence, Governance). ' +
        "Each is reported on its own, read from the record's fields; no score is derived from them.",
    );
    expect(conclude([])).toContain('none assessed');
  });
});

describe('reasons for attention', () => {
  const all = ['outcome', 'identity', 'capability', 'governance'] as const;

  it('names the field that says so for each reason, and only for the kinds asked', () => {
    const r = record({ outcome: 'failure', scope: ['billing:refund'], governance: { decision: 'DENIED' } });
    expect(attentionReasons(r, all).map((x) => [x.kind, x.field, x.state])).toEqual([
      ['outcome', 'outcome', undefined],
      ['capability', 'scope vs attested.scope', 'FAILED'],
      ['governance', 'governance.decision', 'FAILED'],
    ]);
    expect(attentionReasons(r, ['governance']).map((x) => x.kind)).toEqual(['governance']);
    expect(attentionReasons(record({ attested: { proven: false } }), all)).toEqual([
      expect.objectContaining({ kind: 'identity', field: 'attested.proven', state: 'UNKNOWN' }),
    ]);
  });

  it('finds nothing in a successful, proven, authorised record', () => {
    expect(attentionReasons(record({ governance: { decision: 'PERMITTED' } }), all)).toEqual([]);
  });
});
