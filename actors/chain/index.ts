/** Chain record formats and their pure verification (no I/O). */
export { canonicalJson, sha256Hex, hashCanonical, GENESIS_HASH } from './canonical.ts';
export { auditHash, AUDIT_FORMAT_VERSION, type AuditFields, type AuditRecord } from './audit-record.ts';
export { AuditChainVerifier, type AuditVerification } from './audit-verify.ts';
