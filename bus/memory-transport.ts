import { hasWildcard, isValidPattern, isValidSubject, matchTokens } from './subject-pattern.ts';
import {
  TransportError,
  type BusStatus,
  type Headers,
  type Payload,
  type RawHandler,
  type RawMessage,
  type Transport,
  type TransportSubscription,
} from './types.ts';

/**
 * The embedded transport: NATS semantics in one process. A network is the "server" (the subscription
 * index); each `connect()` is a client connection with its own subscriptions, pending requests and
 * lifecycle, so draining one connection leaves the others running, as with NATS.
 *
 * Semantics kept from NATS: `*` / `>` wildcards; each message goes to every plain subscriber and to
 * exactly one member of each queue group (grouped by queue name, round-robin); a request nobody
 * listens to fails at once with BUS_NO_RESPONDERS; delivery is asynchronous (a microtask, never
 * re-entrant); payloads are copied, so sender and receivers never share a buffer.
 *
 * Messages stay in the process, so the bus hands this transport its JSON as text (`payloads`):
 * strings are immutable, so they need no copy, and neither side encodes or decodes UTF-8. Bytes
 * are accepted too (and copied), as on a network transport.
 */
export interface MemoryNetwork {
  connect(options?: MemoryTransportOptions): Transport;
}

export interface MemoryTransportOptions {
  /**
   * A raw handler that throws is a bug of the layer above (the bus never throws from one). It is
   * reported here; the default rethrows it out of band so that it is seen, as nats.js would.
   */
  onError?: (error: unknown) => void;
}

interface MemorySub {
  readonly pattern: string;
  /** Pattern tokens for wildcard subscriptions; null for exact ones (indexed by subject). */
  readonly tokens: readonly string[] | null;
  readonly queue: string | undefined;
  readonly handler: RawHandler;
  readonly conn: Connection;
  /** Deliveries routed to this subscription but not yet run; a drain waits for them. */
  pending: number;
  onIdle: (() => void) | undefined;
}

type Respond = (payload: Payload, headers?: Headers) => void;

/** A payload as its receiver gets it: bytes copied, text as it is (immutable). */
const own = (payload: Payload): Payload => (typeof payload === 'string' ? payload : payload.slice());

interface Connection {
  state: 'connected' | 'draining' | 'closed';
  readonly report: (error: unknown) => void;
}

