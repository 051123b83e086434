import { connect, errors, headers as natsHeaders } from '@nats-io/transport-node';
import type { Msg, MsgHdrs, NatsConnection, Status } from '@nats-io/transport-node';
import { SuiteError } from './errors.ts';
import { TransportError, type BusStatus, type Headers, type Payload, type RawMessage, type Transport } from './types.ts';

export interface NatsTransportOptions {
  /** One URL or several (a cluster), e.g. `nats://127.0.0.1:4222`. */
  servers: string | string[];
  /** Connection name shown by the server (`nats-server` monitoring): the role of this process. */
  name: string;
  token?: string;
  user?: string;
  pass?: string;
  /** Wait between reconnect attempts, in ms (default 1000, plus up to 500 ms of jitter). */
  reconnectWaitMs?: number;
  /** Keep trying when the first connection fails, instead of rejecting (default false). */
  waitOnFirstConnect?: boolean;
  /** Server ping interval in ms; a dead server is noticed after about 3 of them (default 10000). */
  pingIntervalMs?: number;
  /** Failures with no caller to answer: a raw handler that threw, a server error status. */
  onError?: (error: unknown) => void;
}

/**
 * A transport over NATS (`@nats-io/transport-node` v3). It moves bytes and headers only; the bus
 * above owns schemas and the error catalogue. Reconnects forever: a broker restart is an outage to
 * wait out, not a reason to exit.
 */
export async function connectNatsTransport(options: NatsTransportOptions): Promise<Transport> {
  const report =
    options.onError ??
    ((error: unknown) =>
      queueMicrotask(() => {
        throw error;
      }));
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: options.servers,
      name: options.name,
      // Only the credentials given: nats.js treats a present-but-undefined key as set.
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(options.user === undefined ? {} : { user: options.user, pass: options.pass ?? '' }),
      maxReconnectAttempts: -1,
      reconnectTimeWait: options.reconnectWaitMs ?? 1000,
      reconnectJitter: 500,
      waitOnFirstConnect: options.waitOnFirstConnect ?? false,
      pingInterval: options.pingIntervalMs ?? 10_000,
      maxPingOut: 3,
      // Async stack traces cost an Error per request; our errors carry the subject instead.
      noAsyncTraces: true,
    });
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new SuiteError('SERVICE_UNAVAILABLE', `cannot connect to NATS at ${String(options.servers)}: ${reason}`, { cause });
  }

  let status: BusStatus = 'connected';
  const listeners = new Set<(status: BusStatus) => void>();
  const emit = (next: BusStatus): void => {
    if (next === status) return;
    status = next;
    for (const listener of listeners) {
      try {
        listener(next);
      } catch (error) {
        report(error);
      }
    }
  };
  void watchStatus(nc, emit, report);
  void nc.closed().then(() => emit('closed'));

  let drained: Promise<void> | undefined;

  return {
    name: 'nats',
    payloads: 'bytes',
    inProcess: false,

    async request(subject, payload, hdrs, timeoutMs) {
      // While reconnecting, nats.js would buffer the request and let it wait out its whole timeout
      // even if the broker came back sooner; callers (audit sink, revocation view) retry themselves.
      if (status === 'disconnected' || status === 'reconnecting') {
        throw new TransportError('BUS_DISCONNECTED', `${subject}: not connected to NATS`);
      }
      try {
        const msg = await nc.request(subject, payload, { timeout: Math.max(1, timeoutMs), headers: toMsgHdrs(hdrs) });
        return toRawMessage(msg);
      } catch (error) {
        throw mapError(nc, subject, error, timeoutMs);
      }
    },

    publish(subject, payload, hdrs) {
      try {
        nc.publish(subject, payload, { headers: toMsgHdrs(hdrs) });
      } catch (error) {
        throw mapError(nc, subject, error, 0);
      }
    },

    subscribe(pattern, queue, handler) {
      let sub;
      try {
        sub = nc.subscribe(pattern, {
          queue,
          callback: (err, msg) => {
            if (err !== null) {
              report(err);
              return;
            }
            const respond =
              msg.reply === undefined || msg.reply === ''
                ? undefined
                : (reply: Payload, replyHeaders?: Headers) => {
                    // A responder whose connection closed meanwhile has nobody left to tell.
                    if (!nc.isClosed()) msg.respond(reply, { headers: toMsgHdrs(replyHeaders ?? {}) });
                  };
            try {
              handler(toRawMessage(msg), respond);
            } catch (error) {
              // Throwing into nats.js would break its protocol parser: report instead.
              report(error);
            }
          },
        });
      } catch (error) {
        throw mapError(nc, pattern, error, 0);
      }
      return {
        // Drain, not unsubscribe: messages the client already received are still delivered.
        async unsubscribe() {
          if (nc.isClosed() || sub.isClosed()) return;
          await sub.drain().catch((error: unknown) => {
            if (!nc.isClosed()) throw error;
          });
        },
      };
    },

    async flush() {
      try {
        await nc.flush();
      } catch (error) {
        throw mapError(nc, 'flush', error, 0);
      }
    },

    isConnected: () => status === 'connected' && !nc.isClosed(),

    onStatus(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    drain() {
      drained ??= nc.isClosed() || nc.isDraining() ? nc.closed().then(() => {}) : nc.drain();
      return drained;
    },

    closed: () => nc.closed().then(() => {}),
  };
}

async function watchStatus(nc: NatsConnection, emit: (status: BusStatus) => void, report: (e: unknown) => void): Promise<void> {
  const map: Partial<Record<Status['type'], BusStatus>> = {
    disconnect: 'disconnected',
    reconnecting: 'reconnecting',
    reconnect: 'connected',
    close: 'closed',
  };
  for await (const event of nc.status()) {
    const next = map[event.type];
    if (next !== undefined) emit(next);
    else if (event.type === 'error') report(event.error);
  }
}

function toMsgHdrs(hdrs: Headers): MsgHdrs | undefined {
  const keys = Object.keys(hdrs);
  // Headerless messages are smaller on the wire (PUB instead of HPUB).
  if (keys.length === 0) return undefined;
  const h = natsHeaders();
  for (const key of keys) h.set(key, hdrs[key] as string);
  return h;
}

function toRawMessage(msg: Msg): RawMessage {
  const hdrs: Headers = {};
  if (msg.headers !== undefined) {
    // A repeated key keeps its last value: the bus carries single-valued headers only.
    for (const [key, values] of msg.headers) {
      const last = values[values.length - 1];
      if (last !== undefined) hdrs[key] = last;
    }
  }
  return { subject: msg.subject, payload: msg.data, headers: hdrs };
}

/** Maps nats.js v3 errors by class (never by message text) to the transport's codes. */
function mapError(nc: NatsConnection, subject: string, error: unknown, timeoutMs: number): unknown {
  if (error instanceof errors.NoRespondersError || (error instanceof errors.RequestError && error.isNoResponders())) {
    return new TransportError('BUS_NO_RESPONDERS', `no responders for ${subject}`, { cause: error });
  }
  if (error instanceof errors.TimeoutError) {
    return new TransportError('BUS_TIMEOUT', `request to ${subject} timed out after ${timeoutMs} ms`, { cause: error });
  }
  const closing = error instanceof errors.ClosedConnectionError || error instanceof errors.DrainingConnectionError;
  if (closing || nc.isClosed() || nc.isDraining()) {
    return new TransportError('BUS_CLOSED', 'the bus connection is closed', { cause: error });
  }
  return error;
}
