/**
 * What the storage folder offers. Actors receive a `Storage` (never open a pool themselves) and call
 * the query functions below with `storage.pool` or a transaction. Query modules build typed queries
 * with `sql.type(rowSchema(...))` (row-schema.ts).
 */
export type { Storage, StorageOptions } from './types.ts';
export { openStorage, type OpenStorageOptions } from './open.ts';
export type { RestartPolicy } from './embedded-supervisor.ts';
export { lockDataDir } from './data-dir.ts';
export { storageOutage, storageOutageMessage, type StorageOutage } from './unavailable.ts';
export { StorageError, silentLogger, type StorageErrorCode, type StorageLogger } from './errors.ts';
export { DEFAULT_MIGRATIONS_DIR, type MigrationSet } from './migrate.ts';
export { rowSchema } from './row-schema.ts';

// Table modules (one per table group).
export { insertAuditEntries, listAuditEntries, auditPageAfter, findAuditIds, type AuditFilter, type NewAuditEntry } from './audit.ts';
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
  type TraceKey,
  type PublishedKey,
} from './executions.ts';
export { executionsRangeJson, jsonRows, openScanClient, scanExecutionRange, scannedExecution, traceKeyIds, type ScannedRow } from './execution-scan.ts';
export { executionsExportJson } from './execution-export.ts';
export {
  readLogState, advanceLog, readLogTiles, readLastTiles, insertCheckpoint, setCheckpointCosigned, readCheckpoint, readCheckpointOfSize,
  findPruned, prunedThrough, type LogState, type StoredCheckpoint,
} from './execution-log.ts';
export {
  takePruneLock, pruneExecutions, pruneAuditEntries, getPrunedExecution, prunedExecutionsBetween, prunedAuditBetween,
  type PlanCutoff, type PrunedExecutionRow,
} from './retention.ts';
export {
  getExecutionOf,
  listExecutions,
  listAttention,
  lineageStep,
  type ExecutionFilter,
  type LineageNode,
  type Page,
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
export { conditionSql, type GovernanceWords, type ConditionSql } from './execution-conditions.ts';
export {
  ensureChainHead,
  readChainHead,
  acquireChainLease,
  chainLeaseRemainingMs,
  renewChainLease,
  reclaimChainLease,
  releaseChainLease,
  headMoveCte,
  type ChainHead,
  type HeadMove,
} from './chains.ts';
export {
  insertRevocation,
  insertRevocations,
  revocationVersion,
  revocationSnapshot,
  pruneRevocations,
  type Revocation,
} from './revocations.ts';
export { insertIssuedToken, findIssuedToken, pruneIssuedTokens, type IssuedToken } from './tokens.ts';
export {
  lockSubject,
  insertIdentity,
  findIdentity,
  suspendIdentity,
  insertNonce,
  consumeNonce,
  pruneNonces,
  liveTokensOf,
  type Identity,
  type IdentityKind,
  type IdentityStatus,
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
  type ModelAttestation,
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
  type NewTenant,
  type StatusChange,
  type SuspendedBy,
} from './tenants.ts';
