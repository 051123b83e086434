/**
 * What the storage folder offers. Actors receive a `Storage` (never open a pool themselves) and call
 * the query functions below with `storage.pool` or a transaction. Query modules build typed queries
 * with `sql.type(rowSchema(...))` (row-schema.ts).
 */
export type { Storage, StorageOptions } from './types.ts';
export { openStorage } from './open.ts';
export { lockDataDir } from './data-dir.ts';
export { storageOutage, storageOutageMessage } from './unavailable.ts';
export type { MigrationSet } from './migrate.ts';
export { rowSchema } from './row-schema.ts';
export { rowLease } from './row-lease.ts';

// Table modules (one per table group).
export { insertAuditEntries, listAuditEntries, auditPageAfter, findAuditIds, sweepAuditOutbox, deleteAuditOutbox, type NewAuditEntry } from './audit.ts';
export {
  insertExecutions,
  getExecution,
  findExecutionByIdempotencyKey,
  executionsPageAfter,
  executionHashAt,
  registerTraceKey,
  findTraceKeys,
  currentTraceKey,
  type NewExecution,
  type PublishedKey,
} from './executions.ts';
export { executionsRangeJson, jsonRows, openScanClient, scanExecutionRange, scannedExecution, traceKeyIds, type ScannedRow } from './execution-scan.ts';
export { executionsExportJson } from './execution-export.ts';
export {
  takePruneLock,
  pruneExecutions,
  pruneAuditEntries,
  getPrunedExecution,
  prunedExecutionsBetween,
  prunedAuditBetween,
  type PlanCutoff,
} from './retention.ts';
export {
  getExecutionOf,
  listExecutions,
  listAttention,
  lineageStep,
  type ExecutionFilter,
  type LineageNode,
} from './execution-reads.ts';
export {
  executionTotals,
  conditionCounts,
  countsBy,
  subjectsPage,
  subjectBreakdown,
  costTotals,
  type SubjectDimension,
} from './execution-aggregates.ts';
export { conditionSql } from './execution-conditions.ts';
export {
  ensureChainHead,
  readChainHead,
  acquireChainLease,
  chainLeaseRemainingMs,
  renewChainLease,
  reclaimChainLease,
  releaseChainLease,
  type HeadMove,
} from './chains.ts';
export {
  insertRevocation,
  insertRevocations,
  revocationVersion,
  revocationSnapshot,
  pruneRevocations,
} from './revocations.ts';
export { insertIssuedToken, findIssuedToken, pruneIssuedTokens } from './tokens.ts';
export {
  lockSubject,
  insertIdentity,
  findIdentity,
  findIdentityByKey,
  suspendIdentity,
  insertNonce,
  consumeNonce,
  pruneNonces,
  liveTokensOf,
  type Identity,
} from './identities.ts';
export {
  insertPin,
  supersedePin,
  currentPin,
  pinHistory,
  listCurrentPins,
  insertAttestation,
  listAttestations,
  type Fingerprint,
  type ModelPin,
  type Drift,
  type NewPin,
} from './models.ts';
export {
  insertTenant,
  getTenant,
  findTenantByKeyHash,
  findTenantByExternalRef,
  listTenants,
  setTenantPlan,
  setTenantKeyHash,
  setTenantStatus,
  meterUsage,
  releaseUsage,
  usageOf,
  claimBillingEvent,
  setBillingEventOutcome,
  countSignupAttempt,
  pruneSignupAttempts,
  type StoredTenant,
} from './tenants.ts';
export { StorageError } from './errors.ts';
