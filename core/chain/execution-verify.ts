import type { KeyObject } from 'node:crypto';
import { GENESIS_HASH } from './canonical.ts';
import { verifyHashSignature } from './ed25519.ts';
import { executionHash, type ExecutionRecord } from './execution-record.ts';
import { isPruned, type PrunedExecution } from './pruned.ts';

export interface ChainVerification {
  valid: boolean;
  checked: number;
  headHash: string;
  brokenAt?: number;
  brokenId?: string;
  reason?: string;
  /** False when a record's content does not match its hash (edited); true when only a signature failed. */
  contentIntact?: boolean;
  /**
   * Records pruned under retention among those walked (their content is gone: only their links and
   * signatures were checked; `checked` counts them too). Absent when none were.
   */
  pruned?: number;
}

/** Public keys by key id; records name the key that signed them. */
export type KeyLookup = (keyId: string) => KeyObject | undefined;

/**
 * The two expensive checks of a record, computed ahead of the sequential walk when verification runs
 * on several threads (services/spine/executions/verify-pool.ts): whether its content hashes to `hash`, and
 * whether `signature` verifies with the key its `keyId` names (false when there is no such key).
 */
export interface PrecomputedChecks {
  contentOk: boolean;
  signatureOk: boolean;
}

/**
 * Verdict on one record given its expected position; pure. The checks run in a fixed order (position,
 * content, link, key, signature), so the reason names the first thing wrong; `pre` supplies the
 * content and signature results when they were computed elsewhere. A record pruned under retention
 * has no content to check: its place, links and signature are checked as any record's.
 */
export function checkExecution(
  r: ExecutionRecord | PrunedExecution,
  expected: { seq: number; prevHash: string },
  keys: KeyLookup,
  pre?: PrecomputedChecks,
): { ok: true } | { ok: false; reason: string; contentIntact: boolean } {
  if (r.seq !== expected.seq) {
    return {
      ok: false,
      contentIntact: true,
      reason: r.seq > expected.seq ? `record ${expected.seq} is missing (found ${r.seq})` : `sequence ${r.seq} repeats or is out of order`,
    };
  }
  const contentOk = pre ? pre.contentOk : isPruned(r) || contentHash(r) === r.hash;
  if (!contentOk) return { ok: false, contentIntact: false, reason: 'content does not match its hash' };
  if (r.prevHash !== expected.prevHash) return { ok: false, contentIntact: true, reason: 'prevHash does not link to the previous record' };
  const key = keys(r.keyId);
  if (!key) return { ok: false, contentIntact: true, reason: `no public key for keyId ${r.keyId}` };
  const signatureOk = pre ? pre.signatureOk : verifyHashSignature(key, r.hash, r.signature);
  if (!signatureOk) return { ok: false, contentIntact: true, reason: 'signature does not verify against the public key' };
  return { ok: true };
}

/** Content and signature of one record, as `checkExecution` would judge them (for worker threads). */
export function precompute(r: ExecutionRecord | PrunedExecution, keys: KeyLookup): PrecomputedChecks {
  const contentOk = isPruned(r) || contentHash(r) === r.hash;
  const key = keys(r.keyId);
  return { contentOk, signatureOk: key !== undefined && verifyHashSignature(key, r.hash, r.signature) };
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
  #pruned = 0;
  #broken: { at: number; id?: string; reason: string; contentIntact: boolean } | undefined;

  constructor(keys: KeyLookup) {
    this.#keys = keys;
  }

  /** The seq of the last record taken (0 before any). */
  get lastSeq(): number {
    return this.#expectedSeq - 1;
  }

  /**
   * `count` records, from `first` to one hashed `lastHash`, found intact and linked to each other
   * elsewhere (a verification thread): taken whole when `first` is the record the chain expects
   * next, without seeing the others; false otherwise (`push` it to learn why).
   */
  takeRun(first: { seq: number; prevHash: string }, count: number, lastHash: string, pruned = 0): boolean {
    if (this.#broken || first.seq !== this.#expectedSeq || first.prevHash !== this.#prevHash) return false;
    this.#expectedSeq += count;
    this.#prevHash = lastHash;
    this.#checked += count;
    this.#pruned += pruned;
    return true;
  }

  /** The next record in sequence order; `pre` when its content and signature were checked elsewhere. */
  push(r: ExecutionRecord | PrunedExecution, pre?: PrecomputedChecks): boolean {
    if (this.#broken) return false;
    const verdict = checkExecution(r, { seq: this.#expectedSeq, prevHash: this.#prevHash }, this.#keys, pre);
    if (!verdict.ok) {
      this.#broken = { at: this.#expectedSeq, id: r.id, reason: verdict.reason, contentIntact: verdict.contentIntact };
      return false;
    }
    this.#prevHash = r.hash;
    this.#expectedSeq++;
    this.#checked++;
    if (isPruned(r)) this.#pruned++;
    return true;
  }

  finish(head?: { seq: number; hash: string }): ChainVerification {
    if (!this.#broken && head && (head.seq !== this.#expectedSeq - 1 || head.hash !== this.#prevHash)) {
      this.#broken = {
        at: this.#expectedSeq,
        reason: head.seq > this.#expectedSeq - 1 ? `records after ${this.#expectedSeq - 1} are missing` : 'chain head does not match the last record',
        contentIntact: true,
      };
    }
    const base = { checked: this.#checked, headHash: head?.hash ?? this.#prevHash, ...(this.#pruned > 0 ? { pruned: this.#pruned } : {}) };
    if (!this.#broken) return { valid: true, ...base };
    const b = this.#broken;
    return { valid: false, ...base, brokenAt: b.at, ...(b.id !== undefined ? { brokenId: b.id } : {}), reason: b.reason, contentIntact: b.contentIntact };
  }
}
