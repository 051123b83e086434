import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError, type Verified } from '../../edge-http/index.ts';
import type { Gateway, GatewayList } from './pool.ts';

/** A comment line now and then, so proxies and idle timers do not close a quiet stream. */
const HEARTBEAT_MS = 25_000;
const listChanged = (list: GatewayList) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: `notifications/${list}/list_changed` })}\n\n`;

/**
 * `GET /mcp` when the gateway has upstreams (the transport spec's optional server-to-client SSE
 * stream, no session needed): `notifications/tools/list_changed` (or `resources/`, `prompts/`) each
 * time the union of the upstreams' tools (resources, prompts) changes, so a client lists again. The bearer token is checked when the stream
 * opens and again before each notification: a revoked token's stream ends. Streams end when the
 * listener closes (`end`, called from its `preClose`).
 */
export function listChangedStreams(gateway: Gateway) {
  const open = new Set<() => void>();
  return {
    async handle(request: FastifyRequest, reply: FastifyReply, authenticate: () => Promise<Verified>): Promise<FastifyReply | undefined> {
      const who = await authenticate();
      if (!who.ok) return sendError(reply, who.error);
      if (!String(request.headers.accept ?? '').includes('text/event-stream')) {
        return reply
          .code(406)
          .send({ error: { code: 'INVALID_REQUEST', message: 'GET /mcp is a text/event-stream of notifications: send Accept: text/event-stream' } });
      }
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      raw.write(': notifications of this gateway\n\n');
      const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      let unsubscribe = () => {};
      const end = () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(end);
        if (!raw.writableEnded) raw.end();
      };
      open.add(end);
      unsubscribe = gateway.onListChanged((list) => {
        void authenticate().then((again) => (again.ok ? raw.write(listChanged(list)) : end()), end);
      });
      request.raw.once('close', end);
      return undefined;
    },
    end(): void {
      for (const end of [...open]) end();
    },
  };
}
