import { describe, expect, it } from 'vitest';
import { afterArbitration, allowed } from './states.ts';

describe('trust state machines', () => {
  it('allows the legal moves and names the needed states of an illegal one', () => {
    expect(allowed('contract', 'suspend', 'active', 'ctr_1')).toEqual({ ok: true });
    expect(allowed('contract', 'reinstate', 'active', 'ctr_1')).toEqual({
      ok: false,
      message: 'contract ctr_1 is "active": reinstate needs it to be "suspended"',
    });
    expect(allowed('dispute', 'decide', 'resolved', 'd')).toEqual({
      ok: false,
      message: 'dispute d is "resolved": decide needs it to be one of "pending", "escalated"',
    });
    expect(allowed('breach', 'remediate', 'remediated', 'b').ok).toBe(false);
  });

  it('sends an arbitration that must escalate to a human', () => {
    expect(afterArbitration(true)).toBe('escalated');
    expect(afterArbitration(false)).toBe('resolved');
  });
});
