/** The capability core: scopes, lifetimes, HMAC key ring, token minting and checking. */
export { isValidScope, scopeGrants, scopeGrantsOne } from './scope.ts';
export { parseDurationSeconds, MAX_LIFETIME_SECONDS } from './duration.ts';
export { createHmacKeyRing, kidFor, MIN_SECRET_LENGTH, type HmacKeyRing, type HmacKey } from './keys.ts';
export { mintToken, verifyToken, TOKEN_TYPE, type CapabilityClaims, type MintInput, type Minted } from './jwt.ts';
export { TokenChecker, type RevocationLookup, type CheckResult, type TokenCheckerOptions } from './verifier.ts';
