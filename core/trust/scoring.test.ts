import { describe, expect, it } from 'vitest';
import { gate, scoreOf } from './scoring.ts';

describe('scoreOf', () => {
  it("starts at 50 and adds each event kind's weight, listing every contribution", () => {
    const s = scoreOf(
      [
        { id: 'e1', kind: 'task-succeeded', appealUpheld: false },
        { id: 'e2', kind: 'commitment-broken', appealUpheld: false },
      ],
      [],
    );
    expect(s).toMatchObject({ score: 47, unclamped: 47, baseline: 50, method: 'additive-v1' });
    expect(s.contributions).toEqual([
      { source: 'event', id: 'e1', reason: 'task-succeeded', delta: 2 },
      { source: 'event', id: 'e2', reason: 'commitment-broken', delta: -5 },
    ]);
  });

  it('leaves out an event whose appeal was upheld and says why', () => {
    const s = scoreOf([{ id: 'e1', kind: 'policy-violation', appealUpheld: true }], []);
    expect(s.score).toBe(50);
    expect(s.excluded).toEqual([{ source: 'event', id: 'e1', reason: 'an appeal against this event was upheld' }]);
  });

  it("trust rule 7: charges the agent's own breaches and never the operator's", () => {
    const s = scoreOf(
      [],
      [
        { id: 'b1', contractId: 'c', party: 'agent', state: 'open' },
        { id: 'b2', contractId: 'c', party: 'agent', state: 'remediated' },
        { id: 'b3', contractId: 'c', party: 'operator', state: 'open' },
      ],
    );
    expect(s.score).toBe(50 - 5 - 2);
    expect(s.excluded).toEqual([{ source: 'breach', id: 'b3', reason: 'breach by the operator: never charged to the agent' }]);
  });

  it('clamps to 0..100 and keeps the unclamped sum', () => {
    const many = Array.from({ length: 10 }, (_, i) => ({ id: `e${i}`, kind: 'policy-violation' as const, appealUpheld: false }));
    expect(scoreOf(many, [])).toMatchObject({ score: 0, unclamped: -30 });
  });
});

describe('trust rule 4: gate', () => {
  it('allows whatever the score when gating is disabled', () => {
    for (const score of [0, 10, undefined]) expect(gate({ gating: false, threshold: 40 }, score)).toMatchObject({ allowed: true, gating: 'disabled' });
  });

  it('with gating enabled, lets the threshold decide and says why', () => {
    expect(gate({ gating: true, threshold: 40 }, 40)).toMatchObject({ allowed: true, reason: 'score 40 meets the threshold 40' });
    expect(gate({ gating: true, threshold: 40 }, 39)).toMatchObject({ allowed: false, reason: 'score 39 is below the threshold 40' });
    expect(gate({ gating: true, threshold: 40 }, undefined).allowed).toBe(false);
  });
});
