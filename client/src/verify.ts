/**
 * Offline verification with the suite's own code (core/chain), not a copy: a record, or an export
 * file of the chain, checked against the published Ed25519 public key with no call to the suite.
 * Node only (node:crypto); in a browser, the dashboard's WebCrypto verifier does the same checks.
 * Its own entry point (`@agent-authority/client/verify`), so the HTTP client stays browser-safe.
 */
import type { KeyObject } from 'node:crypto';
import { checkExecution, ed25519PublicKey, ExportVerifier, keyIdOf, type ExecutionRecord, type ExportVerification, type KeyLookup } from '../../core/chain/index.ts';

export type { ExecutionRecord, ExportVerification };

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
