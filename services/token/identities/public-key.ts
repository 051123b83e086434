import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';

export type ParsedPublicKey = { ok: true; pem: string; keyId: string } | { ok: false; problem: string };

const BEGIN = '-----BEGIN PUBLIC KEY-----';
const END = '-----END PUBLIC KEY-----';

/**
 * Accept exactly one PEM "PUBLIC KEY" block (SPKI) holding an Ed25519 key. `createPublicKey` alone
 * is not enough: given a private key or a certificate it derives the public key, and enrolment must
 * never receive (or seem to accept) a private key. The key is re-exported, so one key has one
 * spelling whatever line endings it came with. Problems name `publicKeyPem` and never quote it.
 */
export function parseEd25519PublicKey(pem: string): ParsedPublicKey {
  const text = pem.trim();
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(text)) {
    return { ok: false, problem: 'publicKeyPem is a private key; enrol the public key only and keep the private key with the agent' };
  }
  if (!text.startsWith(BEGIN) || !text.endsWith(END) || text.split('-----BEGIN').length !== 2) {
    return { ok: false, problem: `publicKeyPem must be one PEM block "${BEGIN}" (SPKI) holding an Ed25519 public key` };
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: text, format: 'pem' });
  } catch {
    return { ok: false, problem: 'publicKeyPem is not a readable PEM public key' };
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    return { ok: false, problem: `publicKeyPem holds a ${key.asymmetricKeyType ?? 'unknown'} key; an Ed25519 key is required` };
  }
  return { ok: true, pem: key.export({ type: 'spki', format: 'pem' }) as string, keyId: keyIdOf(key) };
}

/** A short name for a key in audit entries: SHA-256 of its SPKI DER, 16 hex digits. */
function keyIdOf(key: KeyObject): string {
  return `ed25519-${createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16)}`;
}

/** Base64 (standard or URL alphabet, padding optional) of exactly the 64 bytes of an Ed25519 signature. */
const SIGNATURE = /^[A-Za-z0-9+/_-]{86}(?:==)?$/;

/**
 * Spec, "Token request": `signature` is the base64 Ed25519 signature of the UTF-8 bytes of `nonce`.
 * The nonce and signature come from the caller (attacker-controlled): a malformed signature is
 * simply one that does not verify.
 */
export function proofSignatureVerifies(publicKeyPem: string, nonce: string, signature: string): boolean {
  if (!SIGNATURE.test(signature)) return false;
  const bytes = Buffer.from(signature.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 64) return false;
  return verify(null, Buffer.from(nonce, 'utf8'), createPublicKey(publicKeyPem), bytes);
}
