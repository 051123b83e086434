import type { ErrorCode } from '../bus/index.ts';

/**
 * The one place an error code becomes an HTTP status (DESIGN, "The bus": "the edge maps a code to
 * its HTTP status in one place"). Typed as a full record, so a code added to the catalogue does
 * not compile until it has a status here.
 *
 * Where the spec shows no status: `TOKEN_AUDIENCE_MISMATCH` is a credential failure like the other
 * `TOKEN_*` codes (401); `INTERNAL_ERROR` is 500; `SERVICE_UNAVAILABLE` is 503 like `/ready`. Ours, `RECORD_PRUNED`, is 410 Gone: the record
 * existed and was deleted under retention, for good (docs/TENANCY.md, "Retention"). `METHOD_NOT_ALLOWED`
 * is 405 with `Allow` (RFC 9110 15.5.6): the path exists on this listener under other methods.
 */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  INVALID_REQUEST: 400,
  TOKEN_MISSING: 401,
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  TOKEN_REVOKED: 401,
  TOKEN_AUDIENCE_MISMATCH: 401,
  TENANT_KEY_INVALID: 401,
  PROOF_REQUIRED: 401,
  QUOTA_EXCEEDED: 402,
  CAPABILITY_INSUFFICIENT: 403,
  TENANT_SUSPENDED: 403,
  IDENTITY_SUSPENDED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  RECORD_PRUNED: 410,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  REVOCATION_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
  CONNECTOR_NOT_CONFIGURED: 503,
  CREDENTIALS_REJECTED: 503,
  PROVIDER_REJECTED: 422,
  PROVIDER_UNAVAILABLE: 502,
  OUTBOUND_REFUSED: 403,
});

export function statusOf(code: ErrorCode): number {
  return HTTP_STATUS[code];
}
