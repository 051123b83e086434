import { checkExecution, GENESIS_HASH, type ChainVerification, type ExecutionRecord, type KeyLookup, type PrecomputedChecks } from '../chain/index.ts';
import { CONTENT_OK, SIGNATURE_OK, type ScanSummary } from './verify-scan.ts';

/**
 * The sequential walk of a whole-chain verification, fed in sequence order with runs of records
 * that verification threads found intact (verify-scan.ts: contiguous, linked, content and
 * signatures good) and the record that broke a run. A run is taken whole, on its first record,
 * its length and its last hash, when it continues the chain: this thread never sees the rest of
 * its records. Records are judged exactly as ExecutionChainVerifier (actors/chain) judges them,
 * with the same checks in the same order, so the verdict is the same (verify-join.test.ts holds
 * the two side by side, whatever is done to the chain and however it is cut into jobs).
 */
export class ChainJoin {
  readonly #keys: KeyLookup;
  #expectedSeq = 1;
  #prevHash = GENESIS_HASH;
  #checked = 0;
  #broken: { at: number; id?: string; reason: string; contentIntact: boolean } | undefined;

  constructor(keys: KeyLookup) {
    this.#keys = keys;
  }

  /** The seq of the last record taken (0 before any). */
  get lastSeq(): number {
    return this.#expectedSeq - 1;
  }

  /**
   * What a thread found in the next records (in sequence order): its run, taken whole when it
   * continues the chain, then the record that broke the run, judged as the walk would. False once
   * a record failed (the verdict is then set).
   */
  take(s: ScanSummary): boolean {
    if (s.first && s.verified > 0 && !this.run(s.first, s.verified, s.lastHash)) return this.#judgeBroken(s.first, s.firstChecks);
    if (s.broken) return this.#judgeBroken(s.broken.record, s.broken.checks);
    return true;
  }

  /**
   * `count` records, from `first` to one hashed `lastHash`, that a thread found intact and linked
   * to each other. Taken when `first` is the record the chain expects next; false otherwise (judge
   * it with `push` to learn why).
   */
  run(first: { seq: number; prevHash: string }, count: number, lastHash: string): boolean {
    if (this.#broken || first.seq !== this.#expectedSeq || first.prevHash !== this.#prevHash) return false;
    this.#expectedSeq += count;
    this.#prevHash = lastHash;
    this.#checked += count;
    return true;
  }

  /** The next record in sequence order, as ExecutionChainVerifier.push. */
  push(r: ExecutionRecord, pre?: PrecomputedChecks): boolean {
    if (this.#broken) return false;
    const verdict = checkExecution(r, { seq: this.#expectedSeq, prevHash: this.#prevHash }, this.#keys, pre);
    if (!verdict.ok) {
      this.#broken = { at: this.#expectedSeq, id: r.id, reason: verdict.reason, contentIntact: verdict.contentIntact };
      return false;
    }
    this.#prevHash = r.hash;
    this.#expectedSeq++;
    this.#checked++;
    return true;
  }

  /**
   * A record a thread found not to continue the chain or not intact: it fails here too. A thread
   * and the walk disagreeing would be a bug, never taken for a verdict.
   */
  #judgeBroken(r: ExecutionRecord, checks: number): false {
    if (this.push(r, { contentOk: (checks & CONTENT_OK) !== 0, signatureOk: (checks & SIGNATURE_OK) !== 0 })) {
      throw new Error(`a verification thread found record ${r.seq} broken, the walk did not`);
    }
    return false;
  }

  /** As ExecutionChainVerifier.finish: the verdict, the head checked against the last record. */
  finish(head: { seq: number; hash: string }): ChainVerification {
    if (!this.#broken && (head.seq !== this.#expectedSeq - 1 || head.hash !== this.#prevHash)) {
      this.#broken = {
        at: this.#expectedSeq, contentIntact: true,
        reason: head.seq > this.#expectedSeq - 1 ? `records after ${this.#expectedSeq - 1} are missing` : 'chain head does not match the last record',
      };
    }
    const base = { checked: this.#checked, headHash: head.hash };
    if (!this.#broken) return { valid: true, ...base };
    const b = this.#broken;
    return { valid: false, ...base, brokenAt: b.at, ...(b.id !== undefined ? { brokenId: b.id } : {}), reason: b.reason, contentIntact: b.contentIntact };
  }
}
