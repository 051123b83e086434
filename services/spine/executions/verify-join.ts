import {
  ExecutionChainVerifier,
  type ChainVerification,
  type ExecutionRecord,
  type PrunedExecution,
  type KeyLookup,
  type PrecomputedChecks,
} from '../../../core/chain/index.ts';
import { CONTENT_OK, SIGNATURE_OK, type ScanSummary } from './verify-scan.ts';

/**
 * The sequential walk of a whole-chain verification, fed in sequence order with runs of records
 * that verification threads found intact (verify-scan.ts: contiguous, linked, content and
 * signatures good) and the record that broke a run. A run is taken whole, on its first record,
 * its length and its last hash, when it continues the chain: this thread never sees the rest of
 * its records. Every record it does see is judged by ExecutionChainVerifier (actors/chain) itself,
 * so the verdict is the same as the plain walk's (verify-join.test.ts holds the two side by side,
 * whatever is done to the chain and however it is cut into jobs).
 */
export class ChainJoin {
  readonly #walk: ExecutionChainVerifier;

  constructor(keys: KeyLookup) {
    this.#walk = new ExecutionChainVerifier(keys);
  }

  /** The seq of the last record taken (0 before any). */
  get lastSeq(): number {
    return this.#walk.lastSeq;
  }

  /**
   * What a thread found in the next records (in sequence order): its run, taken whole when it
   * continues the chain, then the record that broke the run, judged as the walk would. False once
   * a record failed (the verdict is then set).
   */
  take(s: ScanSummary): boolean {
    if (s.first && s.verified > 0 && !this.#walk.takeRun(s.first, s.verified, s.lastHash, s.pruned ?? 0)) return this.#judgeBroken(s.first, s.firstChecks);
    if (s.broken) return this.#judgeBroken(s.broken.record, s.broken.checks);
    return true;
  }

  /** The next record in sequence order, judged by the walk itself. */
  push(r: ExecutionRecord | PrunedExecution, pre?: PrecomputedChecks): boolean {
    return this.#walk.push(r, pre);
  }

  /**
   * A record a thread found not to continue the chain or not intact: it fails here too. A thread
   * and the walk disagreeing would be a bug, never taken for a verdict.
   */
  #judgeBroken(r: ExecutionRecord | PrunedExecution, checks: number): false {
    if (this.#walk.push(r, { contentOk: (checks & CONTENT_OK) !== 0, signatureOk: (checks & SIGNATURE_OK) !== 0 })) {
      throw new Error(`a verification thread found record ${r.seq} broken, the walk did not`);
    }
    return false;
  }

  /** The verdict, the head checked against the last record. */
  finish(head: { seq: number; hash: string }): ChainVerification {
    return this.#walk.finish(head);
  }
}
