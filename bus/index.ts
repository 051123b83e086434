/**
 * The bus: typed subjects, one `Bus` interface, and its two transports (NATS for a distributed
 * deployment, memory for the embedded default). The spine's and the token service's subjects are
 * declared in `subjects.ts`; other services declare theirs in their own folders.
 */
export { createBus, NOTHING_DONE, OUTCOME_UNKNOWN } from './bus.ts';
export type { BusOptions, ErrorStage, MessageKind, SendDone, TracePropagation } from './bus.ts';
export { noPropagation } from './receive.ts';
export { requestSubject, eventSubject, describeMessageProblems } from './define.ts';
export { textProblem, hashedJson, clipText, MAX_STRING_LENGTH, MAX_DEPTH, HASHED_KEYWORD, type TextProblem } from './text-rule.ts';
export { createMemoryNetwork, createMemoryTransport } from './memory-transport.ts';
export type { MemoryNetwork, MemoryTransportOptions } from './memory-transport.ts';
export { connectNatsTransport } from './nats-transport.ts';
export { namespacedTransport } from './namespace.ts';
export type { NatsTransportOptions } from './nats-transport.ts';
export { TransportError } from './types.ts';
export type {
  Bus,
  BusStatus,
  EventHandler,
  EventOf,
  EventSubject,
  Headers,
  Incoming,
  Payload,
  PayloadForm,
  ReplyOf,
  RequestHandler,
  RequestOf,
  RequestOptions,
  RequestSubject,
  Result,
  ServeOptions,
  SubscribeOptions,
  RawMessage,
  RawHandler,
  TransportSubscription,
  Subscription,
  Transport,
  TransportErrorCode,
} from './types.ts';
export { ERROR_CODES, ErrorCodeSchema, ErrorDataSchema, SuiteError, isErrorCode } from './errors.ts';
export type { ErrorCode, ErrorData } from './errors.ts';

// The spine's and token service's subjects, and the message schemas edges build their bodies from.
export { subjects } from './subjects.ts';
export { PUBLIC_EVENTS, PUBLIC_EVENT_PREFIX, type PublicEvent } from './public-events.ts';
export { asyncApiDocument } from './asyncapi.ts';
export { INTERFACE_VERSION } from './interface-version.ts';
export type { AuditInput, AuditEntry, Caller, ExecutionClaim, RecordRequestData, VerifyReplyData, Tenant, UsageReport, Metric, MeterReplyData, BillingEvent } from './subjects.ts';
export { AttestationSchema, ExecutionRecordSchema, GovernanceSchema, KeyId, Outcome, SuppliedRecordSchema, Text } from './schemas/executions.ts';
export { ExecutionBody, executionClaim } from './schemas/execution-body.ts';
export { FingerprintSchema, ModelName } from './schemas/models.ts';
export { BillingEventSchema, PlanIdSchema, TenantStatusSchema } from './schemas/tenancy.ts';
export { IdentityKind, IdentitySubject, PublicKeyPem, SuspensionReason, type IdentityData } from './schemas/identities.ts';
export { ExportPageRequest, ExportPageReply } from './schemas/execution-export.ts';
export { LogProofReply, LogConsistencyReply, LogReceiptReply, LogCheckpointReply, LogVkeyReply } from './schemas/execution-log.ts';
export { AuditInputSchema } from './schemas/audit.ts';
export { CallerSchema } from './schemas/tokens.ts';
