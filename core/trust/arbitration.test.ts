import { describe, expect, it } from 'vitest';
import { duplicateParticipants, evaluate, SAME_FAMILY_WEIGHT } from './arbitration.ts';

describe('trust rule 6: arbitration discounts same-family agreement and escalates irreversible questions', () => {
  it('counts the second opinion of one model family at a quarter and shows the discount', () => {
    const e = evaluate(
      [
        { participant: 'a', modelFamily: 'gpt-4', position: 'refund' },
        { participant: 'b', modelFamily: 'GPT-4', position: 'Refund' },
        { participant: 'c', modelFamily: 'claude', position: 'deny' },
      ],
      false,
    );
    const refund = e.positions.find((p) => p.position === 'refund')!;
    expect(refund).toMatchObject({ rawWeight: 2, countedWeight: 1 + SAME_FAMILY_WEIGHT, discount: 0.75 });
    expect(refund.opinions.map((o) => o.counted)).toEqual([1, 0.25]);
    // 1.25 of 2.25 is 56%: two agreeing models of one family are not a consensus against an independent one.
    expect(e).toMatchObject({ outcome: 'no-consensus', escalate: true, leading: null });
  });

  it('reaches consensus when independent families agree', () => {
    const e = evaluate(
      [
        { participant: 'a', modelFamily: 'gpt-4', position: 'refund' },
        { participant: 'b', modelFamily: 'claude', position: 'refund' },
        { participant: 'c', modelFamily: 'llama', position: 'deny', confidence: 0.5 },
      ],
      false,
    );
    expect(e).toMatchObject({ outcome: 'consensus', leading: 'refund', escalate: false, leadingShare: 0.8 });
  });

  it('escalates an irreversible question even when every participant agrees', () => {
    const e = evaluate(
      [
        { participant: 'a', modelFamily: 'x', position: 'delete' },
        { participant: 'b', modelFamily: 'y', position: 'delete' },
      ],
      true,
    );
    expect(e).toMatchObject({ outcome: 'consensus', escalate: true });
    expect(e.reason).toMatch(/irreversible/);
  });

  it('names participants without a family and counts them as independent', () => {
    const e = evaluate(
      [
        { participant: 'z', position: 'p' },
        { participant: 'y', position: 'p' },
      ],
      false,
    );
    expect(e.unknownFamily).toEqual(['y', 'z']);
    expect(e.positions[0]!.discount).toBe(0);
  });

  it('finds participants named twice', () => {
    expect(
      duplicateParticipants([
        { participant: 'a', position: 'x' },
        { participant: 'a', position: 'y' },
        { participant: 'b', position: 'x' },
      ]),
    ).toEqual(['a']);
  });

  it('does not call a tie a consensus', () => {
    expect(
      evaluate(
        [
          { participant: 'a', position: 'x' },
          { participant: 'b', position: 'y' },
        ],
        false,
      ).outcome,
    ).toBe('no-consensus');
  });
});
