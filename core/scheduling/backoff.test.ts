import { describe, expect, it } from 'vitest';
import { hasAttemptLeft, MAX_RETRY_DELAY_MS, retryDelay } from './backoff.ts';

describe('retry delays', () => {
  const fixed = { maxAttempts: 3, backoff: 'fixed', baseDelay: 1000 } as const;
  const exponential = { maxAttempts: 10, backoff: 'exponential', baseDelay: 1000 } as const;

  it('waits the base delay for fixed backoff, jittered between half and all of it', () => {
    expect([1, 2, 3].map((a) => retryDelay(fixed, a, () => 0))).toEqual([500, 500, 500]);
    expect([1, 2, 3].map((a) => retryDelay(fixed, a, () => 0.999999))).toEqual([1000, 1000, 1000]);
  });

  it('doubles the delay per attempt for exponential backoff, capped', () => {
    expect([1, 2, 3, 4].map((a) => retryDelay(exponential, a, () => 0.999999))).toEqual([1000, 2000, 4000, 8000]);
    expect([1, 2, 3, 4].map((a) => retryDelay(exponential, a, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect(retryDelay(exponential, 60, () => 0.999999)).toBe(MAX_RETRY_DELAY_MS);
  });

  it('stops after maxAttempts attempts', () => {
    expect(hasAttemptLeft(fixed, 1)).toBe(true);
    expect(hasAttemptLeft(fixed, 2)).toBe(true);
    expect(hasAttemptLeft(fixed, 3)).toBe(false);
  });
});
