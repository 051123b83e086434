/**
 * The bus: typed subjects, one `Bus` interface, and its two transports (NATS for a distributed
 * deployment, memory for the embedded default). Subjects themselves are declared in `subjects.ts`.
 */
export { createBus } from './bus.ts';
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
  Subscription,
  Transport,
  TransportErrorCode,
} from './types.ts';
export { ERROR_CODES, ErrorDataSchema, SuiteError, isErrorCode } from './errors.ts';
export type { ErrorCode, ErrorData } from './errors.ts';
