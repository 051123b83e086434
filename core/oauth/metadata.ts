/**
 * The authorization server's metadata (RFC 8414 §2) and the protected resource's (RFC 9728 §2), from
 * the issuer URL alone, so that every replica answers the same document.
 */
export const OAUTH_PATHS = Object.freeze({
  token: '/oauth/token',
  registration: '/oauth/register',
  introspection: '/oauth/introspect',
  revocation: '/oauth/revoke',
  authorization: '/oauth/authorize',
  deviceAuthorization: '/oauth/device_authorization',
});

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

export const TOKEN_ENDPOINT_AUTH_METHODS = Object.freeze(['private_key_jwt', 'client_secret_basic', 'client_secret_post', 'none'] as const);
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

/** Signature algorithms accepted for client assertions and DPoP proofs: Ed25519 under both JOSE names (RFC 9864), and P-256. */
export const ASYMMETRIC_ALGS = Object.freeze(['EdDSA', 'Ed25519', 'ES256'] as const);

export interface MetadataInput {
  issuer: string;
  grantTypes: readonly string[];
  scopes: readonly string[];
}

export function authorizationServerMetadata(m: MetadataInput): Record<string, unknown> {
  const at = (path: string) => `${m.issuer}${path}`;
  return {
    issuer: m.issuer,
    // RFC 8414 §2 makes it REQUIRED and clients (the MCP SDK's metadata schema) refuse a document
    // without it, so it is always named; the device endpoint only with its grant.
    authorization_endpoint: at(OAUTH_PATHS.authorization),
    token_endpoint: at(OAUTH_PATHS.token),
    registration_endpoint: at(OAUTH_PATHS.registration),
    introspection_endpoint: at(OAUTH_PATHS.introspection),
    revocation_endpoint: at(OAUTH_PATHS.revocation),
    ...(m.grantTypes.includes(DEVICE_CODE_GRANT) ? { device_authorization_endpoint: at(OAUTH_PATHS.deviceAuthorization) } : {}),
    grant_types_supported: [...m.grantTypes],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    token_endpoint_auth_signing_alg_values_supported: [...ASYMMETRIC_ALGS],
    introspection_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS.filter((x) => x !== 'none'),
    introspection_endpoint_auth_signing_alg_values_supported: [...ASYMMETRIC_ALGS],
    revocation_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    revocation_endpoint_auth_signing_alg_values_supported: [...ASYMMETRIC_ALGS],
    code_challenge_methods_supported: ['S256'],
    dpop_signing_alg_values_supported: [...ASYMMETRIC_ALGS],
    scopes_supported: [...m.scopes],
    authorization_response_iss_parameter_supported: true,
  };
}

export function protectedResourceMetadata(resource: string, issuer: string, scopes: readonly string[]): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...scopes],
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: [...ASYMMETRIC_ALGS],
    resource_name: 'Agent Authority Suite MCP server',
  };
}
