import { hash, type KeyObject } from 'node:crypto';
import { executionCanonicalJson, isPruned, verifyHashSignature, type ExecutionRecord, type PrunedExecution } from '../../../core/chain/index.ts';
// Not storage/index.ts: this runs in the verification threads, which need no other storage module.
import { scannedExecution, type ScannedRow } from '../../../storage/index.ts';

/** What a verification thread (verify-worker.ts) does with the rows of a job; pure. */

/**
 * Check bits of one record, as a thread judged it: its content matches its hash; its signature
 * verifies with the key it names (or the pinned key), which the thread had.
 */
export const CONTENT_OK = 1;
export const SIGNATURE_OK = 2;
const ALL_OK = CONTENT_OK | SIGNATURE_OK;

/**
 * What a thread found in the records of a job, in seq order. The first `verified` records are a
 * run: each one's content matches its hash, its signature verifies, and each after the first has
 * the next seq and links to the hash of the one before. The thread stops at the first record that
 * is not so (the walk would stop there too): `broken`, with its check bits.
 */
export interface ScanSummary {
  /** Records judged (the job's, or up to `broken`). */
  count: number;
  verified: number;
  /** How many of the run's records were pruned under retention (their tombstones taken in their place); absent when none. */
  pruned?: number;
  /** The first record and its check bits (absent when there are no records). */
  first?: ExecutionRecord | PrunedExecution;
  firstChecks: number;
  /** Hash of the run's last record. */
  lastHash: string;
  broken?: { record: ExecutionRecord | PrunedExecution; checks: number };
}

export type KeyOf = (keyId: string) => KeyObject | undefined;

/**
 * Judges the rows of a job as they come, in order, up to the first record that is not verified (see
 * ScanSummary). It keeps only the first record and the one before the next: each row is garbage
 * once judged, so V8 collects it young (rows held to the end of a job outlive a scavenge or two,
 * are promoted, and the old generation is then marked and compacted every few hundred ms).
 */
export class RunJudge {
  readonly #keyOf: KeyOf;
  #count = 0;
  #pruned = 0;
  #first: ExecutionRecord | PrunedExecution | undefined;
  #firstChecks = 0;
  #prev: ExecutionRecord | PrunedExecution | undefined;
  #broken: { record: ExecutionRecord | PrunedExecution; checks: number } | undefined;

  constructor(keyOf: KeyOf) {
    this.#keyOf = keyOf;
  }

  /** The next row of the job; false once the run has broken (later rows do not matter). */
  push(row: ScannedRow): boolean {
    if (this.#broken) return false;
    const r = scannedExecution(row);
    const checks = judge(r, this.#keyOf);
    if (this.#count++ === 0) {
      this.#first = r;
      this.#firstChecks = checks;
    }
    const prev = this.#prev;
    if (checks !== ALL_OK || (prev && (r.seq !== prev.seq + 1 || r.prevHash !== prev.hash))) {
      this.#broken = { record: r, checks };
      return false;
    }
    this.#prev = r;
    if (isPruned(r)) this.#pruned++;
    return true;
  }

  summary(): ScanSummary {
    const verified = this.#broken ? this.#count - 1 : this.#count;
    return {
      count: this.#count,
      verified,
      ...(this.#pruned > 0 ? { pruned: this.#pruned } : {}),
      firstChecks: this.#firstChecks,
      lastHash: this.#prev?.hash ?? '',
      ...(this.#first ? { first: this.#first } : {}),
      ...(this.#broken ? { broken: this.#broken } : {}),
    };
  }
}

/**
 * The check bits of one record, as `precompute` (actors/chain) judges it; the signature is left
 * unchecked when the content does not match (the verdict is then the content's). A pruned record
 * has no content to match: only its signature over its hash is checked.
 */
function judge(r: ExecutionRecord | PrunedExecution, keyOf: KeyOf): number {
  let bits = isPruned(r) || contentMatches(r) ? CONTENT_OK : 0;
  const key = bits & CONTENT_OK ? keyOf(r.keyId) : undefined;
  if (key && verifyHashSignature(key, r.hash, r.signature)) bits |= SIGNATURE_OK;
  return bits;
}

function contentMatches(r: ExecutionRecord): boolean {
  try {
    return hash('sha256', executionCanonicalJson(r), 'hex') === r.hash;
  } catch {
    // Not canonicalisable (a lone surrogate, an edited value): it matches no hash.
    return false;
  }
}
