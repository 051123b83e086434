import { sign, createPublicKey, type KeyObject } from 'node:crypto';
import {
  SIG_COSIGNATURE_V1,
  ed25519PublicKeyFromRaw,
  isKeyName,
  noteKeyId,
  rawEd25519PublicKey,
  safeVerify,
  type NoteSignature,
  type NoteVerifier,
} from './note.ts';

/**
 * C2SP tlog-cosignature, Ed25519 (`cosignature/v1`): a note signature over
 * `cosignature/v1\ntime <T>\n` followed by the checkpoint's text, whose bytes are the 8-byte
 * big-endian timestamp T (POSIX seconds) then the 64-byte signature. Key ID with type 0x04.
 */
export function cosignedMessage(checkpointText: string, time: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${time}\n${checkpointText}`);
}

export interface Cosigner {
  readonly name: string;
  readonly keyId: string;
  readonly publicKey: Buffer;
  /** The cosignature of a checkpoint text at `time` (seconds), as a note signature. */
  cosign(checkpointText: string, time: number): NoteSignature;
}

export function ed25519Cosigner(name: string, privateKey: KeyObject): Cosigner {
  if (!isKeyName(name)) throw new TypeError(`"${name}" is not a key name`);
  const publicKey = rawEd25519PublicKey(createPublicKey(privateKey));
  const keyId = noteKeyId(name, SIG_COSIGNATURE_V1, publicKey);
  return {
    name,
    keyId,
    publicKey,
    cosign(checkpointText, time) {
      if (!Number.isSafeInteger(time) || time < 0) throw new RangeError('a cosignature time is POSIX seconds');
      const stamp = Buffer.alloc(8);
      stamp.writeBigUInt64BE(BigInt(time));
      return { name, keyId, signature: Buffer.concat([stamp, sign(null, cosignedMessage(checkpointText, time), privateKey)]) };
    },
  };
}

/** The time a cosignature names (seconds), or undefined when it is not 72 bytes or beyond 2^63 - 1. */
export function cosignatureTime(signature: Buffer): number | undefined {
  if (signature.length !== 72) return undefined;
  const t = signature.readBigUInt64BE(0);
  if (t > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(t);
}

/** A note verifier for a cosigner's cosignatures: verifies over the cosigned message at the stamped time. */
export function cosignatureVerifier(name: string, publicKey: Uint8Array): NoteVerifier {
  const key = ed25519PublicKeyFromRaw(publicKey);
  return {
    name,
    keyId: noteKeyId(name, SIG_COSIGNATURE_V1, publicKey),
    verify(text, signature) {
      const time = cosignatureTime(signature);
      if (time === undefined) return false;
      return safeVerify(cosignedMessage(text.toString('utf8'), time), key, signature.subarray(8));
    },
  };
}
