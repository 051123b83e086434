import type { AuditInput } from '../../bus/index.ts';
import { auditCanonicalJson, sha256Hex } from '../../core/chain/index.ts';
import { insertAuditEntries, type NewAuditEntry } from '../../storage/index.ts';
import type { ChainSpec } from '../chain-writer/index.ts';

/** The audit chain: entries hashed (not signed) and linked by `prevHash`. */
export const auditChainSpec: ChainSpec<AuditInput, NewAuditEntry> = {
  chain: 'audit',
  seal(input, seq, prevHash) {
    // Texts come from callers (a token's `sub`, a route): a lone surrogate can be neither hashed
    // (RFC 8785) nor stored as UTF-8, so it becomes U+FFFD here, before both.
    const fields = {
      seq,
      id: input.id.toWellFormed(),
      timestamp: input.timestamp.toWellFormed(),
      subject: input.subject.toWellFormed(),
      action: input.action.toWellFormed(),
      resource: input.resource.toWellFormed(),
      result: input.result,
      reason: input.reason.toWellFormed(),
      tenantId: input.tenantId === null ? null : input.tenantId.toWellFormed(),
      prevHash,
    };
    // Kept with the entry so that the insert sends the bytes that were hashed (storage/audit.ts).
    const canonical = auditCanonicalJson(fields);
    return { ...fields, hash: sha256Hex(canonical), canonical };
  },
  insert: insertAuditEntries,
};
