import { mcpMetrics, mcpRoutes } from '../../edge-mcp/index.ts';
import { defineService } from '../kit/index.ts';

/** What `initialize` reports as the server's version: the MCP surface's, not the package's. */
export const MCP_SERVER_VERSION = '1.0.0';

/**
 * The MCP edge on the token listener (issue 18, docs/MCP.md): `POST /mcp`, Streamable HTTP, the tools
 * of every service module (their `mcpTools`). No actors and no tables of its own: a tool call is a
 * bus request to the service's actors, like the route it stands for.
 */
export const mcpService = defineService({
  name: 'mcp',
  listener: 'token',
  actorRoles: [],
  routes: ({ bus, logger, verifier, audit, mcpTools, metrics }) => mcpRoutes({
    bus, tools: mcpTools, verifier, audit, logger: logger.child({ component: 'mcp' }), version: MCP_SERVER_VERSION,
    metrics: mcpMetrics(metrics.service('token').registry),
  }),
});
