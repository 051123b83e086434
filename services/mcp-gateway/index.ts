import { mcpMetrics, mcpRoutes, type ProtectedResource } from '../../edge-mcp/index.ts';
import { Gateway } from './pool.ts';
import { gatewayMetrics, policyMetrics } from './metrics.ts';
import { upstreamStatusRoute } from './status-route.ts';
import { gatewayPort } from './port.ts';
import { PolicySource } from './policy-source.ts';
import { readMcpPolicy } from './policy-file.ts';
import { defineService } from '../kit/index.ts';
import { mcpGatewayConfig } from './config.ts';
import { ApprovalsActor } from './actor.ts';
import { approvalRoutes } from './routes.ts';
import { busDesk } from './desk.ts';
import { policyRoutes } from './policy-routes.ts';
import { approvalSubjects } from './subjects.ts';

/** What `initialize` reports as the server's version: the MCP surface's, not the package's. */
export const MCP_SERVER_VERSION = '1.0.0';

/**
 * The MCP edge on the token listener (issue 18, docs/MCP.md): `POST /mcp`, Streamable HTTP, the tools
 * of every service module (their `mcpTools`), and the gateway's upstream tools (issue 27) when
 * `SUITE_MCP_UPSTREAMS` names some, under the policy file `SUITE_MCP_POLICY` (issue 33). A tool call is
 * a bus request to the service's actors, like the route it stands for, or a call forwarded to an
 * upstream; its own actor (`actor:approvals`) and tables hold held calls and budget counters.
 * The gateway's state (upstream supervision, catalogue, ledger, slots) lives in this folder; the MCP
 * edge reaches it only through its port (`McpGateway` in edge-mcp/server.ts, built by port.ts).
 */
export const mcpService = defineService({
  name: 'mcp',
  config: mcpGatewayConfig,
  listener: 'token',
  actorRoles: ['actor:approvals'],
  readiness: { 'actor:approvals': approvalSubjects.list.subject },
  migrations: { name: 'mcp', dir: new URL('./migrations/', import.meta.url) },
  // The approvals desk (issue 33): held gateway calls, their decisions and the budget counters.
  async startActors(ctx) {
    if (!ctx.has('actor:approvals')) return {};
    const actor = new ApprovalsActor({ bus: ctx.bus, storage: ctx.storage, audit: ctx.audit, logger: ctx.logger.child({ component: 'approvals' }) });
    actor.start();
    return { producers: [{ name: 'approvals', stop: () => actor.stop() }] };
  },
  routes: ({ bus, logger, verifier, audit, tenants, meter, mcpTools, metrics, config, listenerUrl }) => {
    const mcpLogger = logger.child({ component: 'mcp' });
    const gateway = config.mcpUpstreams.length > 0 ? new Gateway(config.mcpUpstreams, mcpLogger) : undefined;
    // The policy file and the approvals desk behind it (absent: every granted upstream call is forwarded).
    // Reloadable without a restart: SIGHUP or POST /mcp/policy/reload (docs/MCP.md).
    const file = config.mcpPolicy;
    const source = file !== undefined ? new PolicySource(file.policy, () => readMcpPolicy(file.path)) : undefined;
    const desk = source !== undefined ? busDesk(bus, source, `${listenerUrl('token') ?? ''}/approvals`) : undefined;
    // The resource's identifier is the URL clients reach it at (RFC 9728 §3): SUITE_PUBLIC_URL, else the
    // token listener's address, else the request's Host; a token's `aud` must be that or SUITE_AUDIENCE.
    const protectedResource: ProtectedResource = {
      of(request) {
        const base = (config.publicUrl ?? listenerUrl('token') ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
        const resource = `${base}/mcp`;
        return {
          resource,
          metadataUrl: `${base}/.well-known/oauth-protected-resource/mcp`,
          audiences: config.audience !== undefined ? [resource, config.audience] : [resource],
        };
      },
    };
    const routes = mcpRoutes({
      bus,
      protectedResource,
      tools: mcpTools,
      verifier,
      audit,
      tenants,
      meter,
      logger: mcpLogger,
      version: MCP_SERVER_VERSION,
      metrics: mcpMetrics(metrics.service('token').registry),
      ...(gateway !== undefined ? { gateway: gatewayPort(gateway, desk) } : {}),
    });
    const approvals = approvalRoutes(bus);
    const policy = policyRoutes(source);
    return async (app) => {
      await routes(app);
      await approvals(app);
      await policy(app);
      if (source !== undefined) {
        const unregisterPolicy = policyMetrics(metrics.service('token').registry, source);
        app.addHook('onClose', async () => void unregisterPolicy());
        const onHangup = () => {
          const r = source.reload();
          if (r.ok) mcpLogger.info({ version: r.version, previous: r.previous }, 'policy file reloaded on SIGHUP');
          else mcpLogger.error({ problem: r.message, version: r.version }, 'policy file refused on SIGHUP; the old policy stays');
        };
        app.addHook('onReady', async () => void process.on('SIGHUP', onHangup));
        app.addHook('onClose', async () => void process.off('SIGHUP', onHangup));
      }
      // Served without upstreams too (an empty list): a client or probe need not guess whether one is set.
      await upstreamStatusRoute(gateway)(app);
      if (gateway === undefined) return;
      const unregister = gatewayMetrics(metrics.service('token').registry, gateway);
      // Connected in the background once the listener is up; an upstream down never holds the start.
      app.addHook('onReady', async () => gateway.start());
      app.addHook('onClose', async () => {
        unregister();
        await gateway.stop();
      });
    };
  },
});

export { APPROVAL_META_KEY } from './policy-gate.ts';
export type { UpstreamStatus } from './upstream.ts';
