import type { AuditInput } from '../../bus/subjects.ts';
import { auditHash, type AuditRecord } from '../chain/index.ts';
import { insertAuditEntries } from '../../storage/index.ts';
import type { ChainSpec } from '../chain-writer/index.ts';

/** The audit chain: entries hashed (not signed) and linked by `prevHash`. */
export const auditChainSpec: ChainSpec<AuditInput, AuditRecord> = {
  chain: 'audit',
  seal(input, seq, prevHash) {
    const fields = {
      seq,
      id: input.id,
      timestamp: input.timestamp,
      subject: input.subject,
      action: input.action,
      resource: input.resource,
      result: input.result,
      reason: input.reason,
      tenantId: input.tenantId,
      prevHash,
    };
    return { ...fields, hash: auditHash(fields) };
  },
  insert: insertAuditEntries,
};
