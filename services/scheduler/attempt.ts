/** How one attempt of a task ended, whatever its type. */
export interface AttemptResult {
  /** The trace's outcome word: success, failure, timeout, refused, circuit-open. */
  readonly outcome: 'success' | 'failure' | 'timeout' | 'refused' | 'circuit-open';
  /** Whether another attempt may succeed (network errors, timeouts, 408/429/5xx, an open breaker). */
  readonly retryable: boolean;
  readonly status: number | null;
  readonly durationMs: number;
  /** Short and ours: never a response body or a header value. */
  readonly error: string | null;
  /** Hashed into the trace's outputHash. */
  readonly output: Readonly<Record<string, unknown>>;
}
