import { Gateway, gatewayMetrics, mcpMetrics, mcpRoutes, upstreamStatusRoute, type ProtectedResource } from '../../edge-mcp/index.ts';
import { defineService } from '../kit/index.ts';

/** What `initialize` reports as the server's version: the MCP surface's, not the package's. */
export const MCP_SERVER_VERSION = '1.0.0';

/**
 * The MCP edge on the token listener (issue 18, docs/MCP.md): `POST /mcp`, Streamable HTTP, the tools
 * of every service module (their `mcpTools`), and the gateway's upstream tools (issue 27) when
 * `SUITE_MCP_UPSTREAMS` names some. No actors and no tables of its own: a tool call is a bus request
 * to the service's actors, like the route it stands for, or a call forwarded to an upstream.
 */
export const mcpService = defineService({
  name: 'mcp',
  listener: 'token',
  actorRoles: [],
  routes: ({ bus, logger, verifier, audit, tenants, meter, mcpTools, metrics, config, listenerUrl }) => {
    const mcpLogger = logger.child({ component: 'mcp' });
    const gateway = config.mcpUpstreams.length > 0 ? new Gateway(config.mcpUpstreams, mcpLogger) : undefined;
    // The resource's identifier is the URL clients reach it at (RFC 9728 §3): SUITE_PUBLIC_URL, else the
    // token listener's address, else the request's Host; a token's `aud` must be that or SUITE_AUDIENCE.
    const protectedResource: ProtectedResource = {
      of(request) {
        const base = (config.publicUrl ?? listenerUrl('token') ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
        const resource = `${base}/mcp`;
        return {
          resource, metadataUrl: `${base}/.well-known/oauth-protected-resource/mcp`,
          audiences: config.audience !== undefined ? [resource, config.audience] : [resource],
        };
      },
    };
    const routes = mcpRoutes({
      bus, protectedResource, tools: mcpTools, verifier, audit, tenants, meter, logger: mcpLogger, version: MCP_SERVER_VERSION,
      metrics: mcpMetrics(metrics.service('token').registry), ...(gateway !== undefined ? { gateway } : {}),
    });
    return async (app) => {
      await routes(app);
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
