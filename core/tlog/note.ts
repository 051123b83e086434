import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * C2SP signed-note (c2sp.org/signed-note): a text ending in a newline, a blank line, then one or
 * more lines `— <key name> base64(key ID || signature)`. Verification is pure and synchronous; keys
 * are given by the caller (trust material is never read from the note itself).
 */

/** Signature type bytes (signed-note "Signature types"). */
export const SIG_ED25519 = 0x01;
export const SIG_COSIGNATURE_V1 = 0x04;

/** Verifiers must accept at least 16 signatures; more than this is refused as malformed. */
const MAX_SIGNATURES = 100;
const EM_DASH = '\u2014';

export interface NoteSignature {
  readonly name: string;
  /** The 32-bit key ID, big-endian, as 8 hex digits. */
  readonly keyId: string;
  /** The signature bytes after the key ID. */
  readonly signature: Buffer;
}

export interface Note {
  /** The signed text, with its final newline. */
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

/** What verifies one kind of signature by one key. */
export interface NoteVerifier {
  readonly name: string;
  readonly keyId: string;
  verify(text: Buffer, signature: Buffer): boolean;
}

export interface NoteSigner {
  readonly name: string;
  readonly keyId: string;
  sign(text: Buffer): Buffer;
}

/** key ID = SHA-256(key name || 0x0A || signature type || public key)[:4], as 8 hex digits. */
export function noteKeyId(name: string, type: number, publicKey: Uint8Array): string {
  return createHash('sha256')
    .update(name)
    .update(Buffer.from([0x0a, type]))
    .update(publicKey)
    .digest()
    .subarray(0, 4)
    .toString('hex');
}

/** A key name: non-empty, no Unicode spaces, no `+` (signed-note "Format"). */
export function isKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name) && !hasControl(name);
}

/** The 32 raw bytes of an Ed25519 public key. */
export function rawEd25519PublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new TypeError('not an Ed25519 key');
  return Buffer.from(jwk.x, 'base64url');
}

