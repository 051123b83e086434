import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import replyFrom from '@fastify/reply-from';
import { Type } from 'typebox';
import type { ServiceName } from '../../config/index.ts';
import { ADMIN_KEY_HEADER, errorsOf, operation, sendError, TENANT_KEY_HEADER, type Authority, type EdgeApp } from '../../edge-http/index.ts';
import { WATCHED, type LocateListener } from './health.ts';

/**
 * The same-origin proxy of the dashboard listener: `/api/<listener>/<path>` is answered by that
 * listener's `/<path>`, so the browser reads every service on one origin (no CORS on any listener,
 * and one address to put behind a reverse proxy). It holds no authority of its own: the caller's
 * credential headers go through unchanged and the listener checks, audits and rate-limits as for any
 * client; nothing else of the browser's request (cookies included) is forwarded. docs/DASHBOARD.md,
 * "Reading the other services".
 */
const PUBLIC: Authority = { kind: 'public' };

/** Request headers a listener needs; every other header stays at the dashboard edge. */
const FORWARDED = ['authorization', ADMIN_KEY_HEADER, TENANT_KEY_HEADER, 'content-type', 'accept', 'traceparent', 'tracestate'];

/** A listener that does not answer the headers within this is reported unreachable. */
const UPSTREAM_TIMEOUT_MS = 30_000;

const ListenerName = Type.Union(WATCHED.map((s) => Type.Literal(s)));
// The wildcard (`*`) is read from the raw URL, not the schema: TypeBox builds a RegExp from each key.
const ProxyParams = Type.Object({ listener: ListenerName });

export async function proxyRoutes(app: EdgeApp, root: FastifyInstance, locate: LocateListener): Promise<void> {
  // No retries (a 503 is news, not noise) and no shared base: each call names its listener. Its
  // connections close with this listener, so they never hold another listener's close. Its own two
  // info lines per request are off: per-request logs are the access log's (SUITE_ACCESS_LOG).
  await root.register(replyFrom, {
    retryMethods: [],
    destroyAgent: true,
    disableRequestLogging: true,
    undici: { headersTimeout: UPSTREAM_TIMEOUT_MS, bodyTimeout: UPSTREAM_TIMEOUT_MS },
  });
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { listener } = request.params as { listener: ServiceName };
    const base = locate(listener);
    if (base === undefined) {
      return sendError(reply, {
        code: 'SERVICE_UNAVAILABLE',
        message: `the ${listener} listener's address is unknown to the dashboard (port 0 in another process; set its SUITE_<LISTENER>_URL)`,
      });
    }
    const prefix = `/api/${listener}`;
    const rest = request.url.slice(prefix.length) || '/';
    const refused = unsafePath(rest);
    if (refused !== undefined) return sendError(reply, { code: 'INVALID_REQUEST', message: refused });
    return reply.from(`${base}${rest}`, {
      rewriteRequestHeaders: (_req, headers) => keep(headers, FORWARDED),
      rewriteHeaders: (headers) =>
        keep(headers, [
          'content-type',
          'content-length',
          'content-disposition',
          'cache-control',
          'retry-after',
          'ratelimit-limit',
          'ratelimit-remaining',
          'ratelimit-reset',
          'x-request-id',
          'www-authenticate',
        ]),
      onError: (r, { error }) => {
        request.log.warn({ err: error, listener }, 'the dashboard proxy could not reach a listener');
        sendError(r, { code: 'SERVICE_UNAVAILABLE', message: `the ${listener} listener could not be reached at ${base}` });
      },
    });
  };
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    const schema = {
      ...operation('dashboard', `proxy${method.charAt(0)}${method.slice(1).toLowerCase()}`, `${method} a path of another listener, same-origin`),
      params: ProxyParams,
      // Whatever the listener answers is passed on as it came (a stream: no serializer touches it).
      response: {
        '2xx': { description: "The listener's answer, as it gave it", content: { 'application/json': { schema: Type.Unknown() } } },
        ...errorsOf(503),
      },
    };
    app.route({ method, url: '/api/:listener/*', config: { authority: PUBLIC }, schema, handler } as never);
  }
}

/** Why a path may not be forwarded: a `..` segment or a broken escape could leave the listener's root. */
function unsafePath(path: string): string | undefined {
  if (!path.startsWith('/') || path.startsWith('//')) return 'the path after /api/<listener> must start with one "/"';
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return 'the path has a malformed %-escape';
  }
  if (decoded.split(/[/?\\]/).some((segment) => segment === '..' || segment === '.')) return 'the path may not hold "." or ".." segments';
  return undefined;
}

function keep(headers: Record<string, string | string[] | undefined>, names: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
