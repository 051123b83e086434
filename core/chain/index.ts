/** Chain record formats, their hashing and signing, and their pure verification (no I/O). */
export { canonicalJson, sha256Hex, hashCanonical, GENESIS_HASH } from './canonical.ts';
export { auditHash, auditCanonicalJson, AUDIT_FORMAT_VERSION, type AuditFields, type AuditRecord } from './audit-record.ts';
export { AuditChainVerifier, type AuditVerification } from './audit-verify.ts';
export { createTraceSigner, keyIdOf, ed25519PublicKey, verifyHashSignature, type TraceSigner, type TraceSignerOptions, type BatchSigner } from './ed25519.ts';
export {
  executionHash,
  executionCanonicalJson,
  executionSignedObject,
  EXECUTION_FORMAT_VERSION,
  type ExecutionFields,
  type ExecutionRecord,
  type Cost,
  type Governance,
  type Attestation,
} from './execution-record.ts';
export { executionExportLine, prunedExportLine, exportHeaderLine, exportEndLine, EXPORT_FORMAT_VERSION, type ExportRange } from './execution-export.ts';
export { ExportVerifier, type ExportVerification } from './export-verify.ts';
export { ExecutionChainVerifier, checkExecution, precompute, type ChainVerification, type KeyLookup, type PrecomputedChecks } from './execution-verify.ts';
export { costProblem, type CostInput } from './cost-rules.ts';
export { isPruned, type PrunedExecution, type PrunedAuditEntry } from './pruned.ts';
