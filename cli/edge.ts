import type { Logger } from 'pino';
import type { ServiceName } from '../config/index.ts';
import type { Bus } from '../bus/index.ts';
import type { Storage } from '../storage/index.ts';
import type { TokenChecker } from '../actors/capability/index.ts';
import type { AuditBatcher } from '../actors/audit/index.ts';
import type { RevocationView } from '../services/token/index.ts';
import {
  createEdgeApp,
  listRoutes,
  routeMatcher,
  type AuditDecision,
  type CapabilityVerifier,
  type EdgeApp,
  type EdgeRoutes,
  type ServedElsewhere,
  type Verified,
} from '../edge-http/index.ts';
import type { RouteContext, ServiceModule, SuiteConfig } from '../services/index.ts';
import { busMeter, busTenantResolver } from './tenancy.ts';
import type { EdgeTracing, MetricsRegistry } from '../observability/index.ts';
import { adminKeyMatcher } from './admin-key.ts';
import { oauthSubjects } from '../services/oauth/index.ts';
import { closeEdge } from './edge-close.ts';

export interface EdgeDeps {
  service: ServiceName;
  config: SuiteConfig;
  bus: Bus;
  storage: Storage | undefined;
  audit: AuditBatcher;
  checker: TokenChecker;
  revocations: RevocationView;
  logger: Logger;
  /** One registry per process: every edge's series carry a `service` label. */
  metrics: MetricsRegistry;
  /** The services whose routes may join this listener (services/index.ts). */
  services: readonly ServiceModule[];
  /** The process's HTTP tracing; undefined when tracing is disabled (OTEL_SDK_DISABLED). */
  tracing: EdgeTracing | undefined;
  /** Where this process reaches a listener: its own edges at their bound ports (cli/runtime.ts). */
  listenerUrl: (service: ServiceName) => string | undefined;
  /** False while a chain writer of this process keeps failing to commit; absent: it runs none. */
  chainsHealthy?: () => boolean;
  /** The other edges of this process, for a 404 that names the listener serving a path (read per request). */
  peers?: () => readonly RunningEdge[];
}

export interface RunningEdge {
  readonly service: ServiceName;
  readonly app: EdgeApp;
  /** The bound port (differs from the configured one when that was 0). */
  readonly port: number;
  stop(): Promise<void>;
}

/** The routes of a listener: those of every service that joins it, in the order of the service list. */
function routesFor(listener: ServiceName, services: readonly ServiceModule[], ctx: RouteContext): EdgeRoutes {
  const parts = services.flatMap((s) => ((s.listener === listener || s.alsoOn?.includes(listener) === true) && s.routes ? [s.routes(ctx)] : []));
  return async (app) => {
    for (const register of parts) await register(app);
  };
}

/**
 * "the scheduler listener (:8082)" for a path another edge of this process serves. Each peer's
 * patterns are compiled once, on the first 404 after it started. Listeners of other processes
 * (distributed mode) are not known here: their paths get the plain 404.
 */
function servedElsewhere(self: ServiceName, peers: () => readonly RunningEdge[], listenerUrl: (s: ServiceName) => string | undefined): ServedElsewhere {
  const matchers = new Map<RunningEdge, (path: string) => boolean>();
  return (path) => {
    for (const peer of peers()) {
      if (peer.service === self) continue;
      let matches = matchers.get(peer);
      if (matches === undefined) {
        matches = routeMatcher(listRoutes(peer.app).map((r) => r.url));
        matchers.set(peer, matches);
      }
      if (!matches(path)) continue;
      const url = listenerUrl(peer.service);
      const where = url === undefined ? `:${peer.port}` : new URL(url).port === '' ? url : `:${new URL(url).port}`;
      return `the ${peer.service} listener (${where})`;
    }
    return undefined;
  };
}

