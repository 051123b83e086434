/** The OAuth 2.1 front door's pure rules (docs/OAUTH.md): errors, scope strings, redirect URIs, metadata documents. */
export { oauthError, oauthStatus, type OAuthError, type OAuthErrorCode } from './errors.ts';
export { parseScopeParam, scopeBeyond } from './scope.ts';
export { redirectUriProblem, redirectUriMatches, isLoopback } from './redirect-uri.ts';
export { parseBasicAuth } from './basic-auth.ts';
export {
  authorizationServerMetadata,
  protectedResourceMetadata,
  OAUTH_PATHS,
  TOKEN_ENDPOINT_AUTH_METHODS,
  DEVICE_CODE_GRANT,
  TOKEN_EXCHANGE_GRANT,
  ASYMMETRIC_ALGS,
  type TokenEndpointAuthMethod,
  type MetadataInput,
} from './metadata.ts';
export { verifyDpopProofContent, normaliseHtu, DPOP_IAT_WINDOW_SECONDS, type DpopCheck, type DpopProofResult } from './dpop-proof.ts';
