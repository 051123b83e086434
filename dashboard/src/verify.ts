import canonicalize from 'canonicalize';

/**
 * The in-browser verifier (docs/TRACE-FORMAT.md): hashes and Ed25519 signatures checked with
 * WebCrypto against the published public key, without calling the suite's verify route. Written
 * here rather than imported from core/chain, whose signing and hashing use node:crypto.
 */
export interface Check {
  seq: number | null;
  id: string | null;
  ok: boolean;
  reason: string;
}
export interface Report {
  kind: 'record' | 'chain';
  checked: number;
  valid: boolean;
  checks: Check[];
  firstFailure: Check | null;
}

/** The public key of a keyId, as WebCrypto wants it; throws with a reason a person can read. */
export type KeyLookup = (keyId: string) => Promise<CryptoKey>;

const GENESIS = '0'.repeat(64);
const encoder = new TextEncoder();

export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as BufferSource));
}
export const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
export function unbase64(s: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export async function importPublicKeyPem(pem: string): Promise<CryptoKey> {
  const body = pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  const der = unbase64(body);
  if (der === null) throw new Error('the published key is not PEM');
  return crypto.subtle.importKey('spki', der as BufferSource, { name: 'Ed25519' }, false, ['verify']);
}

/** One signed record: its bytes hash to `hash`, and `signature` is the key's over those 32 bytes. */
export async function checkSigned(signed: Uint8Array, hash: string, signature: string, keyId: unknown, keys: KeyLookup): Promise<string | null> {
  const digest = await sha256(signed);
  if (hex(digest) !== hash) return `hash mismatch: the signed fields hash to ${hex(digest).slice(0, 16)}…, the record says ${String(hash).slice(0, 16)}…`;
  if (typeof keyId !== 'string') return 'no keyId in the signed fields';
  let key: CryptoKey;
  try {
    key = await keys(keyId);
  } catch (err) {
    return `public key ${keyId} unavailable: ${(err as Error).message}`;
  }
  const sig = unbase64(signature);
  if (sig === null || sig.length !== 64) return 'signature is not 64 bytes of base64';
  const ok = await crypto.subtle.verify({ name: 'Ed25519' }, key, sig as BufferSource, digest as BufferSource);
  return ok ? null : `signature does not verify with ${keyId}`;
}

interface Entry {
  seq: number | null;
  id: string | null;
  prevHash: unknown;
  hash: string;
  problem: string | null;
}

async function recordEntry(record: Record<string, unknown>, keys: KeyLookup): Promise<Entry> {
  const { hash, signature, ...fields } = record;
  const seq = typeof record.seq === 'number' ? record.seq : null;
  const id = typeof record.id === 'string' ? record.id : null;
  if (typeof hash !== 'string' || typeof signature !== 'string')
    return { seq, id, prevHash: record.prevHash, hash: String(hash), problem: 'hash or signature missing' };
  const text = canonicalize({ ...fields, v: 1, chain: 'executions' });
  if (text === undefined) return { seq, id, prevHash: record.prevHash, hash, problem: 'the record cannot be canonicalised' };
  const problem = await checkSigned(encoder.encode(text), hash, signature, fields.keyId, keys);
  return { seq, id, prevHash: record.prevHash, hash, problem };
}

/** A line of an export file: `<hash> <signature> <signed bytes>`. */
async function lineEntry(line: string, keys: KeyLookup): Promise<Entry> {
  const first = line.indexOf(' ');
  const second = line.indexOf(' ', first + 1);
  if (first < 0 || second < 0) return { seq: null, id: null, prevHash: null, hash: '', problem: 'not a record line (hash, signature, signed bytes)' };
  const hash = line.slice(0, first);
  const signature = line.slice(first + 1, second);
  const signedText = line.slice(second + 1);
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(signedText) as Record<string, unknown>;
  } catch {
    return { seq: null, id: null, prevHash: null, hash, problem: 'the signed bytes are not JSON' };
  }
  const seq = typeof fields.seq === 'number' ? fields.seq : null;
  const id = typeof fields.id === 'string' ? fields.id : null;
  const problem = await checkSigned(encoder.encode(signedText), hash, signature, fields.keyId, keys);
  return { seq, id, prevHash: fields.prevHash, hash, problem };
}

/** Links: each record follows the one before it (seq + 1, prevHash = its hash); record 1 follows genesis. */
function link(entries: Entry[]): Check[] {
  return entries.map((e, i) => {
    const prev = entries[i - 1];
    let problem = e.problem;
    if (problem === null && prev !== undefined && prev.seq !== null && e.seq !== prev.seq + 1)
      problem = `seq ${e.seq} follows ${prev.seq}: records are missing or out of order`;
    if (problem === null && prev !== undefined && e.prevHash !== prev.hash) problem = `prevHash is not the hash of record ${prev.seq}`;
    if (problem === null && prev === undefined && e.seq === 1 && e.prevHash !== GENESIS) problem = 'record 1 must follow the genesis hash (64 zeros)';
    return { seq: e.seq, id: e.id, ok: problem === null, reason: problem ?? 'hash, signature and link check' };
  });
}

/** A pasted record (JSON object), a list of records (JSON array), or an export file (GET /executions/export). */
export async function verifyText(text: string, keys: KeyLookup): Promise<Report> {
  const trimmed = text.trim();
  let entries: Entry[];
  let kind: Report['kind'] = 'chain';
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (err) {
      throw new Error(`not JSON: ${(err as Error).message}`);
    }
    const records = Array.isArray(parsed) ? parsed : [parsed];
    if (!Array.isArray(parsed)) kind = 'record';
    entries = [];
    for (const r of records) entries.push(await recordEntry(r as Record<string, unknown>, keys));
  } else {
    const lines = trimmed
      .split('\n')
      .map((l) => l.replace(/\r$/, ''))
      .filter((l) => l !== '' && !l.startsWith('#'));
    entries = [];
    for (const l of lines) entries.push(await lineEntry(l, keys));
  }
  const checks =
    kind === 'record' ? entries.map((e) => ({ seq: e.seq, id: e.id, ok: e.problem === null, reason: e.problem ?? 'hash and signature check' })) : link(entries);
  const firstFailure = checks.find((c) => !c.ok) ?? null;
  return { kind, checked: checks.length, valid: checks.length > 0 && firstFailure === null, checks, firstFailure };
}
