import type { ErrorData } from '../../bus/index.ts';
import type { HmacKeyRing } from '../../core/capability/index.ts';
import { verifyToken, type CapabilityClaims } from './jwt.ts';
import { VerifiedTokenCache } from './verified-cache.ts';

/** What the capability check needs to know about revocations (kept current from the bus). */
export interface RevocationLookup {
  isRevoked(jti: string): boolean;
  /** False when the view may be missing revocations (not synced, bus down, heartbeat late). */
  trusted(): boolean;
}

export interface TokenCheckerOptions {
  ring: HmacKeyRing;
  revocations: RevocationLookup;
  /** The audience (or audiences, any of them) a token's `aud` must name; unset: not checked. */
  audience?: string | readonly string[];
  /** Milliseconds since the epoch; injected for tests. */
  clock?: () => number;
  cacheSize?: number;
}

export type CheckResult = { ok: true; claims: CapabilityClaims } | { ok: false; error: ErrorData };

/**
 * The full check of a presented capability token, shared by the edge's capability check and by
 * `POST /auth/token/validate`: signature (cached per exact token text), expiry, audience, revocation.
 */
export class TokenChecker {
  readonly #ring: HmacKeyRing;
  readonly #revocations: RevocationLookup;
  readonly #audience: string | readonly string[] | undefined;
  readonly #clock: () => number;
  readonly #cache: VerifiedTokenCache;

  constructor(options: TokenCheckerOptions) {
    this.#ring = options.ring;
    this.#revocations = options.revocations;
    this.#audience = options.audience;
    this.#clock = options.clock ?? Date.now;
    this.#cache = new VerifiedTokenCache(options.cacheSize);
  }

  revocationTrusted(): boolean {
    return this.#revocations.trusted();
  }

  async check(token: string): Promise<CheckResult> {
    const now = Math.floor(this.#clock() / 1000);
    let claims = this.#cache.get(token);
    if (claims) {
      if (claims.exp <= now) {
        this.#cache.delete(token);
        return { ok: false, error: { code: 'TOKEN_EXPIRED', message: 'token has expired' } };
      }
    } else {
      const verified = await verifyToken(this.#ring, token, {
        now,
        ...(this.#audience !== undefined ? { audience: this.#audience } : {}),
      });
      if (!verified.ok) return verified;
      claims = verified.claims;
      this.#cache.set(token, claims);
    }
    // Audience is part of the cached verification (the configuration does not change at run time).
    if (this.#revocations.isRevoked(claims.jti)) {
      return { ok: false, error: { code: 'TOKEN_REVOKED', message: 'token has been revoked' } };
    }
    return { ok: true, claims };
  }
}
