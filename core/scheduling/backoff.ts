/**
 * Retry delays. Written here rather than taken from cockatiel's backoff classes because a queued
 * task's retries are durable (the next attempt is a row in the database, picked up by any worker,
 * perhaps after a restart): the delay must be a function of the attempt number alone, while
 * cockatiel's backoffs are chains of in-memory states. Cockatiel keeps the circuit breaker.
 */

export type BackoffKind = 'fixed' | 'exponential';

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly backoff: BackoffKind;
  /** Milliseconds. */
  readonly baseDelay: number;
}

/** Ceiling of an exponential delay, so attempt 30 does not wait for years. */
export const MAX_RETRY_DELAY_MS = 15 * 60_000;

/**
 * The wait before attempt `attempt + 1`, after attempt `attempt` (1-based) failed. Fixed: the base
 * delay; exponential: base × 2^(attempt−1), capped. Then "equal jitter": half the delay is kept, the
 * other half drawn at random, so replicas retrying the same failing host spread out while a delay
 * never drops below half of what was asked. `random` returns [0, 1).
 */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number): number {
  const raw = policy.backoff === 'fixed' ? policy.baseDelay : policy.baseDelay * 2 ** Math.max(0, attempt - 1);
  const delay = Math.min(raw, MAX_RETRY_DELAY_MS);
  const half = delay / 2;
  return Math.round(half + random() * half);
}

/** Whether a failed attempt is followed by another. */
export function hasAttemptLeft(policy: RetryPolicy, attempt: number): boolean {
  return attempt < policy.maxAttempts;
}
