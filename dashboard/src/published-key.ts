import { importPublicKeyPem } from './verify';

/** Trace keys come from the published route (no credential), one fetch per keyId. */
const keyCache = new Map<string, Promise<CryptoKey>>();
export function publishedKey(keyId: string): Promise<CryptoKey> {
  let k = keyCache.get(keyId);
  if (k === undefined) {
    k = (async () => {
      const r = await fetch(`/executions/public-key?keyId=${encodeURIComponent(keyId)}`);
      if (!r.ok) throw new Error(`GET /executions/public-key answered ${r.status}`);
      const body = (await r.json()) as { publicKey: string };
      return importPublicKeyPem(body.publicKey);
    })();
    k.catch(() => keyCache.delete(keyId));
    keyCache.set(keyId, k);
  }
  return k;
}
