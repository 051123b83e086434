import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import { Type } from 'typebox';
import type { Bus } from '../../bus/index.ts';
import { errorsOf, operation, sendError, type Authority, type EdgeApp, type EdgeRoutes } from '../../edge-http/index.ts';
import { startHealthWatch, type LocateListener } from './health.ts';
import { proxyRoutes } from './proxy.ts';
import { historyRoute } from './history-route.ts';
import { TrendRecorder } from './trends.ts';
import type { MetricsRegistry } from '../../observability/index.ts';
import type { AuditSink } from '../../edge-http/index.ts';
import { BEARER_PROTOCOL_PREFIX, LIVE_PROTOCOL, LiveHub, bearerFromProtocols } from './live.ts';

/** Where `npm run build` (vite, dashboard/vite.config.ts) writes the browser app. */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../dashboard/dist/', import.meta.url));

/** Health rounds: a stopped service shows UNKNOWN within about two of these plus the probe timeout. */
export const HEALTH_INTERVAL_MS = 2000;

const PUBLIC: Authority = { kind: 'public' };
/**
 * The socket accepts any valid token (each message kind is then filtered by its scopes, live.ts), or
 * the admin key from a client that can set headers (not a browser).
 */
const ANY_TOKEN: Authority = { kind: 'token', admin: true };

const AssetParams = Type.Object({ file: Type.String({ pattern: '^[A-Za-z0-9._-]{1,200}$' }) });

/** `GET /dashboard/health`: the last probe of every other listener (health.ts, `ServiceHealth`). */
const HealthRound = Type.Object(
  {
    services: Type.Array(
      Type.Object({
        service: Type.String(),
        state: Type.Union([Type.Literal('ready'), Type.Literal('not-ready'), Type.Literal('unknown')]),
        checkedAt: Type.String(),
        latencyMs: Type.Optional(Type.Integer()),
        checks: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
        reason: Type.Optional(Type.String()),
      }),
    ),
  },
  { description: 'Each listener ready, not ready (naming the dependency) or unknown (saying why)' },
);
const File = (description: string, media: string) => ({ description, content: { [media]: { schema: Type.String() } } });

export interface DashboardRouteDeps {
  bus: Bus;
  /** Where the other listeners are reached (probes and the same-origin proxy). */
  listenerUrl: LocateListener;
  /** The process's metrics registry: the dashboard listener's own answers, for the trends. */
  metrics: MetricsRegistry;
  /** The process's audit sink: its backlog is one of the trends. */
  audit: AuditSink;
  /** The built app's folder; tests point it elsewhere. */
  distDir?: string;
}

/**
 * The dashboard listener (3001): the built Solid app as public static files (it holds no secret: the
 * person pastes a token into the page), the execution chain's reads (same origin, so the browser
 * needs no CORS; the spine's module adds them), the health of every listener, and the live socket `GET /live`.
 */
export function dashboardRoutes(deps: DashboardRouteDeps): EdgeRoutes {
  const dist = deps.distDir ?? DASHBOARD_DIST;
  return async (app) => {
    const root = app as unknown as FastifyInstance;
    const hub = new LiveHub(deps.bus);
    hub.start();
    // Probes start once this listener serves (the runtime starts it last), not during start-up.
    let watch: ReturnType<typeof startHealthWatch> | undefined;
    const trends = new TrendRecorder({ bus: deps.bus, locate: deps.listenerUrl, metrics: deps.metrics, auditBacklog: () => backlogOf(deps.audit) });
    root.addHook('onListen', async () => {
      if (watch !== undefined) return;
      watch = startHealthWatch(deps.listenerUrl, HEALTH_INTERVAL_MS, (round) => hub.setHealth(round));
      trends.start();
    });
    root.addHook('onClose', async () => {
      watch?.stop();
      await Promise.all([hub.stop(), trends.stop()]);
    });

    await staticRoutes(app, root, dist);

    app.get(
      '/dashboard/health',
      {
        config: { authority: PUBLIC },
        schema: { ...operation('dashboard', 'getListenersHealth', 'The last health probe of every other listener'), response: { 200: HealthRound } },
      },
      async () => ({ services: watch?.latest() ?? [] }),
    );
    historyRoute(app, trends);

    await root.register(fastifyWebsocket, {
      options: {
        maxPayload: 1024,
        // Answer with the dashboard's protocol, never the token the client offered beside it.
        handleProtocols: (offered: Set<string>) => (offered.has(LIVE_PROTOCOL) ? LIVE_PROTOCOL : false),
      },
    });
    // Browsers cannot set headers on a WebSocket: the token comes as a subprotocol and is moved to
    // Authorization before the route's capability check (route hooks run after this scope's).
    root.addHook('onRequest', async (request) => {
      if (request.headers.authorization !== undefined || request.headers.upgrade === undefined) return;
      const token = bearerFromProtocols(request.headers['sec-websocket-protocol']);
      if (token !== undefined) request.headers.authorization = `Bearer ${token}`;
    });
    root.route({
      method: 'GET',
      url: '/live',
      config: { authority: ANY_TOKEN },
      schema: {
        ...operation('dashboard', 'openLiveSocket', 'The live socket: traces, revocations, jobs, scheduler and trust events, health'),
        response: {
          101: { description: 'Switching Protocols: the socket of subprotocol `suite.live.v1` (docs/DASHBOARD.md, "The socket")' },
          ...errorsOf(400),
        },
      },
      handler: async (_request, reply) =>
        sendError(reply, {
          code: 'INVALID_REQUEST',
          message: `GET /live is a WebSocket: connect with the subprotocols "${LIVE_PROTOCOL}" and "${BEARER_PROTOCOL_PREFIX}<token>"`,
        }),
      wsHandler: (socket, request) => hub.add(socket, request.principal),
    });

    await proxyRoutes(app, root, deps.listenerUrl);
  };
}

async function staticRoutes(app: EdgeApp, root: FastifyInstance, dist: string): Promise<void> {
  const built = existsSync(`${dist}/index.html`);
  if (built) await root.register(fastifyStatic, { root: dist, serve: false });
  const notBuilt = <R extends Parameters<typeof sendError>[0]>(reply: R) =>
    sendError(reply, { code: 'SERVICE_UNAVAILABLE', message: 'the dashboard is not built: run `npm run build`' });
  app.get(
    '/',
    {
      config: { authority: PUBLIC },
      schema: {
        ...operation('dashboard', 'getDashboardApp', 'The dashboard app (HTML)'),
        response: { 200: File("The app's page", 'text/html'), ...errorsOf(503) },
      },
    },
    async (_request, reply) => (built ? reply.type('text/html').sendFile('index.html') : notBuilt(reply)),
  );
  app.get(
    '/assets/:file',
    {
      config: { authority: PUBLIC },
      schema: {
        ...operation('dashboard', 'getDashboardAsset', 'A file of the built app (content-hashed name)'),
        params: AssetParams,
        response: { 200: File('The file, with the media type of its name', '*/*'), ...errorsOf(404, 503) },
      },
    },
    async (request, reply) => {
      if (!built) return notBuilt(reply);
      // Names are content-hashed by the build: they may be kept for a year.
      return reply.header('cache-control', 'public, max-age=31536000, immutable').sendFile(`assets/${request.params.file}`);
    },
  );
}

/**
 * The runtime's audit sink is its batcher, which counts what it holds; a sink that does not say
 * (a test's) leaves the backlog unmeasured, a gap rather than a 0.
 */
function backlogOf(sink: AuditSink): number | undefined {
  const n = (sink as { backlog?: unknown }).backlog;
  return typeof n === 'number' ? n : undefined;
}
