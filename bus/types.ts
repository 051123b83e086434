import type { TSchema, Static } from 'typebox';
import type { ErrorData } from './errors.ts';

/** Message headers. `traceparent` (W3C Trace Context) travels here; so may `suite-request-id`. */
export type Headers = Record<string, string>;

/**
 * A request/reply subject: declared once in `bus/subjects.ts` with the schema of its request and of
 * its successful reply. Both are validated when sent and when received.
 */
export interface RequestSubject<Req extends TSchema = TSchema, Res extends TSchema = TSchema> {
  readonly kind: 'request';
  readonly subject: string;
  readonly request: Req;
  readonly reply: Res;
}

/** A publish/subscribe subject (broadcasts such as `revocation` and `trace appended`). */
export interface EventSubject<Ev extends TSchema = TSchema> {
  readonly kind: 'event';
  readonly subject: string;
  readonly event: Ev;
}

export type RequestOf<S extends RequestSubject> = Static<S['request']>;
export type ReplyOf<S extends RequestSubject> = Static<S['reply']>;
export type EventOf<S extends EventSubject> = Static<S['event']>;

/**
 * What a request answers: the reply, or an error from the catalogue as data. A transport failure is
 * answered as `SERVICE_UNAVAILABLE` with `transport` naming what failed (timeout, no responders, closed).
 */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorData; transport?: TransportErrorCode };

export interface RequestOptions {
  /** Milliseconds before the request fails with `BUS_TIMEOUT`; default from the bus options. */
  timeoutMs?: number;
  headers?: Headers;
}

export interface ServeOptions {
  /** Queue group: each request goes to exactly one member of the group. */
  queue?: string;
}

export interface SubscribeOptions {
  /** Queue group: each message goes to exactly one member of the group. */
  queue?: string;
}

export interface Incoming<T> {
  subject: string;
  data: T;
  headers: Headers;
}

export type RequestHandler<S extends RequestSubject> = (msg: Incoming<RequestOf<S>>) => Promise<Result<ReplyOf<S>>> | Result<ReplyOf<S>>;

export type EventHandler<T> = (msg: Incoming<T>) => void | Promise<void>;

export interface Subscription {
  /** Stop receiving; messages already being handled finish first. */
  unsubscribe(): Promise<void>;
}

/**
 * The one bus interface. Typed over declared subjects; every payload is validated on send and on
 * receive; errors come back as data. Transport failures (no responders, timeout, closed bus) are
 * also answered as data (`SERVICE_UNAVAILABLE` + `transport`), so callers handle one shape. A handler
 * that throws answers `INTERNAL_ERROR` (the thrown text is logged, never sent); a payload that fails
 * its schema answers `INVALID_REQUEST` naming the field.
 */
export interface Bus {
  request<S extends RequestSubject>(subject: S, data: RequestOf<S>, options?: RequestOptions): Promise<Result<ReplyOf<S>>>;
  /** Answer requests on a subject (wildcards not allowed for serving). */
  serve<S extends RequestSubject>(subject: S, handler: RequestHandler<S>, options?: ServeOptions): Subscription;
  publish<S extends EventSubject>(subject: S, data: EventOf<S>, options?: { headers?: Headers; suffix?: string }): void;
  /**
   * Subscribe to an event subject. `pattern` may narrow or widen with NATS wildcards (`*` one token,
   * `>` the rest) as long as it matches the declared subject's messages.
   */
  subscribe<S extends EventSubject>(subject: S, handler: EventHandler<EventOf<S>>, options?: SubscribeOptions & { pattern?: string }): Subscription;
  /**
   * Resolves once everything sent so far, subscriptions included, reached the server: after
   * `serve()` then `flush()`, requests from other processes find this responder.
   */
  flush(): Promise<void>;
  /** True while the transport is connected and usable. */
  isConnected(): boolean;
  /** Listen to connection state changes (for fail-closed caches such as the revocation view). */
  onStatus(listener: (status: BusStatus) => void): () => void;
  /** Finish in-flight handlers, flush outgoing messages, then close. Idempotent. */
  drain(): Promise<void>;
  /** Resolves when the bus has closed (after drain, or when the connection is lost for good). */
  closed(): Promise<void>;
}

export type BusStatus = 'connected' | 'disconnected' | 'reconnecting' | 'closed';

/**
 * A message's JSON: UTF-8 bytes on a wire, or the JSON text itself where a transport keeps messages
 * in the process (`Transport.payloads`). Receivers accept either.
 */
export type Payload = Uint8Array | string;

/** Which of the two a transport takes (`Transport.payloads`). */
export type PayloadForm = 'bytes' | 'text';

/**
 * The seam between the typed bus and the wire, after nats.js's Transport split: a transport moves
 * payloads and headers; it knows nothing of schemas or of the error catalogue.
 */
export interface Transport {
  readonly name: 'nats' | 'memory';
  /**
   * What the bus should hand this transport: `bytes` (a network wire), or `text`, the JSON string
   * itself (in-process: no UTF-8 encoding and decoding on each side).
   */
  readonly payloads: PayloadForm;
  /**
   * True when every sender and receiver is in this process (the memory transport): nothing crosses
   * a process boundary, so the bus checks each message once, where it is received, instead of on
   * both sides (DESIGN.md, "The bus"; issue 28). False on a network, where each side checks.
   */
  readonly inProcess: boolean;
  request(subject: string, payload: Payload, headers: Headers, timeoutMs: number): Promise<RawMessage>;
  publish(subject: string, payload: Payload, headers: Headers): void;
  subscribe(pattern: string, queue: string | undefined, handler: RawHandler): TransportSubscription;
  /** Round trip to the server (NATS `flush`); rejects with BUS_CLOSED when closed. */
  flush(): Promise<void>;
  isConnected(): boolean;
  onStatus(listener: (status: BusStatus) => void): () => void;
  drain(): Promise<void>;
  closed(): Promise<void>;
}

export interface RawMessage {
  subject: string;
  payload: Payload;
  headers: Headers;
}

/** A raw handler; `respond` is present when the message is a request. */
export type RawHandler = (msg: RawMessage, respond?: (payload: Payload, headers?: Headers) => void) => void;

export interface TransportSubscription {
  unsubscribe(): Promise<void>;
}

/** Local codes for transport failures (not in the HTTP catalogue; the edge maps them to 503). */
/** `BUS_DISCONNECTED`: the connection to the broker is down (reconnecting); nothing was sent. */
export type TransportErrorCode = 'BUS_TIMEOUT' | 'BUS_NO_RESPONDERS' | 'BUS_CLOSED' | 'BUS_DISCONNECTED';

export class TransportError extends Error {
  readonly code: TransportErrorCode;
  constructor(code: TransportErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransportError';
    this.code = code;
  }
}
