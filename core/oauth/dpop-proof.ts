import { createHash } from 'node:crypto';
import { EmbeddedJWK, calculateJwkThumbprint, jwtVerify, type JWK } from 'jose';
import { ASYMMETRIC_ALGS } from './metadata.ts';

/** How far a proof's `iat` may be from our clock (RFC 9449 §11.1: "a reasonable window"). */
export const DPOP_IAT_WINDOW_SECONDS = 60;

export interface DpopCheck {
  /** The request's method and URL (compared without query and fragment, RFC 9449 §4.3 items 8-9). */
  htm: string;
  htu: string;
  now: number;
  /** The access token the proof must hash (`ath`, §4.3 item 11), at resource servers. */
  accessToken?: string;
}

export type DpopProofResult = { ok: true; jkt: string; jti: string; iat: number } | { ok: false; problem: string };

/** `htu` compared without query and fragment, scheme and host case-folded (RFC 9449 §4.3, RFC 3986 §6.2.2). */
export function normaliseHtu(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return undefined;
  }
}

/**
 * Verify a DPoP proof's content (RFC 9449 §4.3): `typ: dpop+jwt`, an asymmetric `alg` we accept, a public
 * key in `jwk` (jose refuses a private one), signature, `htm`, `htu`, `iat` within the window, a `jti`,
 * `ath` when a token is presented with it. Computation only: the `jti` replay check is the caller's
 * (durable at the token endpoint, per process at the edges).
 */
export async function verifyDpopProofContent(proof: string, check: DpopCheck): Promise<DpopProofResult> {
  if (proof.length > 8192) return { ok: false, problem: 'the DPoP proof is too long' };
  let payload;
  let jwk: JWK;
  try {
    const verified = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...ASYMMETRIC_ALGS] });
    payload = verified.payload;
    jwk = verified.protectedHeader.jwk as JWK;
  } catch (err) {
    return { ok: false, problem: `the DPoP proof does not verify (${(err as { code?: string }).code ?? 'ERR_JOSE'})` };
  }
  if (payload.htm !== check.htm) return { ok: false, problem: 'the DPoP proof is for another HTTP method' };
  const htu = typeof payload.htu === 'string' ? normaliseHtu(payload.htu) : undefined;
  if (htu === undefined || htu !== normaliseHtu(check.htu)) return { ok: false, problem: 'the DPoP proof is for another URL' };
  if (typeof payload.iat !== 'number' || Math.abs(payload.iat - check.now) > DPOP_IAT_WINDOW_SECONDS) {
    return { ok: false, problem: "the DPoP proof's iat is outside the accepted window" };
  }
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 256) return { ok: false, problem: 'the DPoP proof has no jti' };
  if (check.accessToken !== undefined) {
    const ath = createHash('sha256').update(check.accessToken, 'ascii').digest('base64url');
    if (payload.ath !== ath) return { ok: false, problem: "the DPoP proof's ath does not hash the access token" };
  }
  return { ok: true, jkt: await calculateJwkThumbprint(jwk, 'sha256'), jti: payload.jti, iat: payload.iat };
}
