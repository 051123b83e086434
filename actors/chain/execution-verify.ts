import type { KeyObject } from 'node:crypto';
import { GENESIS_HASH } from './canonical.ts';
import { verifyHashSignature } from './ed25519.ts';
import { executionHash, type ExecutionRecord } from './execution-record.ts';

export interface ChainVerification {
  valid: boolean;
  checked: number;
  headHash: string;
  brokenAt?: number;
  brokenId?: string;
  reason?: string;
  /** False when a record's content does not match its hash (edited); true when only a signature failed. */
  contentIntact?: boolean;
}

/** Public keys by key id; records name the key that signed them. */
export type KeyLookup = (keyId: string) => KeyObject | undefined;

/** Verdict on one record given its expected position; pure. */
export function checkExecution(
  r: ExecutionRecord,
  expected: { seq: number; prevHash: string },
  keys: KeyLookup,
): { ok: true } | { ok: false; reason: string; contentIntact: boolean } {
  if (r.seq !== expected.seq) {
    return { ok: false, contentIntact: true, reason: r.seq > expected.seq ? `record ${expected.seq} is missing (found ${r.seq})` : `sequence ${r.seq} repeats or is out of order` };
  }
  if (contentHash(r) !== r.hash) return { ok: false, contentIntact: false, reason: 'content does not match its hash' };
  if (r.prevHash !== expected.prevHash) return { ok: false, contentIntact: true, reason: 'prevHash does not link to the previous record' };
  const key = keys(r.keyId);
  if (!key) return { ok: false, contentIntact: true, reason: `no public key for keyId ${r.keyId}` };
  if (!verifyHashSignature(key, r.hash, r.signature)) return { ok: false, contentIntact: true, reason: 'signature does not verify against the public key' };
  return { ok: true };
}

/**
 * A record handed in from outside may hold what RFC 8785 cannot canonicalise (a lone surrogate, a
 * non-finite number): its content then matches no hash, rather than failing the verification.
 */
function contentHash(r: ExecutionRecord): string | undefined {
  try {
    return executionHash(r);
  } catch {
    return undefined;
  }
}

/** Incremental verification of the execution chain, fed in sequence order (constant memory). */
export class ExecutionChainVerifier {
  readonly #keys: KeyLookup;
  #expectedSeq = 1;
  #prevHash = GENESIS_HASH;
  #checked = 0;
  #broken: { at: number; id?: string; reason: string; contentIntact: boolean } | undefined;

  constructor(keys: KeyLookup) {
    this.#keys = keys;
  }

  push(r: ExecutionRecord): boolean {
    if (this.#broken) return false;
    const verdict = checkExecution(r, { seq: this.#expectedSeq, prevHash: this.#prevHash }, this.#keys);
    if (!verdict.ok) {
      this.#broken = { at: this.#expectedSeq, id: r.id, reason: verdict.reason, contentIntact: verdict.contentIntact };
      return false;
    }
    this.#prevHash = r.hash;
    this.#expectedSeq++;
    this.#checked++;
    return true;
  }

  finish(head?: { seq: number; hash: string }): ChainVerification {
    if (!this.#broken && head && (head.seq !== this.#expectedSeq - 1 || head.hash !== this.#prevHash)) {
      this.#broken = { at: this.#expectedSeq, reason: head.seq > this.#expectedSeq - 1 ? `records after ${this.#expectedSeq - 1} are missing` : 'chain head does not match the last record', contentIntact: true };
    }
    const base = { checked: this.#checked, headHash: head?.hash ?? this.#prevHash };
    if (!this.#broken) return { valid: true, ...base };
    const b = this.#broken;
    return { valid: false, ...base, brokenAt: b.at, ...(b.id !== undefined ? { brokenId: b.id } : {}), reason: b.reason, contentIntact: b.contentIntact };
  }
}
