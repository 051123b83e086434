/** `GET /oauth/clients` (services/oauth/clients.ts, OAuthClientSchema): no secrets. */
export interface OAuthClient {
  clientId: string;
  clientName: string;
  tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';
  grantTypes: string[];
  redirectUris: string[];
  /** The ceiling: no token of this client exceeds it. */
  scope: string[];
  jwks: { keys: unknown[] } | null;
  registeredBy: string;
  tenantId: string | null;
  createdAt: string;
}

/** `GET /oauth/issuers`: the trusted issuers of token exchange (SUITE_OAUTH_TRUSTED_ISSUERS, docs/OAUTH.md). */
export interface TrustedIssuer {
  issuer: string;
  audience: string;
  /** Where its keys come from: given in the file (`inline`) or fetched from its `jwksUri` (`uri`). */
  jwksSource: string;
  subjects: Array<{ match: string; scope: string[]; maxLifetime: string }>;
}

/** `GET /oauth/grants?limit=N`: the token endpoint's latest answers, granted or refused. */
export interface GrantRow {
  at: string;
  grantType: string;
  clientId: string | null;
  sub: string | null;
  outcome: string;
  error?: string;
  scope: string[] | string | null;
}

/** Listing and deleting clients needs this scope (or the admin key). */
export const CLIENT_ADMIN_SCOPE = 'oauth:client:admin';
/** Reading the issuers and the grants needs this one (or the admin key). */
export const OAUTH_READ_SCOPE = 'oauth:read';

/** The grant types as people say them; an unknown one is shown as sent. */
const GRANT_NAMES: Record<string, string> = {
  client_credentials: 'client credentials',
  authorization_code: 'authorization code',
  refresh_token: 'refresh token',
  'urn:ietf:params:oauth:grant-type:device_code': 'device code',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'token exchange',
};
export const grantName = (g: string) => GRANT_NAMES[g] ?? g;
export const scopeText = (s: string[] | string | null | undefined) => (s == null ? '—' : Array.isArray(s) ? (s.length > 0 ? s.join(' ') : '—') : s || '—');
