import { requestSubject, eventSubject } from './define.ts';
import * as audit from './schemas/audit.ts';
import * as executions from './schemas/executions.ts';
import * as revocation from './schemas/revocation.ts';
import * as tokens from './schemas/tokens.ts';

/**
 * Every subject of the suite, declared once with its schemas. `suite.<domain>.<verb>`; events end
 * in a past participle or a noun. Queue groups are named after the actor that serves them.
 */
export const subjects = {
  tokenIssue: requestSubject('suite.tokens.issue', tokens.IssueRequest, tokens.IssueReply),
  tokenValidate: requestSubject('suite.tokens.validate', tokens.ValidateRequest, tokens.ValidateReply),
  tokenRevoke: requestSubject('suite.tokens.revoke', tokens.RevokeTokenRequest, tokens.RevokeTokenReply),

  revocationRevoke: requestSubject('suite.revocation.revoke', revocation.RevokeRequest, revocation.RevokeReply),
  revocationSnapshot: requestSubject('suite.revocation.snapshot', revocation.SnapshotRequest, revocation.SnapshotReply),
  revocationRevoked: eventSubject('suite.revocation.revoked', revocation.RevokedEvent),
  revocationHeartbeat: eventSubject('suite.revocation.heartbeat', revocation.HeartbeatEvent),

  auditAppend: requestSubject('suite.audit.append', audit.AuditAppendRequest, audit.AuditAppendReply),
  auditList: requestSubject('suite.audit.list', audit.AuditListRequest, audit.AuditListReply),
  auditVerify: requestSubject('suite.audit.verify', audit.AuditVerifyRequest, audit.AuditVerifyReply),

  // `record` is served only by the leading execution chain writer (queue `chain-writer.executions`);
  // the reads by any number of replicas (queue `executions`).
  executionsRecord: requestSubject('suite.executions.record', executions.RecordRequest, executions.RecordReply),
  executionsGet: requestSubject('suite.executions.get', executions.GetRequest, executions.GetReply),
  executionsVerify: requestSubject('suite.executions.verify', executions.VerifyRequest, executions.VerifyReply),
  executionsKeys: requestSubject('suite.executions.keys', executions.KeysRequest, executions.KeysReply),
  executionsAppended: eventSubject('suite.executions.appended', executions.AppendedEvent),
} as const;

export type { AuditInput, AuditEntry } from './schemas/audit.ts';
export type { Caller } from './schemas/tokens.ts';
export type { ExecutionClaim, RecordRequestData, VerifyReplyData } from './schemas/executions.ts';
