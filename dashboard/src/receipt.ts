import canonicalize from 'canonicalize';
import { checkSigned, hex, sha256, unbase64, type KeyLookup } from './verify';

/**
 * A record's receipt (GET /executions/{id}/receipt, docs/TRACE-FORMAT.md "Receipts") checked in the
 * browser with WebCrypto and public keys only, as core/tlog's verifyReceipt does on the server side
 * (which uses node:crypto, so it cannot run here): the record's hash and signature, its entry and
 * leaf, the checkpoint's Ed25519 note signature by the log's vkey, its origin and size, and the
 * RFC 9162 inclusion proof to the checkpoint's root. Witness cosignatures are counted, not checked:
 * this page holds no witness keys (suite verify and the client library take them).
 */
export interface ReceiptResult {
  ok: boolean;
  reason: string;
  leafIndex?: number;
  treeSize?: number;
  origin?: string;
  cosignatures: number;
}

interface Receipt {
  record: Record<string, unknown>;
  entry: string;
  leafIndex: number;
  treeSize: number;
  proof: string[];
  checkpoint: string;
}

const encoder = new TextEncoder();
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
const nodeHash = (l: Uint8Array, r: Uint8Array) => sha256(concat(Uint8Array.of(1), l, r));

/** A log vkey `<name>+<key ID>+<base64(0x01 || key)>`, its key ID checked; the reason when it is not one. */
async function logKeyOf(vkey: string): Promise<{ name: string; keyId: string; key: CryptoKey } | string> {
  const [name, keyId, b64, ...rest] = vkey.trim().split('+');
  const bytes = b64 === undefined ? null : unbase64(rest.length > 0 ? [b64, ...rest].join('+') : b64);
  if (!name || !keyId || bytes === null || bytes.length !== 33 || bytes[0] !== 1) return 'the log vkey is not an Ed25519 note key';
  const id = hex((await sha256(concat(encoder.encode(name), Uint8Array.of(0x0a), bytes))).subarray(0, 4));
  if (id !== keyId) return 'the log vkey key ID does not match its name and key';
  return { name, keyId, key: await crypto.subtle.importKey('raw', bytes.subarray(1) as BufferSource, { name: 'Ed25519' }, false, ['verify']) };
}

/**
 * RFC 9162 §2.1.3.2: does `proof` lead from leaf `index` of a tree of `size` to `root`? Every input is
 * the prover's word; checked against transparency-dev/merkle's published vectors (receipt.test.ts), as
 * core/tlog's verifyInclusion is.
 */
export async function verifyInclusionProof(index: number, size: number, leaf: Uint8Array, proof: Uint8Array[], root: Uint8Array): Promise<boolean> {
  // Hashes of the wrong size (an empty leaf and root would chain into a "match") and indexes a
  // number cannot hold exactly are refused before any is used, as core/tlog's rootFromInclusionProof does.
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (leaf.length !== 32 || root.length !== 32 || proof.some((p) => p.length !== 32)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && same(r, root);
}

export async function verifyReceiptInBrowser(receipt: Receipt, logVkey: string, keys: KeyLookup): Promise<ReceiptResult> {
  const fail = (reason: string, cosignatures = 0): ReceiptResult => ({ ok: false, reason, cosignatures });
  const { hash, signature, ...fields } = receipt.record;
  if (typeof hash !== 'string' || typeof signature !== 'string') return fail('the record has no hash or signature');
  const signed = canonicalize({ ...fields, v: 1, chain: 'executions' });
  if (signed === undefined) return fail('the record cannot be canonicalised');
  const problem = await checkSigned(encoder.encode(signed), hash, signature, fields.keyId, keys);
  if (problem !== null) return fail(problem);
  if (receipt.entry !== `${hash} ${signature} ${signed}`) return fail("the entry is not the record's export line");
  if (receipt.leafIndex !== (fields.seq as number) - 1) return fail(`leaf ${receipt.leafIndex} is not record ${String(fields.seq)}'s`);

  const log = await logKeyOf(logVkey);
  if (typeof log === 'string') return fail(log);
  const split = receipt.checkpoint.lastIndexOf('\n\n');
  if (split < 0) return fail('the checkpoint is not a signed note');
  const text = receipt.checkpoint.slice(0, split + 1);
  const lines = receipt.checkpoint
    .slice(split + 2)
    .split('\n')
    .filter((l) => l !== '');
  let signedByLog = false;
  let others = 0;
  for (const line of lines) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
    const bytes = m ? unbase64(m[2] as string) : null;
    if (!m || bytes === null || bytes.length < 5) return fail('a checkpoint signature line is malformed');
    if (m[1] !== log.name || hex(bytes.subarray(0, 4)) !== log.keyId) {
      others += 1;
      continue;
    }
    if (!(await crypto.subtle.verify({ name: 'Ed25519' }, log.key, bytes.subarray(4) as BufferSource, encoder.encode(text) as BufferSource)))
      return fail("the log's checkpoint signature does not verify");
    signedByLog = true;
  }
  if (!signedByLog) return fail('the checkpoint is not signed by the log key', others);
  const [origin, size, root] = text.split('\n');
  if (origin !== log.name) return fail(`a checkpoint of "${String(origin)}", not of "${log.name}"`, others);
  if (Number(size) !== receipt.treeSize) return fail(`the checkpoint is of size ${String(size)}, the proof of ${receipt.treeSize}`, others);
  const rootBytes = unbase64(root ?? '');
  const proof = receipt.proof.map(unbase64);
  if (rootBytes === null || rootBytes.length !== 32 || proof.some((p) => p === null || p.length !== 32))
    return fail('a hash is not 32 bytes of base64', others);
  const leaf = await sha256(concat(Uint8Array.of(0), encoder.encode(receipt.entry)));
  if (!(await verifyInclusionProof(receipt.leafIndex, receipt.treeSize, leaf, proof as Uint8Array[], rootBytes)))
    return fail("the inclusion proof does not lead to the checkpoint's root", others);
  return { ok: true, reason: 'verified', leafIndex: receipt.leafIndex, treeSize: receipt.treeSize, origin: log.name, cosignatures: others };
}
