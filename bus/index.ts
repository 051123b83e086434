/**
 * The bus: typed subjects, one `Bus` interface, and its two transports (NATS for a distributed
 * deployment, memory for the embedded default). The spine's and the token service's subjects are
 * declared in `subjects.ts`; other services declare theirs in their own folders.
 */
export { createBus, NOTHING_DONE, OUTCOME_UNKNOWN } from './bus.ts';
export type { MessageKind, TracePropagation } from './bus.ts';
export { noPropagation } from './receive.ts';
export { requestSubject, describeMessageProblems } from './define.ts';
export { textProblem, hashedJson, clipText, MAX_STRING_LENGTH, MAX_DEPTH, HASHED_KEYWORD } from './text-rule.ts';
export { createMemoryNetwork } from './memory-transport.ts';
export { connectNatsTransport } from './nats-transport.ts';
export { namespacedTransport } from './namespace.ts';
export { carrier } from './carry.ts';
export type { Carrier } from './carry.ts';
export type {
  Bus,
  EventOf,
  Headers,
  Payload,
  ReplyOf,
  RequestOf,
  Result,
  Subscription,
  Transport,
} from './types.ts';
export { ERROR_CODES, ErrorDataSchema, SuiteError, isErrorCode } from './errors.ts';
export type { ErrorCode, ErrorData } from './errors.ts';

// The spine's and token service's subjects, and the message schemas edges build their bodies from.
export { subjects } from './subjects.ts';
export { asyncApiDocument } from './asyncapi.ts';
export { INTERFACE_VERSION } from './interface-version.ts';
export type { AuditInput, Caller, ExecutionClaim, RecordRequestData, Tenant, UsageReport, Metric, MeterReplyData, BillingEvent } from './subjects.ts';
export { AttestationSchema, ExecutionRecordSchema, KeyId, SuppliedRecordSchema, Text } from './schemas/executions.ts';
export { ExecutionBody, executionClaim } from './schemas/execution-body.ts';
export { FingerprintSchema, ModelName } from './schemas/models.ts';
export { BillingEventSchema, PlanIdSchema, TenantStatusSchema } from './schemas/tenancy.ts';
export { IdentityKind, IdentitySubject, PublicKeyPem, SuspensionReason, type IdentityData } from './schemas/identities.ts';
export { ExportPageReply } from './schemas/execution-export.ts';
export { LogProofReply, LogConsistencyReply, LogReceiptReply } from './schemas/execution-log.ts';
export { AuditInputSchema } from './schemas/audit.ts';
export { CallerSchema } from './schemas/tokens.ts';
