import { describe, expect, it } from 'vitest';
import type { ModelPin } from '../../../storage/index.ts';
import { compareFingerprint } from './compare.ts';

const pin: ModelPin = {
  name: 'triage',
  baseline: 3,
  fingerprint: { provider: 'anthropic', model: 'claude', version: '2025-01' },
  approvedBy: 'J. Doe',
  basis: 'b',
  approvedAt: '2025-02-03T04:05:06.000Z',
  supersedes: 2,
  supersededAt: null,
};

describe('compareFingerprint', () => {
  it('reports each differing field in the order provider, model, version, and says so in words', () => {
    const c = compareFingerprint(pin, { provider: 'other', model: 'claude', version: '2025-02' });
    expect(c.state).toBe('FAILED');
    expect(c.drift).toEqual([
      { field: 'provider', approved: 'anthropic', observed: 'other' },
      { field: 'version', approved: '2025-01', observed: '2025-02' },
    ]);
    expect(c.finding).toBe(
      'The observed fingerprint differs from baseline 3 of "triage", approved by J. Doe on 2025-02-03, in provider and version: ' +
        'provider approved "anthropic", observed "other"; version approved "2025-01", observed "2025-02". ' +
        'This records what was claimed and how it compares; it does not judge the model.',
    );
  });

  it('matches only on exact equality of all three fields', () => {
    expect(compareFingerprint(pin, { ...pin.fingerprint }).state).toBe('MATCHED');
    expect(compareFingerprint(pin, { ...pin.fingerprint, model: 'claude ' }).state).toBe('FAILED');
    expect(compareFingerprint(pin, { provider: 'a', model: 'b', version: 'c' }).finding).toMatch(/in provider, model and version:/);
  });

  it('gives the same finding for the same inputs', () => {
    const observed = { provider: 'x', model: 'y', version: 'z' };
    expect(compareFingerprint(pin, observed)).toEqual(compareFingerprint(pin, observed));
  });
});