/** A fresh, isolated network; connect as many transports to it as roles need. */
export function createMemoryNetwork(): MemoryNetwork {
  // Exact subjects are looked up in a Map; only wildcard subscriptions are scanned per message.
  const exact = new Map<string, Set<MemorySub>>();
  let wildcards: MemorySub[] = [];
  const roundRobin = new Map<string, number>();

  function add(sub: MemorySub): void {
    if (sub.tokens !== null) {
      wildcards = [...wildcards, sub];
      return;
    }
    let set = exact.get(sub.pattern);
    if (set === undefined) {
      set = new Set();
      exact.set(sub.pattern, set);
    }
    set.add(sub);
  }

  function remove(sub: MemorySub): void {
    if (sub.tokens !== null) {
      // Copy-on-write: a route in progress keeps iterating the array it started with.
      wildcards = wildcards.filter((s) => s !== sub);
      return;
    }
    const set = exact.get(sub.pattern);
    set?.delete(sub);
    if (set?.size === 0) exact.delete(sub.pattern);
  }

  /** Every plain subscriber, plus one member of each queue group. */
  function route(subject: string): MemorySub[] {
    const out: MemorySub[] = [];
    let groups: Map<string, MemorySub[]> | undefined;
    const consider = (sub: MemorySub): void => {
      if (sub.queue === undefined) {
        out.push(sub);
        return;
      }
      groups ??= new Map();
      const members = groups.get(sub.queue);
      if (members === undefined) groups.set(sub.queue, [sub]);
      else members.push(sub);
    };
    const direct = exact.get(subject);
    if (direct !== undefined) for (const sub of direct) consider(sub);
    if (wildcards.length > 0) {
      const tokens = subject.split('.');
      for (const sub of wildcards) if (sub.tokens !== null && matchTokens(sub.tokens, tokens)) consider(sub);
    }
    if (groups !== undefined) {
      for (const [queue, members] of groups) {
        const turn = roundRobin.get(queue) ?? 0;
        roundRobin.set(queue, (turn + 1) >>> 0);
        out.push(members[turn % members.length] as MemorySub);
      }
    }
    return out;
  }

  function deliver(sub: MemorySub, msg: RawMessage, respond: Respond | undefined): void {
    sub.pending++;
    queueMicrotask(() => {
      try {
        sub.handler(msg, respond);
      } catch (error) {
        sub.conn.report(error);
      } finally {
        sub.pending--;
        if (sub.pending === 0 && sub.onIdle !== undefined) sub.onIdle();
      }
    });
  }

  /** Routes a message; returns how many subscriptions it went to. Copies bytes per receiver. */
  function send(subject: string, payload: Payload, headers: Headers, respond?: Respond): number {
    const targets = route(subject);
    for (const sub of targets) {
      // A responder whose own connection closed meanwhile can no longer answer, as with NATS.
      const reply = respond && ((p: Payload, h?: Headers) => sub.conn.state !== 'closed' && respond(p, h));
      deliver(sub, { subject, payload: own(payload), headers: { ...headers } }, reply);
    }
    return targets.length;
  }

  function connect(options: MemoryTransportOptions = {}): Transport {
    const report =
      options.onError ??
      ((error: unknown) =>
        queueMicrotask(() => {
          throw error;
        }));
    const conn: Connection = { state: 'connected', report };
    const subs = new Set<MemorySub>();
    const requests = new Set<(error: TransportError) => void>();
    const listeners = new Set<(status: BusStatus) => void>();
    let drained: Promise<void> | undefined;
    let markClosed!: () => void;
    const closed = new Promise<void>((resolve) => (markClosed = resolve));

    const closedError = (): TransportError => new TransportError('BUS_CLOSED', 'the bus connection is closed');

    function unsubscribe(sub: MemorySub): Promise<void> {
      if (subs.delete(sub)) remove(sub);
      // Like a NATS subscription drain: messages already routed here are still delivered.
      if (sub.pending === 0) return Promise.resolve();
      return new Promise((resolve) => (sub.onIdle = resolve));
    }

    return {
      name: 'memory',
      payloads: 'text',
      inProcess: true,

      request(subject, payload, headers, timeoutMs) {
        if (conn.state !== 'connected') return Promise.reject(closedError());
        if (!isValidSubject(subject)) return Promise.reject(new TypeError(`invalid subject "${subject}"`));
        return new Promise<RawMessage>((resolve, reject) => {
          let done = false;
          const finish = (): void => {
            done = true;
            clearTimeout(timer);
            requests.delete(fail);
          };
          const fail = (error: TransportError): void => {
            if (done) return;
            finish();
            reject(error);
          };
          const timer = setTimeout(() => fail(new TransportError('BUS_TIMEOUT', `request to ${subject} timed out after ${timeoutMs} ms`)), timeoutMs);
          requests.add(fail);
          // First answer wins, as with a NATS request to several plain subscribers.
          const respond = (reply: Payload, replyHeaders: Headers = {}): void => {
            if (done) return;
            const msg: RawMessage = { subject, payload: own(reply), headers: { ...replyHeaders } };
            queueMicrotask(() => {
              if (done) return;
              finish();
              resolve(msg);
            });
          };
          if (send(subject, payload, headers, respond) === 0) {
            fail(new TransportError('BUS_NO_RESPONDERS', `no responders for ${subject}`));
          }
        });
      },

      publish(subject, payload, headers) {
        if (conn.state === 'closed') throw closedError();
        if (!isValidSubject(subject)) throw new TypeError(`invalid subject "${subject}"`);
        send(subject, payload, headers);
      },

      subscribe(pattern, queue, handler): TransportSubscription {
        if (conn.state !== 'connected') throw closedError();
        if (!isValidPattern(pattern)) throw new TypeError(`invalid subscription pattern "${pattern}"`);
        const tokens = hasWildcard(pattern) ? pattern.split('.') : null;
        const sub: MemorySub = { pattern, tokens, queue, handler, conn, pending: 0, onIdle: undefined };
        subs.add(sub);
        add(sub);
        let gone: Promise<void> | undefined;
        return { unsubscribe: () => (gone ??= unsubscribe(sub)) };
      },

      // Subscriptions enter the index synchronously, so there is nothing in transit to wait for.
      flush: () => (conn.state === 'closed' ? Promise.reject(closedError()) : Promise.resolve()),

      isConnected: () => conn.state === 'connected',

      onStatus(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },

      drain() {
        drained ??= (async () => {
          conn.state = 'draining';
          await Promise.all([...subs].map(unsubscribe));
          conn.state = 'closed';
          for (const fail of [...requests]) fail(closedError());
          for (const listener of listeners) {
            try {
              listener('closed');
            } catch (error) {
              report(error);
            }
          }
          markClosed();
        })();
        return drained;
      },

      closed: () => closed,
    };
  }

  return { connect };
}

/** A transport on a network of its own: the embedded default, where one process is the whole bus. */
export function createMemoryTransport(options?: MemoryTransportOptions): Transport {
  return createMemoryNetwork().connect(options);
}
