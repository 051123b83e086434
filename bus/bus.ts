import { SuiteError, type ErrorData } from './errors.ts';
import { describeMessageProblems } from './define.ts';
import { checkReplyPayload, encodeJson, failure } from './envelope.ts';
import { InFlight, settlesWithin } from './inflight.ts';
import {
  answerRequest,
  noPropagation,
  receiveEvent,
  type ErrorStage,
  type MessageKind,
  type ReceiveContext,
  type SendDone,
  type TracePropagation,
} from './receive.ts';
import { isValidPattern, isValidSubject } from './subject-pattern.ts';
import {
  TransportError,
  type Bus,
  type EventHandler,
  type Headers,
  type Payload,
  type RawHandler,
  type ReplyOf,
  type Result,
  type Subscription,
  type Transport,
} from './types.ts';

export interface BusOptions {
  /** Default time a request waits for its reply, in ms (default 5000). */
  requestTimeoutMs?: number;
  /** How long `drain()` waits for in-flight work before closing anyway, in ms (default 10000). */
  drainTimeoutMs?: number;
  /** Trace context propagation (W3C `traceparent`); the default propagates nothing. */
  propagation?: TracePropagation;
  /**
   * Where failures that cannot travel to a caller go: handler exceptions (their text is never
   * sent), payloads refused by a schema, events dropped, drain overruns. Default: ignored.
   */
  onError?: (error: unknown, info: { subject: string; stage: ErrorStage }) => void;
  /**
   * Which handler failures are a dependency being down rather than a bug (storage unreachable): the
   * catalogue error to answer instead of INTERNAL_ERROR (reported to `onError` as stage
   * 'unavailable'). Given by the runtime, which knows the storage's errors; the bus does not.
   * Default: none, every throw is INTERNAL_ERROR.
   */
  classifyError?: (error: unknown) => ErrorData | undefined;
}

type BusConfig = Readonly<Required<BusOptions>>;

/** The words every 503 whose write may have happened carries; the HTTP edge adds the Idempotency-Key to retry with. */
export const OUTCOME_UNKNOWN = 'the outcome is unknown';
/** The words of a refusal that certainly did nothing (docs/ERRORS.md, "Outcome unknown"). */
export const NOTHING_DONE = 'nothing was done';

/** How a publish that went out ends its producer span. */
const PUBLISHED: Result<unknown> = Object.freeze({ ok: true, value: undefined });

function compileOptions(options: BusOptions): BusConfig {
  const requestTimeoutMs = options.requestTimeoutMs ?? 5000;
  const drainTimeoutMs = options.drainTimeoutMs ?? 10_000;
  for (const [name, value] of [
    ['requestTimeoutMs', requestTimeoutMs],
    ['drainTimeoutMs', drainTimeoutMs],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) throw new TypeError(`bus option ${name} must be a positive integer`);
  }
  return Object.freeze({
    requestTimeoutMs,
    drainTimeoutMs,
    propagation: options.propagation ?? noPropagation,
    onError: options.onError ?? (() => {}),
    classifyError: options.classifyError ?? (() => undefined),
  });
}

/**
 * The typed bus over a transport (NATS or memory). Validates every request and reply on send and
 * on receive over a network, on receive only in the process (`Transport.inProcess`; events on both
 * sides everywhere), carries errors as data, propagates trace context, and drains before it closes.
 */
