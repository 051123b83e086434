import type { CapabilityClaims } from './jwt.ts';

/**
 * Remembers tokens whose signature and claims already verified, keyed by the exact token text, so
 * a token used many times costs one HMAC check. Only the signature work is cached: expiry, audience
 * and revocation are checked again on every use. Bounded; the oldest entry goes first.
 */
export class VerifiedTokenCache {
  readonly #max: number;
  readonly #entries = new Map<string, CapabilityClaims>();

  constructor(max = 10_000) {
    this.#max = max;
  }

  get(token: string): CapabilityClaims | undefined {
    return this.#entries.get(token);
  }

  set(token: string, claims: CapabilityClaims): void {
    if (this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(token, claims);
  }

  delete(token: string): void {
    this.#entries.delete(token);
  }

  get size(): number {
    return this.#entries.size;
  }
}
