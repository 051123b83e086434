import { describe, expect, it } from 'vitest';
import { parseDurationSeconds } from './duration.ts';

describe('expiresIn durations', () => {
  it('reads seconds, minutes, hours and days', () => {
    expect(parseDurationSeconds('30s')).toBe(30);
    expect(parseDurationSeconds('15m')).toBe(900);
    expect(parseDurationSeconds('8h')).toBe(28_800);
    expect(parseDurationSeconds('7d')).toBe(604_800);
  });

  it('rejects zero, signs, fractions, other units, spaces and lifetimes over a year', () => {
    for (const bad of ['0s', '-5m', '1.5h', '10w', ' 1h', '1h ', '1H', '', 'h', '366d', '99999999s']) {
      expect(parseDurationSeconds(bad), bad).toBeUndefined();
    }
    expect(parseDurationSeconds('365d')).toBe(365 * 86400);
  });
});
