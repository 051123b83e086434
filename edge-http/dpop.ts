import type { FastifyRequest } from 'fastify';
import type { ErrorData } from '../bus/index.ts';
import { DPOP_IAT_WINDOW_SECONDS, verifyDpopProofContent } from '../core/oauth/index.ts';
import type { CapabilityVerifier, Principal } from './authority.ts';

/**
 * The token of an `Authorization` header: `Bearer <token>` or `DPoP <token>` (RFC 9449 §7.1), the
 * scheme case-insensitive; null when neither.
 */
export function presentedToken(header: string): { scheme: 'bearer' | 'dpop'; token: string } | null {
  const m = /^(bearer|dpop) +(\S+)\s*$/i.exec(header);
  if (m === null) return null;
  return { scheme: (m[1] as string).toLowerCase() as 'bearer' | 'dpop', token: m[2] as string };
}

/**
 * The `jti`s of DPoP proofs this process has accepted, kept for the proof window: a proof replayed to
 * the same edge is refused without asking anyone. A replay to another edge process is caught by the
 * shared check after it (CapabilityVerifier.dpopFirstUse: the OAuth actor's durable jti table).
 */
export class DpopReplayCache {
  readonly #seen = new Map<string, number>();
  readonly #max: number;
  constructor(max = 100_000) {
    this.#max = max;
  }
  firstUse(key: string, now: number): boolean {
    if (this.#seen.has(key)) return false;
    if (this.#seen.size >= this.#max) {
      for (const [k, until] of this.#seen) if (until < now) this.#seen.delete(k);
      // Still full of live proofs: refuse rather than forget one (fail closed).
      if (this.#seen.size >= this.#max) return false;
    }
    this.#seen.set(key, now + 2 * DPOP_IAT_WINDOW_SECONDS);
    return true;
  }
}

const processCache = new DpopReplayCache();

/**
 * RFC 9449 §7: a token bound to a key (`cnf.jkt`) is accepted only as `Authorization: DPoP` with a proof
 * by that key for this method and URL, hashing this token (`ath`), not seen before; never as Bearer. A
 * token not bound is accepted as Bearer only. Undefined: the presentation is right.
 */
export async function presentationProblem(
  request: FastifyRequest,
  principal: Principal,
  scheme: 'bearer' | 'dpop',
  token: string,
  shared?: CapabilityVerifier['dpopFirstUse'],
  cache: DpopReplayCache = processCache,
): Promise<ErrorData | undefined> {
  const bad = (message: string): ErrorData => ({ code: 'TOKEN_INVALID', message });
  if (principal.jkt === undefined) return scheme === 'dpop' ? bad('the token is not DPoP-bound: present it as Bearer') : undefined;
  if (scheme !== 'dpop') return bad('the token is DPoP-bound: present it as "Authorization: DPoP" with a DPoP proof');
  const proof = request.headers.dpop;
  if (typeof proof !== 'string') return bad('a DPoP-bound token needs exactly one DPoP header');
  const now = Math.floor(Date.now() / 1000);
  const url = `${request.protocol}://${request.host}${request.url}`;
  const checked = await verifyDpopProofContent(proof, { htm: request.method, htu: url, now, accessToken: token });
  if (!checked.ok) return bad(checked.problem);
  if (checked.jkt !== principal.jkt) return bad('the DPoP proof is signed by another key than the token is bound to');
  if (!cache.firstUse(`${checked.jkt}:${checked.jti}`, now)) return bad('the DPoP proof was already used (jti replay)');
  if (shared === undefined) return undefined;
  const verdict = await shared(checked.jkt, checked.jti, checked.iat + 2 * DPOP_IAT_WINDOW_SECONDS);
  if (verdict === 'replay') return bad('the DPoP proof was already used (jti replay, at another edge)');
  if (verdict === 'unavailable') return { code: 'SERVICE_UNAVAILABLE', message: 'the DPoP replay check is unavailable; nothing was done; try again shortly' };
  return undefined;
}