export function createBus(transport: Transport, options: BusOptions = {}): Bus {
  const config = compileOptions(options);
  let state: 'running' | 'draining' | 'closed' = 'running';
  let drained: Promise<void> | undefined;
  const subscriptions = new Set<Subscription>();
  const outgoing = new InFlight();

  const ctx: ReceiveContext = {
    payloads: transport.payloads,
    inProcess: transport.inProcess,
    propagation: config.propagation,
    classify: config.classifyError,
    report(error, subject, stage) {
      try {
        config.onError(error, { subject, stage });
      } catch {
        // A failing logger must not take the bus down with it.
      }
    },
  };

  /**
   * Adds the current trace context to a copy of the caller's headers; returns what ends the
   * message's span when the propagation opened one. A caller forwarding a context it received (an
   * edge relaying `traceparent`) keeps it, and no span is opened on its behalf.
   */
  function traceOutgoing(headers: Headers, subject: string, kind: MessageKind): SendDone | undefined {
    if (Object.hasOwn(headers, 'traceparent')) return undefined;
    return config.propagation.inject(headers, subject, kind);
  }

  function assertAccepting(subject: string): void {
    if (state !== 'running') throw new SuiteError('SERVICE_UNAVAILABLE', `${subject}: the bus is draining`);
  }

  function listen(pattern: string, queue: string | undefined, handler: RawHandler, work: InFlight): Subscription {
    assertAccepting(pattern);
    let raw;
    try {
      raw = transport.subscribe(pattern, queue, handler);
    } catch (cause) {
      throw new SuiteError('SERVICE_UNAVAILABLE', `${pattern}: cannot subscribe`, { cause });
    }
    let gone: Promise<void> | undefined;
    const subscription: Subscription = {
      unsubscribe() {
        gone ??= (async () => {
          subscriptions.delete(subscription);
          try {
            await raw.unsubscribe();
          } catch (error) {
            ctx.report(error, pattern, 'transport');
          }
          // Messages already received are still being handled: they finish first.
          await work.idle();
        })();
        return gone;
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  function transportFailure(error: unknown, subject: string): Result<never> {
    if (error instanceof TransportError) {
      // Sent but not answered: the actor may have carried it out (docs/ERRORS.md, "Outcome unknown").
      const sent = error.code === 'BUS_TIMEOUT' || error.code === 'BUS_CLOSED';
      // Not sent (no responder, no connection): nothing was done, and a retry is safe with or without a key.
      const message = sent ? `${error.message}; ${OUTCOME_UNKNOWN}: it may have been carried out` : `${error.message}; ${NOTHING_DONE}`;
      return { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message }, transport: error.code };
    }
    ctx.report(error, subject, 'transport');
    return failure('SERVICE_UNAVAILABLE', `${subject}: the bus could not deliver the request`);
  }

  const bus: Bus = {
    async request(subject, data, requestOptions = {}) {
      const name = subject.subject;
      // On a network the request is refused before it is sent; in the process the serving side's
      // check on receipt (receive.ts) is the one check, and answers the same INVALID_REQUEST.
      if (!transport.inProcess) {
        const problem = describeMessageProblems(subject.request, data);
        if (problem !== undefined) return failure('INVALID_REQUEST', `${name}: ${problem}`);
      }
      let payload: Payload;
      try {
        payload = encodeJson(data, transport.payloads);
      } catch {
        return failure('INVALID_REQUEST', `${name}: the request cannot be encoded as JSON`);
      }
      const timeoutMs = requestOptions.timeoutMs ?? config.requestTimeoutMs;
      const headers: Headers = { ...requestOptions.headers };
      const done = traceOutgoing(headers, name, 'request');
      let raw;
      try {
        raw = await outgoing.track(transport.request(name, payload, headers, timeoutMs));
      } catch (error) {
        const failed = transportFailure(error, name);
        done?.(failed);
        return failed;
      }
      const checked = checkReplyPayload(name, subject.reply, raw.payload);
      if (checked.problem !== undefined) {
        ctx.report(new SuiteError('INTERNAL_ERROR', checked.problem), name, 'invalid-reply');
      }
      done?.(checked.result);
      // checkReplyPayload validated the value against subject.reply.
      return checked.result as Result<ReplyOf<typeof subject>>;
    },

    serve(subject, handler, serveOptions = {}) {
      const work = new InFlight();
      return listen(
        subject.subject,
        serveOptions.queue,
        (msg, respond) => {
          if (respond === undefined) {
            const error = new SuiteError('INVALID_REQUEST', `${msg.subject}: a publish arrived on a request subject`);
            ctx.report(error, subject.subject, 'invalid-request');
            return;
          }
          const answered = answerRequest(ctx, subject, handler, msg).then((reply) => respond(reply));
          void work.track(answered.catch((error: unknown) => ctx.report(error, subject.subject, 'transport')));
        },
        work,
      );
    },

    publish(subject, data, publishOptions = {}) {
      const { suffix } = publishOptions;
      const target = suffix === undefined ? subject.subject : `${subject.subject}.${suffix}`;
      if (!isValidSubject(target)) throw new SuiteError('INVALID_REQUEST', `"${suffix}" is not a valid subject suffix`);
      const problem = describeMessageProblems(subject.event, data);
      if (problem !== undefined) throw new SuiteError('INVALID_REQUEST', `${subject.subject}: ${problem}`);
      let payload: Payload;
      try {
        payload = encodeJson(data, transport.payloads);
      } catch (cause) {
        throw new SuiteError('INVALID_REQUEST', `${subject.subject}: the event cannot be encoded as JSON`, { cause });
      }
      const headers: Headers = { ...publishOptions.headers };
      const done = traceOutgoing(headers, subject.subject, 'event');
      try {
        transport.publish(target, payload, headers);
      } catch (cause) {
        const error = new SuiteError('SERVICE_UNAVAILABLE', `${target}: the event could not be published`, { cause });
        done?.({ ok: false, error: error.toData() });
        throw error;
      }
      done?.(PUBLISHED);
    },

    subscribe(subject, handler, subscribeOptions = {}) {
      const work = new InFlight();
      const pattern = subscribeOptions.pattern ?? subject.subject;
      if (!isValidPattern(pattern)) throw new TypeError(`"${pattern}" is not a valid subscription pattern`);
      // receiveEvent validated data against subject.event before the handler sees it.
      const untyped = handler as EventHandler<unknown>;
      return listen(
        pattern,
        subscribeOptions.queue,
        (msg) => {
          void work.track(receiveEvent(ctx, subject, untyped, msg));
        },
        work,
      );
    },

    async flush() {
      try {
        await transport.flush();
      } catch (cause) {
        throw new SuiteError('SERVICE_UNAVAILABLE', 'the bus could not flush to its server', { cause });
      }
    },

    isConnected: () => state !== 'closed' && transport.isConnected(),
    onStatus: (listener) => transport.onStatus(listener),

    drain() {
      drained ??= (async () => {
        state = 'draining';
        // Incoming work stops first; outgoing requests stay possible so in-flight handlers can
        // finish their own calls; then the transport flushes and closes.
        const finished = Promise.all([...subscriptions].map((s) => s.unsubscribe())).then(() => outgoing.idle());
        if (!(await settlesWithin(finished, config.drainTimeoutMs))) {
          const error = new SuiteError('SERVICE_UNAVAILABLE', `drain gave up on in-flight work after ${config.drainTimeoutMs} ms`);
          ctx.report(error, '*', 'drain');
        }
        try {
          await transport.drain();
        } catch (error) {
          ctx.report(error, '*', 'drain');
        }
        state = 'closed';
      })();
      return drained;
    },

    closed: () => transport.closed(),
  };
  return bus;
}

export type { TracePropagation, ErrorStage, MessageKind };
