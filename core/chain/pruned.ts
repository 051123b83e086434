/**
 * Entries pruned under retention (docs/TRACE-FORMAT.md, "Retention"), as their tombstones keep them:
 * no content, only their place, their links and (for an execution record) its signature over its
 * hash, which still verifies. A verifier takes one where the entry stood: its content cannot be
 * checked (it is gone), everything else is, so the kept entries around it verify as the
 * continuation of the pruned history.
 */

export interface PrunedExecution {
  pruned: true;
  seq: number;
  id: string;
  prevHash: string;
  hash: string;
  keyId: string;
  signature: string;
}

export interface PrunedAuditEntry {
  pruned: true;
  seq: number;
  id: string;
  prevHash: string;
  hash: string;
}

/** True for a tombstone, false for an entry that holds its content. */
export function isPruned<T extends { seq: number }>(e: T | PrunedExecution | PrunedAuditEntry): e is PrunedExecution | PrunedAuditEntry {
  return (e as { pruned?: unknown }).pruned === true;
}
