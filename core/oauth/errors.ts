/**
 * RFC 6749 §5.2 error answers. The token, registration, introspection and revocation endpoints answer
 * these instead of the suite's `{error:{code,message}}` (docs/OAUTH.md): clients written to the RFCs
 * read `error` and `error_description`, never our codes.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_dpop_proof'
  | 'invalid_client_metadata'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'invalid_redirect_uri'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable';

export interface OAuthError {
  readonly error: OAuthErrorCode;
  readonly error_description: string;
}

/** The HTTP status each error answers with: 401 for client authentication (§5.2), 503 when the suite cannot decide, else 400. */
export function oauthStatus(code: OAuthErrorCode): number {
  if (code === 'invalid_client' || code === 'invalid_token') return 401;
  if (code === 'insufficient_scope') return 403;
  if (code === 'server_error') return 500;
  if (code === 'temporarily_unavailable') return 503;
  return 400;
}

export function oauthError(error: OAuthErrorCode, description: string): OAuthError {
  return { error, error_description: description };
}