/** The capability check's collaborators, over the process's token checker and revocation view. */
export function edgeVerifier(checker: TokenChecker, adminKey: string | undefined, audit?: AuditBatcher, bus?: Bus): CapabilityVerifier {
  const isAdminKey = adminKeyMatcher(adminKey);
  async function checkToken(token: string): Promise<Verified> {
    const r = await checker.check(token);
    if (!r.ok) return r;
    const c = r.claims;
    return {
      ok: true,
      principal: {
        kind: 'token',
        sub: c.sub,
        scope: c.scope,
        jti: c.jti,
        exp: c.exp,
        ...(c.ten !== undefined ? { tenantId: c.ten } : {}),
        ...(c.prf ? { proven: true } : {}),
        ...(c.aud !== undefined ? { aud: c.aud } : {}),
        ...(c.cnf !== undefined ? { jkt: c.cnf.jkt } : {}),
        ...(c.cnd !== undefined ? { conditions: c.cnd } : {}),
      },
    };
  }
  return {
    async verifyBearer(token) {
      // Every decision is audited. A trail that is behind slows the intake (the request waits for
      // room in the backlog, up to a deadline); only a stalled trail (no append succeeding for its
      // stallMs) refuses at once rather than acting unrecorded (issue 34, item 6).
      if (audit) {
        try {
          await audit.admit();
        } catch (err) {
          return {
            ok: false,
            error: { code: 'SERVICE_UNAVAILABLE', message: err instanceof Error ? err.message : 'audit trail unavailable; try again shortly' },
          };
        }
      }
      return checkToken(token);
    },
    checkToken,
    isAdminKey,
    revocationTrusted: () => checker.revocationTrusted(),
    // DPoP replay across edge processes (RFC 9449 §11.1): one bus round trip and one insert into the
    // OAuth actor's jti table per bound request (docs/OAUTH.md, docs/PERFORMANCE.md has its cost).
    ...(bus !== undefined
      ? {
          async dpopFirstUse(jkt: string, jti: string, exp: number) {
            const r = await bus.request(oauthSubjects.dpopFirstUse, { jkt, jti, exp });
            return r.ok ? (r.value.first ? ('first' as const) : ('replay' as const)) : ('unavailable' as const);
          },
        }
      : {}),
  };
}

/** The MCP tools of every service module, in the order of the list. */
export function mcpToolsOf(services: readonly ServiceModule[]) {
  return services.flatMap((s) => s.mcpTools?.() ?? []);
}

export async function startEdge(d: EdgeDeps): Promise<RunningEdge> {
  const logger = d.logger.child({ edge: d.service });
  const verifier = edgeVerifier(d.checker, d.config.adminKey, d.audit, d.bus);
  const audit = {
    record: (decision: AuditDecision) => d.audit.record(decision),
    carry: (decision: AuditDecision) => d.audit.carry(decision),
    durable: (upTo?: number) => d.audit.durable(upTo),
    recorded: () => d.audit.recorded(),
    committed: () => d.audit.committed(),
  };
  const tenants = busTenantResolver(d.bus);
  const meter = busMeter(d.bus);
  const app = await createEdgeApp({
    service: d.service,
    logger,
    verifier,
    audit,
    readiness: async () => {
      const checks: Record<string, boolean> = {
        bus: d.bus.isConnected(),
        revocations: d.revocations.trusted(),
        audit: d.audit.healthy(),
      };
      if (d.chainsHealthy) checks.chains = d.chainsHealthy();
      if (d.storage) checks.storage = await d.storage.ping(1000);
      return checks;
    },
    rateLimit: d.config.rateLimit,
    metrics: d.metrics,
    accessLog: d.config.accessLog,
    routes: routesFor(d.service, d.services, {
      bus: d.bus,
      config: d.config,
      logger,
      verifier,
      audit,
      tenants,
      meter,
      mcpTools: mcpToolsOf(d.services),
      metrics: d.metrics,
      listenerUrl: d.listenerUrl,
    }),
    // Tenant keys are accepted beside the credential of every guarded route of every listener.
    tenants,
    meter,
    bodyLimit: d.config.bodyLimitBytes,
    timeouts: d.config.httpTimeouts,
    ...(d.peers !== undefined ? { servedElsewhere: servedElsewhere(d.service, d.peers, d.listenerUrl) } : {}),
    ...(d.tracing !== undefined ? { tracing: d.tracing } : {}),
  });
  await app.listen({ host: d.config.host, port: d.config.ports[d.service] });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : d.config.ports[d.service];
  return {
    service: d.service,
    app,
    port,
    stop: () => closeEdge(app, d.config.shutdownGraceMs, logger),
  };
}
