import type { RawHandler, Transport } from './types.ts';

/**
 * A transport whose subjects all live under `namespace.` on the wire, so that several suite
 * deployments can share one NATS server without answering each other's requests or keeping each
 * other's revocation views alive. Above this seam subjects are the declared ones.
 */
export function namespacedTransport(inner: Transport, namespace: string): Transport {
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(namespace)) {
    throw new TypeError(`bus namespace "${namespace}" must be dot-separated tokens of letters, digits, _ and -`);
  }
  const prefix = `${namespace}.`;
  const strip = (subject: string) => (subject.startsWith(prefix) ? subject.slice(prefix.length) : subject);
  return {
    name: inner.name,
    payloads: inner.payloads,
    inProcess: inner.inProcess,
    async request(subject, payload, headers, timeoutMs) {
      const reply = await inner.request(prefix + subject, payload, headers, timeoutMs);
      return { ...reply, subject: strip(reply.subject) };
    },
    publish: (subject, payload, headers) => inner.publish(prefix + subject, payload, headers),
    subscribe(pattern, queue, handler: RawHandler) {
      return inner.subscribe(prefix + pattern, queue, (msg, respond) => handler({ ...msg, subject: strip(msg.subject) }, respond));
    },
    flush: () => inner.flush(),
    isConnected: () => inner.isConnected(),
    onStatus: (listener) => inner.onStatus(listener),
    drain: () => inner.drain(),
    closed: () => inner.closed(),
  };
}
