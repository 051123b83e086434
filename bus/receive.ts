import { SuiteError, type ErrorData } from './errors.ts';
import { describeMessageProblems } from './define.ts';
import { checkReply, decodeJson, encodeReply, failure, internalFailure } from './envelope.ts';
import type {
  EventHandler,
  EventSubject,
  Headers,
  Incoming,
  Payload,
  PayloadForm,
  RawMessage,
  RequestHandler,
  RequestOf,
  RequestSubject,
  Result,
} from './types.ts';

/**
 * The receiving side of the bus: everything that arrives is untrusted until it passed its schema,
 * whatever the sender claims to have checked (DESIGN.md, "The bus").
 */

/** Where the receiving side reports what it refused or what failed, for the logs. */
export type ErrorStage = 'handler' | 'unavailable' | 'invalid-request' | 'invalid-reply' | 'invalid-event' | 'transport' | 'drain';
export type Report = (error: unknown, subject: string, stage: ErrorStage) => void;

/**
 * What a message is, for tracing: `request` is a request/reply exchange (client and server spans),
 * `event` a publish (producer and consumer spans). The subject is the declared one, never a
 * wildcard match or a namespaced wire name, so span names stay few and stable.
 */
export type MessageKind = 'request' | 'event';

/** Ends the span of an outgoing message with how it went (the reply of a request, or the publish). */
export type SendDone = (result: Result<unknown>) => void;

/**
 * W3C Trace Context propagation, injected so the bus does not depend on OpenTelemetry
 * (observability/bus-tracing.ts implements it with spans; the default does nothing).
 */
export interface TracePropagation {
  /**
   * Adds the current context (`traceparent`, `tracestate`) to the headers of an outgoing message.
   * A tracing implementation opens the message's client or producer span here, injects that span's
   * context, and returns what ends the span once the reply arrived or the publish went out.
   */
  inject(headers: Headers, subject: string, kind: MessageKind): SendDone | undefined;
  /**
   * Runs `fn` (the handler) inside the context carried by incoming headers; a tracing
   * implementation runs it inside a server or consumer span, child of that context.
   */
  extract<T>(headers: Headers, fn: () => T, subject: string, kind: MessageKind): T;
}

export const noPropagation: TracePropagation = Object.freeze({
  inject(): undefined {},
  extract<T>(_headers: Headers, fn: () => T): T {
    return fn();
  },
});

export interface ReceiveContext {
  readonly propagation: TracePropagation;
  readonly report: Report;
  /** A handler's throw that is a dependency down (BusOptions.classifyError): answered with this, not INTERNAL_ERROR. */
  readonly classify?: (error: unknown) => ErrorData | undefined;
  /** How replies are encoded: the transport's `payloads`. */
  readonly payloads: PayloadForm;
  /**
   * The transport's `inProcess`: the requester is in this process and checks the reply on receipt,
   * so the serving side does not check it first (one check per message).
   */
  readonly inProcess: boolean;
}

/**
 * Answers one request: decode, validate, run the handler inside the caller's trace context, check
 * the reply (on a network; in the process the requester checks it). Never rejects; every failure
 * becomes an error envelope.
 */
export async function answerRequest<S extends RequestSubject>(ctx: ReceiveContext, subject: S, handler: RequestHandler<S>, msg: RawMessage): Promise<Payload> {
  const name = subject.subject;
  const as = ctx.payloads;
  const decoded = decodeJson(msg.payload);
  const problem = decoded.ok ? describeMessageProblems(subject.request, decoded.value) : decoded.problem;
  if (!decoded.ok || problem !== undefined) {
    // The sender validates too, so this is a buggy or hostile peer: worth a log line.
    ctx.report(new SuiteError('INVALID_REQUEST', `${name}: ${problem}`), name, 'invalid-request');
    return encodeReply(failure('INVALID_REQUEST', `${name}: ${problem}`), as);
  }
  let reply: unknown;
  try {
    // Checked against subject.request just above.
    const data = decoded.value as RequestOf<S>;
    const incoming: Incoming<RequestOf<S>> = { subject: msg.subject, data, headers: msg.headers };
    reply = await ctx.propagation.extract(msg.headers, () => handler(incoming), name, 'request');
  } catch (error) {
    const unavailable = ctx.classify?.(error);
    if (unavailable !== undefined) {
      ctx.report(error, name, 'unavailable');
      return encodeReply(failure(unavailable.code, `${name}: ${unavailable.message}`), as);
    }
    // The thrown text may hold internals (SQL, paths, secrets): it goes to the log, not the caller.
    ctx.report(error, name, 'handler');
    return encodeReply(internalFailure(name), as);
  }
  let result: Result<unknown>;
  if (ctx.inProcess) {
    // Checked by the requesting side's bus when it decodes it (bus.ts, checkReplyPayload), which
    // reports it there; a value that is not an envelope fails to encode here or is refused there.
    result = reply as Result<unknown>;
  } else {
    const checked = checkReply(name, subject.reply, reply);
    if (checked.problem !== undefined) {
      ctx.report(new SuiteError('INTERNAL_ERROR', checked.problem), name, 'invalid-reply');
    }
    result = checked.result;
  }
  try {
    return encodeReply(result, as);
  } catch (error) {
    ctx.report(error, name, 'invalid-reply');
    return encodeReply(internalFailure(name), as);
  }
}

/** Delivers one event to its handler if it passes its schema; drops and reports it otherwise. */
export async function receiveEvent<S extends EventSubject>(ctx: ReceiveContext, subject: S, handler: EventHandler<unknown>, msg: RawMessage): Promise<void> {
  const decoded = decodeJson(msg.payload);
  const problem = decoded.ok ? describeMessageProblems(subject.event, decoded.value) : decoded.problem;
  if (!decoded.ok || problem !== undefined) {
    ctx.report(new SuiteError('INVALID_REQUEST', `${msg.subject}: ${problem}`), msg.subject, 'invalid-event');
    return;
  }
  try {
    const incoming = { subject: msg.subject, data: decoded.value, headers: msg.headers };
    await ctx.propagation.extract(msg.headers, () => handler(incoming), subject.subject, 'event');
  } catch (error) {
    ctx.report(error, msg.subject, 'handler');
  }
}
