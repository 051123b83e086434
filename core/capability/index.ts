/** Scopes, token lifetimes and the HMAC key ring: the capability rules, with no I/O. */
export { isValidScope, scopeGrants, scopeGrantsOne } from './scope.ts';
export { parseDurationSeconds, MAX_LIFETIME_SECONDS } from './duration.ts';
export { createHmacKeyRing, kidFor, MIN_SECRET_LENGTH, type HmacKeyRing, type HmacKey } from './keys.ts';
export { isCanonicalBase64url, hasDuplicateKeys, tokenClaimsProblem, TOKEN_CLOCK_SKEW_SECONDS } from './token-shape.ts';
export { decideValidity, VALIDATE_ACTION, type TokenVerdict, type ValidityAnswer, type ValidityEntry } from './validity.ts';
export { SUITE_SCOPES, SUITE_RESOURCES, suiteScopeProblem, editDistance } from './suite-scopes.ts';
