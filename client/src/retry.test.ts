import { describe, expect, it } from 'vitest';
import { AuthError, RateLimitedError, TransportError, UnavailableError } from './errors.ts';
import { DEFAULT_RETRY, delayBefore, retryable } from './retry.ts';

const unavailable = (retryAfter?: number) => new UnavailableError(503, 'SERVICE_UNAVAILABLE', 'down', { retryAfter });

describe('the retry policy', () => {
  it('retries an unavailable suite, a rate limit and no answer, never a rule broken nor a 500', () => {
    expect(retryable(unavailable())).toBe(true);
    expect(retryable(new RateLimitedError(429, 'RATE_LIMITED', 'slow down'))).toBe(true);
    expect(retryable(new TransportError('reset', { ambiguous: true, timedOut: false }))).toBe(true);
    expect(retryable(new AuthError(401, 'TOKEN_INVALID', 'no'))).toBe(false);
    expect(retryable(new UnavailableError(500, 'INTERNAL_ERROR', 'bug'))).toBe(false);
  });

  it('waits a random time under a bound that doubles from the base up to the maximum', () => {
    const top = (retry: number) => delayBefore({ ...DEFAULT_RETRY, attempts: 10 }, retry, unavailable(), () => 0.999_999);
    expect([1, 2, 3, 4, 5, 6].map(top)).toEqual([99, 199, 399, 799, 1599, 1999]);
    expect(delayBefore(DEFAULT_RETRY, 1, unavailable(), () => 0)).toBe(0);
  });

  it('honours Retry-After up to its cap, and gives up past it or when the attempts are spent', () => {
    expect(delayBefore(DEFAULT_RETRY, 1, unavailable(3))).toBe(3000);
    expect(delayBefore(DEFAULT_RETRY, 1, unavailable(60))).toBeUndefined();
    expect(delayBefore(DEFAULT_RETRY, DEFAULT_RETRY.attempts, unavailable())).toBeUndefined();
  });
});