export function ed25519PublicKeyFromRaw(raw: Uint8Array): KeyObject {
  if (raw.length !== 32) throw new TypeError('an Ed25519 public key is 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}

export function ed25519PrivateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes');
  // RFC 8410 PKCS#8 for Ed25519 is a fixed 16-byte prefix, then the seed.
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An Ed25519 note signer (type 0x01) named `name`. */
export function ed25519NoteSigner(name: string, privateKey: KeyObject): NoteSigner {
  if (!isKeyName(name)) throw new TypeError(`"${name}" is not a key name`);
  const raw = rawEd25519PublicKey(createPublicKey(privateKey));
  return { name, keyId: noteKeyId(name, SIG_ED25519, raw), sign: (text) => sign(null, text, privateKey) };
}

/** An Ed25519 note verifier (type 0x01). */
export function ed25519NoteVerifier(name: string, publicKey: Uint8Array): NoteVerifier {
  const key = ed25519PublicKeyFromRaw(publicKey);
  return { name, keyId: noteKeyId(name, SIG_ED25519, publicKey), verify: (text, sig) => sig.length === 64 && safeVerify(text, key, sig) };
}

export function safeVerify(message: Buffer, key: KeyObject, sig: Buffer): boolean {
  try {
    return verify(null, message, key, sig);
  } catch {
    return false;
  }
}

/** A verifier key, `<name>+<key ID hex>+<base64(type || public key)>`. */
export function formatVkey(name: string, type: number, publicKey: Uint8Array): string {
  return `${name}+${noteKeyId(name, type, publicKey)}+${Buffer.concat([Buffer.from([type]), publicKey]).toString('base64')}`;
}

export interface Vkey {
  name: string;
  keyId: string;
  type: number;
  publicKey: Buffer;
}

/** Parse a vkey; its key ID must be the one its name and key give. A reason in words when it is not one. */
export function parseVkey(vkey: string): Vkey | string {
  // The key is base64, which may hold `+` itself: only the first two separate fields.
  const first = vkey.indexOf('+');
  const second = first < 0 ? -1 : vkey.indexOf('+', first + 1);
  if (second < 0) return 'a vkey is <name>+<key ID>+<key>';
  const [name, keyId, key] = [vkey.slice(0, first), vkey.slice(first + 1, second), vkey.slice(second + 1)];
  if (!isKeyName(name)) return 'the vkey name is not a key name';
  if (!/^[0-9a-f]{8}$/.test(keyId)) return 'the vkey key ID is not 8 lowercase hex digits';
  const bytes = strictBase64(key);
  if (!bytes || bytes.length < 1) return 'the vkey key is not base64';
  const type = bytes[0] as number;
  const publicKey = bytes.subarray(1);
  if ((type === SIG_ED25519 || type === SIG_COSIGNATURE_V1) && publicKey.length !== 32) return 'an Ed25519 vkey holds 32 bytes of key';
  if (type !== SIG_ED25519 && type !== SIG_COSIGNATURE_V1) return `signature type 0x${type.toString(16)} is not supported`;
  if (noteKeyId(name, type, publicKey) !== keyId) return 'the vkey key ID does not match its name and key';
  return { name, keyId, type, publicKey: Buffer.from(publicKey) };
}

/** Sign `text` (ending in a newline) with each signer: the note, signature lines after a blank line. */
export function signNote(text: string, signers: readonly NoteSigner[], keep: readonly NoteSignature[] = []): string {
  if (!text.endsWith('\n') || hasControl(text.replaceAll('\n', ''))) throw new TypeError('a note text ends in a newline and has no other control characters');
  const bytes = Buffer.from(text);
  const lines = keep.map(signatureLine);
  for (const s of signers) lines.push(signatureLine({ name: s.name, keyId: s.keyId, signature: s.sign(bytes) }));
  return `${text}\n${lines.join('')}`;
}

export function signatureLine(s: NoteSignature): string {
  return `${EM_DASH} ${s.name} ${Buffer.concat([Buffer.from(s.keyId, 'hex'), s.signature]).toString('base64')}\n`;
}

/** Split a signed note into its text and signature lines; a reason in words when it is malformed. */
export function parseNote(message: string): Note | string {
  if (hasControl(message.replaceAll('\n', ''))) return 'a note has no control characters but newlines';
  if (message.includes('\uFFFD')) return 'a note is valid UTF-8';
  const split = message.lastIndexOf('\n\n');
  if (split < 0) return 'a note has a blank line before its signatures';
  const text = message.slice(0, split + 1);
  const block = message.slice(split + 2);
  if (!block.endsWith('\n')) return 'a note ends with a newline';
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) return 'too many signatures';
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
    if (!m) return 'a signature line is "— <name> <base64>"';
    const [, name, b64] = m as unknown as [string, string, string];
    const bytes = strictBase64(b64);
    if (!isKeyName(name) || !bytes || bytes.length < 5) return 'a signature line is "— <name> <base64>"';
    signatures.push({ name, keyId: bytes.subarray(0, 4).toString('hex'), signature: Buffer.from(bytes.subarray(4)) });
  }
  return { text, signatures };
}

export interface OpenedNote extends Note {
  /** Names of the verifiers whose signatures verified. */
  readonly verifiedBy: readonly string[];
}

/**
 * signed-note "Signatures": signatures of unknown keys are ignored; a known key's signature that
 * fails makes the whole note refused; at least one known key must have signed.
 */
export function openNote(message: string, verifiers: readonly NoteVerifier[]): OpenedNote | string {
  const note = parseNote(message);
  if (typeof note === 'string') return note;
  const bytes = Buffer.from(note.text);
  const verifiedBy: string[] = [];
  for (const s of note.signatures) {
    const v = verifiers.find((k) => k.name === s.name && k.keyId === s.keyId);
    if (!v) continue;
    if (!v.verify(bytes, s.signature)) return `the signature of ${s.name}+${s.keyId} does not verify`;
    if (!verifiedBy.includes(v.name)) verifiedBy.push(v.name);
  }
  if (verifiedBy.length === 0) return 'no signature by a known key';
  return { ...note, verifiedBy };
}

/** Standard base64 with padding, refused unless it re-encodes to itself (one encoding per value). */
export function strictBase64(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

function hasControl(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f]/.test(s);
}
