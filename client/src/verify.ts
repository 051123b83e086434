/**
 * Offline verification with the suite's own code (core/chain), not a copy: a record, or an export
 * file of the chain, checked against the published Ed25519 public key with no call to the suite.
 * Node only (node:crypto); in a browser, the dashboard's WebCrypto verifier does the same checks.
 * Its own entry point (`@agent-authority/client/verify`), so the HTTP client stays browser-safe.
 */
import type { KeyObject } from 'node:crypto';
import {
  checkExecution,
  ed25519PublicKey,
  ExportVerifier,
  keyIdOf,
  type ExecutionRecord,
  type ExportVerification,
  type KeyLookup,
} from '../../core/chain/index.ts';

import { checkpointPolicyOf, verifyReceipt as verifyLogReceipt, type ExecutionReceipt, type ReceiptVerification } from '../../core/tlog/index.ts';

export type { ExecutionRecord, ExportVerification, ExecutionReceipt, ReceiptVerification };

/** Keys by their id (`keyId` of a record), from one or more PEM public keys. */
export function keysFromPem(...pems: string[]): KeyLookup {
  const keys = new Map<string, KeyObject>();
  for (const pem of pems) {
    const key = ed25519PublicKey(pem);
    keys.set(keyIdOf(key), key);
  }
  return (keyId: string) => keys.get(keyId);
}

/** One record: its fields hash to `hash` and `signature` is the key's. `null` when it verifies, else the reason. */
export function verifyRecord(record: ExecutionRecord, publicKeyPem: string): string | null {
  // The record alone: its own place (seq, prevHash) is taken as given; its links need the chain.
  const r = checkExecution(record, { seq: record.seq, prevHash: record.prevHash }, keysFromPem(publicKeyPem));
  return r.ok ? null : r.reason;
}

/**
 * An export file (`GET /executions/export`, docs/TRACE-FORMAT.md), line by line: every record's hash
 * and signature, the links between them, the header and the end line.
 */
export function verifyExport(text: string, publicKeyPem: string | string[]): ExportVerification {
  const verifier = new ExportVerifier(keysFromPem(...(Array.isArray(publicKeyPem) ? publicKeyPem : [publicKeyPem])));
  const encoder = new TextEncoder();
  for (const line of text.split('\n')) if (line !== '') verifier.push(encoder.encode(line));
  return verifier.finish();
}

export interface ReceiptKeys {
  /** The trace public key(s) (GET /executions/public-key), PEM: the record's signature. */
  publicKeyPem: string | string[];
  /** The log's vkey (GET /executions/log/vkey): the checkpoint's signature and the log's origin. */
  logVkey: string;
  /** Witnesses' cosignature vkeys, as their operators publish them (`suite witness` prints its own). */
  witnessVkeys?: string[];
  /** How many of those witnesses must have cosigned the checkpoint (default 0). */
  quorum?: number;
}

/**
 * A receipt (`GET /executions/{id}/receipt`) checked offline with core/tlog, public keys only: the
 * record's hash and signature, that its entry is its export line and leaf `seq - 1`, the checkpoint's
 * log signature, origin and witness quorum, and the inclusion proof to the checkpoint's root.
 */
export function verifyReceipt(receipt: ExecutionReceipt, keys: ReceiptKeys): ReceiptVerification {
  const policy = checkpointPolicyOf(keys);
  if (typeof policy === 'string') return { ok: false, reason: policy };
  if (typeof receipt !== 'object' || receipt === null || typeof receipt.record !== 'object' || receipt.record === null || !Array.isArray(receipt.proof)) {
    return { ok: false, reason: 'not an execution receipt' };
  }
  return verifyLogReceipt(receipt, keysFromPem(...(Array.isArray(keys.publicKeyPem) ? keys.publicKeyPem : [keys.publicKeyPem])), policy);
}
