import { Type, type Static } from 'typebox';

/**
 * The error catalogue of the spec ("Errors"), plus the codes we added where the spec is silent
 * (documented in docs/ERRORS.md). Errors cross the bus and HTTP as data `{code, message}`; a code is
 * never inferred from a message text.
 */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'TOKEN_MISSING',
  'TOKEN_INVALID',
  'TOKEN_EXPIRED',
  'TOKEN_REVOKED',
  'TOKEN_AUDIENCE_MISMATCH',
  'TENANT_KEY_INVALID',
  'PROOF_REQUIRED',
  'QUOTA_EXCEEDED',
  'CAPABILITY_INSUFFICIENT',
  'TENANT_SUSPENDED',
  'IDENTITY_SUSPENDED',
  'NOT_FOUND',
  // Ours: a path this listener serves, under another method (the answer's `Allow` names them).
  'METHOD_NOT_ALLOWED',
  // Ours: a record pruned under its tenant's retention limit (docs/TENANCY.md, "Retention").
  'RECORD_PRUNED',
  'CONFLICT',
  'RATE_LIMITED',
  'REVOCATION_UNAVAILABLE',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
  // The connector service's (docs/CONNECTORS.md): a provider's answer or the outbound policy.
  'CONNECTOR_NOT_CONFIGURED',
  'CREDENTIALS_REJECTED',
  'PROVIDER_REJECTED',
  'PROVIDER_UNAVAILABLE',
  'OUTBOUND_REFUSED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorCodeSchema = Type.Enum(ERROR_CODES);

export const ErrorDataSchema = Type.Object({
  code: ErrorCodeSchema,
  message: Type.String(),
});
export type ErrorData = Static<typeof ErrorDataSchema>;

/** A local error with a stable code; `cause` keeps the underlying failure for logs. */
export class SuiteError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SuiteError';
    this.code = code;
  }
  toData(): ErrorData {
    return { code: this.code, message: this.message };
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}
