import { hashCanonical } from './canonical.ts';

/**
 * Audit entry, format version 1. The hash covers every field below (the `prevHash` among them),
 * canonicalised with RFC 8785; changing any of them, or the order of entries, breaks the chain.
 */
export interface AuditFields {
  seq: number;
  id: string;
  timestamp: string;
  subject: string;
  action: string;
  resource: string;
  result: 'allow' | 'deny';
  reason: string;
  tenantId: string | null;
  prevHash: string;
}

export interface AuditRecord extends AuditFields {
  hash: string;
}

export const AUDIT_FORMAT_VERSION = 1;

export function auditHash(f: AuditFields): string {
  return hashCanonical({
    v: AUDIT_FORMAT_VERSION,
    chain: 'audit',
    seq: f.seq,
    id: f.id,
    timestamp: f.timestamp,
    subject: f.subject,
    action: f.action,
    resource: f.resource,
    result: f.result,
    reason: f.reason,
    tenantId: f.tenantId,
    prevHash: f.prevHash,
  });
}
