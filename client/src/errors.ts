/**
 * What a call can fail with. The server's errors carry the spec's `code` (docs/ERRORS.md) and are
 * one class per family, so callers branch with `instanceof` on this side of the wire and on `code`
 * for detail; transport failures (no answer, a timeout, a connection reset) are their own class,
 * and say whether the request may have taken effect.
 */
export class SuiteError extends Error {
  override name = 'SuiteError';
}

/** An answer of the suite with an error body `{error:{code,message}}`. */
export class SuiteApiError extends SuiteError {
  override name = 'SuiteApiError';
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  /** Seconds, from `Retry-After` (429, 503). */
  readonly retryAfter: number | undefined;
  /** The answer's body as parsed. */
  readonly body: unknown;

  constructor(status: number, code: string, message: string, o: { requestId?: string | undefined; retryAfter?: number | undefined; body?: unknown } = {}) {
    super(`${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.requestId = o.requestId;
    this.retryAfter = o.retryAfter;
    this.body = o.body;
  }
}

/** 400: the request broke a rule; sending it again changes nothing. */
export class InvalidRequestError extends SuiteApiError {
  override name = 'InvalidRequestError';
}
/** 401 (no, bad, expired or revoked credential) and 403 (not granted by it). */
export class AuthError extends SuiteApiError {
  override name = 'AuthError';
}
/** 402: the tenant's quota for the period is used up. */
export class QuotaExceededError extends SuiteApiError {
  override name = 'QuotaExceededError';
}
export class NotFoundError extends SuiteApiError {
  override name = 'NotFoundError';
}
/** 409: contradicts existing state (e.g. an Idempotency-Key reused for another execution). */
export class ConflictError extends SuiteApiError {
  override name = 'ConflictError';
}
/** 429: slow down; `retryAfter` says for how long. */
export class RateLimitedError extends SuiteApiError {
  override name = 'RateLimitedError';
}
/** 503 (and other 5xx): the suite could not answer now; a write may or may not have happened. */
export class UnavailableError extends SuiteApiError {
  override name = 'UnavailableError';
}

/** No answer: the connection failed or was reset, or the time allowed ran out. */
export class TransportError extends SuiteError {
  override name = 'TransportError';
  /** True when the request may have reached the suite (sent, then no answer). */
  readonly ambiguous: boolean;
  readonly timedOut: boolean;

  constructor(message: string, o: { ambiguous: boolean; timedOut: boolean; cause?: unknown }) {
    super(message, o.cause === undefined ? undefined : { cause: o.cause });
    this.ambiguous = o.ambiguous;
    this.timedOut = o.timedOut;
  }
}

/** The error for an answer's status and body. */
export function errorOf(status: number, body: unknown, headers: Headers): SuiteApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : `HTTP_${status}`;
  const message = typeof error?.message === 'string' ? error.message : `the suite answered ${status}`;
  const retryAfterText = headers.get('retry-after');
  const retryAfter = retryAfterText !== null && /^\d+$/.test(retryAfterText) ? Number(retryAfterText) : undefined;
  const o = { requestId: headers.get('x-request-id') ?? undefined, retryAfter, body };
  if (status === 400) return new InvalidRequestError(status, code, message, o);
  if (status === 401 || status === 403) return new AuthError(status, code, message, o);
  if (status === 402) return new QuotaExceededError(status, code, message, o);
  if (status === 404) return new NotFoundError(status, code, message, o);
  if (status === 409) return new ConflictError(status, code, message, o);
  if (status === 429) return new RateLimitedError(status, code, message, o);
  if (status >= 500) return new UnavailableError(status, code, message, o);
  return new SuiteApiError(status, code, message, o);
}
