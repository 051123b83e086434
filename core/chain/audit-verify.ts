import { GENESIS_HASH } from './canonical.ts';
import { auditHash, type AuditRecord } from './audit-record.ts';
import { isPruned, type PrunedAuditEntry } from './pruned.ts';

export interface AuditVerification {
  valid: boolean;
  checked: number;
  headHash: string;
  brokenAt?: number;
  reason?: string;
  /** Entries pruned under retention among those walked (links checked, content gone); absent when none. */
  pruned?: number;
}

/**
 * Incremental verification of the audit chain: feed records in sequence order, in pages, so the
 * whole chain is never in memory. Pure: no I/O, no clock.
 */
export class AuditChainVerifier {
  #expectedSeq = 1;
  #prevHash = GENESIS_HASH;
  #checked = 0;
  #pruned = 0;
  #broken: { at: number; reason: string } | undefined;

  /**
   * Returns false once the chain is found broken (further records are ignored). An entry pruned under
   * retention is taken where it stood: its links are checked, its content is gone.
   */
  push(record: AuditRecord | PrunedAuditEntry): boolean {
    if (this.#broken) return false;
    const at = this.#expectedSeq;
    if (record.seq !== at) {
      return this.#fail(at, record.seq > at ? `record ${at} is missing (found ${record.seq})` : `sequence ${record.seq} repeats or is out of order`);
    }
    if (record.prevHash !== this.#prevHash) return this.#fail(at, 'prevHash does not link to the previous record');
    if (!isPruned(record) && auditHash(record) !== record.hash) return this.#fail(at, 'content does not match its hash');
    this.#prevHash = record.hash;
    this.#expectedSeq++;
    this.#checked++;
    if (isPruned(record)) this.#pruned++;
    return true;
  }

  /** Compare the end of the stream with the recorded head, which catches truncation. */
  finish(head?: { seq: number; hash: string }): AuditVerification {
    if (!this.#broken && head && (head.seq !== this.#expectedSeq - 1 || head.hash !== this.#prevHash)) {
      this.#fail(
        this.#expectedSeq,
        head.seq > this.#expectedSeq - 1 ? `records after ${this.#expectedSeq - 1} are missing` : 'chain head does not match the last record',
      );
    }
    const base = { checked: this.#checked, headHash: head?.hash ?? this.#prevHash, ...(this.#pruned > 0 ? { pruned: this.#pruned } : {}) };
    if (this.#broken) return { valid: false, ...base, brokenAt: this.#broken.at, reason: this.#broken.reason };
    return { valid: true, ...base };
  }

  #fail(at: number, reason: string): false {
    this.#broken = { at, reason };
    return false;
  }
}
