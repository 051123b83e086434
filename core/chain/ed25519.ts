import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/**
 * The one crypto seam for trace signatures (RFC 8032 Ed25519 through node:crypto). A signature is
 * over the 32 raw bytes of a record's SHA-256 hash, so `openssl pkeyutl -verify -rawin` checks it
 * with no code of ours (docs/TRACE-FORMAT.md).
 */
export interface TraceSigner {
  readonly keyId: string;
  readonly publicKeyPem: string;
  /** True when the key was generated for this process (no configured key): earlier traces stop verifying. */
  readonly ephemeral: boolean;
  /** Base64 signature of the hash given in hex. */
  sign(hashHex: string): string;
  /** Base64 signatures of several hashes, on the signing thread when the signer has one. */
  signMany(hashesHex: readonly string[]): Promise<string[]>;
  /** Stop the signing thread, if any. */
  close(): Promise<void>;
}

/** Signs batches elsewhere (actors/chain: a worker thread), so the thread that serves HTTP stays free. */
export interface BatchSigner {
  sign(hashesHex: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

export interface TraceSignerOptions {
  /** Sign batches (`signMany`) with this rather than on the calling thread; injected, so this file does no I/O. */
  batches?: (privateKey: KeyObject) => BatchSigner;
}

/** `ed25519-` and the first 16 hex digits of the SHA-256 of the public key's SPKI DER encoding. */
export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return `ed25519-${createHash('sha256').update(der).digest('hex').slice(0, 16)}`;
}

export function createTraceSigner(privateKeyPem: string | undefined, options: TraceSignerOptions = {}): TraceSigner {
  const ephemeral = privateKeyPem === undefined;
  const privateKey = ephemeral ? generateKeyPairSync('ed25519').privateKey : createPrivateKey(privateKeyPem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new TypeError('the trace signing key must be an Ed25519 private key');
  const publicKey = createPublicKey(privateKey);
  const signOne = (hashHex: string) => sign(null, Buffer.from(hashHex, 'hex'), privateKey).toString('base64');
  const thread = options.batches?.(privateKey);
  return Object.freeze({
    keyId: keyIdOf(publicKey),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    ephemeral,
    sign: signOne,
    // A batch of one (requests that come one at a time) is signed here: the hop to the thread and
    // back (a message each way, the thread's wake-up) costs more than one signature, and the answer
    // waits for it. Batches of several, what a busy suite makes, go to the thread.
    signMany: (hashesHex: readonly string[]) => (thread && hashesHex.length > 1 ? thread.sign(hashesHex) : Promise.resolve(hashesHex.map(signOne))),
    close: () => thread?.close() ?? Promise.resolve(),
  });
}

/** Parse a PEM public key and check it is Ed25519 (identities, supplied verification keys). */
export function ed25519PublicKey(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new TypeError('not an Ed25519 public key');
  return key;
}

/** Constant-shape check: malformed signatures are simply false. */
export function verifyHashSignature(publicKey: KeyObject, hashHex: string, signatureB64: string): boolean {
  try {
    return verify(null, Buffer.from(hashHex, 'hex'), publicKey, Buffer.from(signatureB64, 'base64'));
  } catch {
    return false;
  }
}
