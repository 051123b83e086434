import { executionCanonicalJson, executionHash, verifyHashSignature, type ExecutionRecord, type KeyLookup } from '../chain/index.ts';
import { leafHash } from './hash.ts';
import { strictBase64 } from './note.ts';
import { verifyInclusion } from './proof.ts';
import { openCheckpoint, type CheckpointPolicy } from './signed-checkpoint.ts';

/** `GET /executions/{id}/receipt` as a client holds it (bus/schemas/execution-log.ts LogReceiptReply). */
export interface ExecutionReceipt {
  format: 'execution-receipt/v1';
  record: ExecutionRecord;
  entry: string;
  leafIndex: number;
  treeSize: number;
  proof: string[];
  checkpoint: string;
}

export type ReceiptVerification = { ok: true; leafIndex: number; treeSize: number; cosignedBy: string[] } | { ok: false; reason: string };

/**
 * Verify a receipt offline, with public keys only (docs/TRACE-FORMAT.md, "Receipts"): the record's
 * hash and signature (trace key by keyId), that the entry is the record's export line and its leaf
 * is `seq - 1`, the checkpoint (log key, origin, witness quorum), and the inclusion proof against
 * the checkpoint's root. Every field is the sender's word until checked here.
 */
export function verifyReceipt(receipt: ExecutionReceipt, keys: KeyLookup, policy: CheckpointPolicy): ReceiptVerification {
  const fail = (reason: string): ReceiptVerification => ({ ok: false, reason });
  if (receipt.format !== 'execution-receipt/v1') return fail('not an execution receipt (format execution-receipt/v1)');
  const r = receipt.record;
  let canonical: string;
  let hash: string;
  try {
    canonical = executionCanonicalJson(r);
    hash = executionHash(r);
  } catch {
    return fail('the record is not a record');
  }
  if (hash !== r.hash) return fail('the record does not match its hash');
  const key = keys(r.keyId);
  if (!key) return fail(`no public key for keyId ${r.keyId}`);
  if (!verifyHashSignature(key, r.hash, r.signature)) return fail('the record signature does not verify');
  if (receipt.entry !== `${r.hash} ${r.signature} ${canonical}`) return fail("the entry is not the record's export line");
  if (receipt.leafIndex !== r.seq - 1) return fail(`leaf ${receipt.leafIndex} is not record ${r.seq}'s (seq - 1)`);
  const cp = openCheckpoint(receipt.checkpoint, policy);
  if (typeof cp === 'string') return fail(cp);
  if (cp.checkpoint.size !== receipt.treeSize) return fail(`the checkpoint is of size ${cp.checkpoint.size}, the proof of ${receipt.treeSize}`);
  const proof = receipt.proof.map(strictBase64);
  if (proof.some((p) => p === undefined)) return fail('a proof hash is not base64');
  if (!verifyInclusion(receipt.leafIndex, receipt.treeSize, leafHash(Buffer.from(receipt.entry)), proof as Buffer[], cp.checkpoint.root)) {
    return fail("the inclusion proof does not lead to the checkpoint's root");
  }
  return { ok: true, leafIndex: receipt.leafIndex, treeSize: receipt.treeSize, cosignedBy: cp.cosignedBy };
}
