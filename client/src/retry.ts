import { RateLimitedError, TransportError, UnavailableError, type SuiteError } from './errors.ts';

/** How a call is tried again. Values, so that a test can read what a policy would do. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 = no retry). */
  readonly attempts: number;
  /** Backoff before the n-th retry: a random time up to min(maxDelayMs, baseDelayMs * 2^(n-1)) ("full jitter"). */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown instead. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ attempts: 4, baseDelayMs: 100, maxDelayMs: 2000, maxRetryAfterMs: 10_000 });
export const NO_RETRY: RetryPolicy = Object.freeze({ ...DEFAULT_RETRY, attempts: 1 });

/**
 * Whether an error may be retried, for a request that is safe to send again (a read, or a write
 * with an Idempotency-Key): the suite unavailable (503, 502, 504), rate limited (429), or no answer
 * at all (connection refused or reset, timeout). Never a 4xx rule break, nor a 500 (a bug: sending
 * it again would not help).
 */
export function retryable(error: SuiteError): boolean {
  if (error instanceof TransportError) return true;
  if (error instanceof RateLimitedError) return true;
  return error instanceof UnavailableError && error.status !== 500;
}

/** Milliseconds to wait before retry number `retry` (1-based), or undefined to give up. */
export function delayBefore(policy: RetryPolicy, retry: number, error: SuiteError, random: () => number = Math.random): number | undefined {
  if (retry >= policy.attempts) return undefined;
  const retryAfter = (error as { retryAfter?: number }).retryAfter;
  if (retryAfter !== undefined) {
    const ms = retryAfter * 1000;
    return ms <= policy.maxRetryAfterMs ? ms : undefined;
  }
  return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1)));
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
