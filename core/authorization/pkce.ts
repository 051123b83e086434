import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * PKCE (RFC 7636) as OAuth 2.1 and RFC 9700 §2.1.1 want it: S256 only (`plain` refused: it
 * protects nothing against an attacker who can read the authorization request).
 */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/; // RFC 7636 §4.1
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/; // BASE64URL(SHA-256) is 43 characters, no padding

/** Checks the authorization request's pair; a problem is said as an `invalid_request` description. */
export function challengeProblem(challenge: string | undefined, method: string | undefined): string | undefined {
  if (challenge === undefined) return 'code_challenge is required (PKCE)';
  if (method !== 'S256') return method === 'plain' ? 'code_challenge_method plain is not accepted; use S256' : 'code_challenge_method must be S256';
  if (!CHALLENGE.test(challenge)) return 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)';
  return undefined;
}

export const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** Does the token request's `code_verifier` answer the stored challenge (constant time)? */
export function verifierMatches(verifier: string | undefined, challenge: string): boolean {
  if (verifier === undefined || !VERIFIER.test(verifier)) return false;
  const a = Buffer.from(s256(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
