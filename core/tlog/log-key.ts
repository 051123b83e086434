import { createPublicKey, type KeyObject } from 'node:crypto';
import { ed25519NoteSigner, ed25519NoteVerifier, formatVkey, rawEd25519PublicKey, SIG_ED25519, type NoteSigner, type NoteVerifier } from './note.ts';

export interface LogKey {
  signer: NoteSigner;
  verifier: NoteVerifier;
  /** `<origin>+<key ID>+<base64(0x01 || public key)>`. */
  vkey: string;
}

/** The log's checkpoint key: an Ed25519 note key named by the origin (tlog-checkpoint: the key name SHOULD be the origin). */
export function logKey(origin: string, privateKey: KeyObject): LogKey {
  const raw = rawEd25519PublicKey(createPublicKey(privateKey));
  return { signer: ed25519NoteSigner(origin, privateKey), verifier: ed25519NoteVerifier(origin, raw), vkey: formatVkey(origin, SIG_ED25519, raw) };
}
