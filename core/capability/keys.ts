import { createHash } from 'node:crypto';

/**
 * HMAC signing keys for capability tokens. The newest secret signs; every configured secret
 * validates, so secrets can rotate without invalidating live tokens. A key id (`kid`) names which
 * secret signed a token; it is derived from the secret by a one-way hash, so it reveals nothing.
 */
export interface HmacKey {
  readonly kid: string;
  readonly key: CryptoKey;
}

export interface HmacKeyRing {
  readonly signing: HmacKey;
  byKid(kid: string): HmacKey | undefined;
  readonly kids: readonly string[];
}

export const MIN_SECRET_LENGTH = 32;

export function kidFor(secret: string): string {
  const digest = createHash('sha256').update('suite-kid\0').update(secret).digest('base64url');
  return `hs256-${digest.slice(0, 12)}`;
}

/** Build the key ring; `secrets[0]` is the newest and signs. */
export async function createHmacKeyRing(secrets: readonly string[]): Promise<HmacKeyRing> {
  if (secrets.length === 0) throw new Error('at least one HMAC secret is required');
  const keys: HmacKey[] = [];
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new Error(`HMAC secrets must be at least ${MIN_SECRET_LENGTH} characters`);
    }
    // Imported once: jose would otherwise import raw bytes on every verification.
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.push({ kid: kidFor(secret), key });
  }
  const map = new Map(keys.map((k) => [k.kid, k]));
  return Object.freeze({
    signing: keys[0] as HmacKey,
    byKid: (kid: string) => map.get(kid),
    kids: [...map.keys()],
  });
}
