import { requestSubject, eventSubject } from './define.ts';
import * as audit from './schemas/audit.ts';
import * as executions from './schemas/executions.ts';
import * as executionReads from './schemas/execution-reads.ts';
import * as executionExport from './schemas/execution-export.ts';
import * as executionLog from './schemas/execution-log.ts';
import * as retention from './schemas/retention.ts';
import * as identities from './schemas/identities.ts';
import * as models from './schemas/models.ts';
import * as revocation from './schemas/revocation.ts';
import * as tenancy from './schemas/tenancy.ts';
import * as tokens from './schemas/tokens.ts';
import * as live from './schemas/live.ts';

/**
 * Every subject of the suite, declared once with its schemas. `suite.<domain>.<verb>`; events end
 * in a past participle or a noun. Queue groups are named after the actor that serves them. The
 * events other services may consume are public and versioned: `suite.events.v1.<domain>.<event>`
 * (public-events.ts, docs/EVENTS.md); a breaking change to one of them is a new `v2` subject.
 */
export const subjects = {
  tokenIssue: requestSubject('suite.tokens.issue', tokens.IssueRequest, tokens.IssueReply),
  tokenValidate: requestSubject('suite.tokens.validate', tokens.ValidateRequest, tokens.ValidateReply),
  tokenRevoke: requestSubject('suite.tokens.revoke', tokens.RevokeTokenRequest, tokens.RevokeTokenReply),

  revocationRevoke: requestSubject('suite.revocation.revoke', revocation.RevokeRequest, revocation.RevokeReply),
  revocationSnapshot: requestSubject('suite.revocation.snapshot', revocation.SnapshotRequest, revocation.SnapshotReply),
  revocationRevoked: eventSubject('suite.events.v1.revocation.revoked', revocation.RevokedEvent),
  revocationHeartbeat: eventSubject('suite.revocation.heartbeat', revocation.HeartbeatEvent),
  revocationRevokeMany: requestSubject('suite.revocation.revoke-many', revocation.RevokeManyRequest, revocation.RevokeManyReply),

  auditAppend: requestSubject('suite.audit.append', audit.AuditAppendRequest, audit.AuditAppendReply),
  auditList: requestSubject('suite.audit.list', audit.AuditListRequest, audit.AuditListReply),
  auditVerify: requestSubject('suite.audit.verify', audit.AuditVerifyRequest, audit.AuditVerifyReply),
  auditWriterLeads: eventSubject('suite.audit.writer-leads', audit.WriterLeadsEvent),

  // `record` is served only by the leading execution chain writer (queue `chain-writer.executions`);
  // the reads by any number of replicas (queue `executions`).
  executionsRecord: requestSubject('suite.executions.record', executions.RecordRequest, executions.RecordReply),
  executionsGet: requestSubject('suite.executions.get', executions.GetRequest, executions.GetReply),
  executionsVerify: requestSubject('suite.executions.verify', executions.VerifyRequest, executions.VerifyReply),
  executionsKeys: requestSubject('suite.executions.keys', executions.KeysRequest, executions.KeysReply),
  executionsExportPage: requestSubject('suite.executions.export-page', executionExport.ExportPageRequest, executionExport.ExportPageReply),
  executionsAppended: eventSubject('suite.events.v1.executions.appended', executions.AppendedEvent),
  executionsKeyPublished: eventSubject('suite.events.v1.executions.key-published', executions.KeyPublishedEvent),
  // The chain as a transparency log (docs/TRACE-FORMAT.md), read by any replica (queue `executions`).
  executionsLogCheckpoint: requestSubject('suite.executions.log.checkpoint', executionLog.LogCheckpointRequest, executionLog.LogCheckpointReply),
  executionsLogVkey: requestSubject('suite.executions.log.vkey', executionLog.LogVkeyRequest, executionLog.LogVkeyReply),
  executionsLogTile: requestSubject('suite.executions.log.tile', executionLog.LogTileRequest, executionLog.LogTileReply),
  executionsLogProof: requestSubject('suite.executions.log.proof', executionLog.LogProofRequest, executionLog.LogProofReply),
  executionsLogConsistency: requestSubject('suite.executions.log.consistency', executionLog.LogConsistencyRequest, executionLog.LogConsistencyReply),
  executionsLogReceipt: requestSubject('suite.executions.log.receipt', executionLog.LogReceiptRequest, executionLog.LogReceiptReply),
  // A record pruned under retention (docs/TENANCY.md), as its tombstone says: its routes answer 410.
  executionsPruned: requestSubject('suite.executions.pruned', retention.PrunedRequest, retention.PrunedReply),
  // Read models of the chain (docs/EXECUTION-READS.md), served by any number of replicas (queue `executions`).
  executionsList: requestSubject('suite.executions.list', executionReads.ListRequest, executionReads.ListReply),
  executionsConditions: requestSubject('suite.executions.conditions', executionReads.RecordReadRequest, executionReads.ConditionsReply),
  executionsExplain: requestSubject('suite.executions.explain', executionReads.RecordReadRequest, executionReads.ExplainReply),
  executionsReplay: requestSubject('suite.executions.replay', executionReads.ReplayRequest, executionReads.ReplayReply),
  executionsLineage: requestSubject('suite.executions.lineage', executionReads.LineageRequest, executionReads.LineageReply),
  executionsAttention: requestSubject('suite.executions.attention', executionReads.AttentionRequest, executionReads.AttentionReply),
  executionsAuthority: requestSubject('suite.executions.authority', executionReads.SubjectPageRequest, executionReads.AuthorityReply),
  executionsStats: requestSubject('suite.executions.stats', executionReads.TenantRequest, executionReads.StatsReply),
  executionsUnknowns: requestSubject('suite.executions.unknowns', executionReads.TenantRequest, executionReads.UnknownsReply),
  executionsCost: requestSubject('suite.executions.cost', executionReads.SubjectPageRequest, executionReads.CostReply),

  // Tenancy (queue `tenancy`). `meter` is the one metering call of every service (docs/PLANS.md).
  tenancyCreate: requestSubject('suite.tenancy.create', tenancy.CreateRequest, tenancy.CreateReply),
  tenancyList: requestSubject('suite.tenancy.list', tenancy.ListRequest, tenancy.ListReply),
  tenancyGet: requestSubject('suite.tenancy.get', tenancy.GetRequest, tenancy.GetReply),
  tenancySetPlan: requestSubject('suite.tenancy.set-plan', tenancy.SetPlanRequest, tenancy.TenantSchema),
  tenancyRotateKey: requestSubject('suite.tenancy.rotate-key', tenancy.RotateKeyRequest, tenancy.TenantWithKeySchema),
  tenancySetStatus: requestSubject('suite.tenancy.set-status', tenancy.SetStatusRequest, tenancy.TenantSchema),
  tenancyResolve: requestSubject('suite.tenancy.resolve', tenancy.ResolveRequest, tenancy.ResolveReply),
  tenancyMeter: requestSubject('suite.tenancy.meter', tenancy.MeterRequest, tenancy.MeterReply),
  tenancyUsage: requestSubject('suite.tenancy.usage', tenancy.UsageRequest, tenancy.UsageReportSchema),
  tenancyBillingEvent: requestSubject('suite.tenancy.billing-event', tenancy.BillingEventRequest, tenancy.BillingEventReply),
  tenancySignup: requestSubject('suite.tenancy.signup', tenancy.SignupRequest, tenancy.SignupReply),

  // Identities and model pins belong to the token service (queue groups `identities`, `models`).
  identitiesEnrol: requestSubject('suite.identities.enrol', identities.EnrolRequest, identities.EnrolReply),
  identitiesGet: requestSubject('suite.identities.get', identities.GetIdentityRequest, identities.GetIdentityReply),
  identitiesChallenge: requestSubject('suite.identities.challenge', identities.ChallengeRequest, identities.ChallengeReply),
  identitiesSuspend: requestSubject('suite.identities.suspend', identities.SuspendRequest, identities.SuspendReply),

  modelsPin: requestSubject('suite.models.pin', models.PinRequest, models.PinReply),
  modelsSupersede: requestSubject('suite.models.supersede', models.SupersedeRequest, models.PinReply),
  modelsAttest: requestSubject('suite.models.attest', models.AttestRequest, models.AttestReply),
  modelsList: requestSubject('suite.models.list', models.ListModelsRequest, models.ListModelsReply),
  modelsGet: requestSubject('suite.models.get', models.GetModelRequest, models.GetModelReply),

  // Published by the benchmark, scheduler and trust services for live views (schemas/live.ts).
  benchProgress: eventSubject('suite.bench.progress', live.BenchProgressEvent),
  schedulerEvent: eventSubject('suite.events.v1.scheduler.event', live.SchedulerEvent),
  trustChanged: eventSubject('suite.events.v1.trust.changed', live.TrustChangedEvent),
  // Published by the approvals desk (services/mcp-gateway) when a gateway call is held, decided or run.
  approvalsChanged: eventSubject('suite.events.v1.approvals.changed', live.ApprovalChangedEvent),
} as const;

export type { AuditInput } from './schemas/audit.ts';
export type { Caller } from './schemas/tokens.ts';
export type { ExecutionClaim, RecordRequestData } from './schemas/executions.ts';
export type { Tenant, UsageReport, Metric, MeterReplyData, BillingEvent } from './schemas/tenancy.ts';
