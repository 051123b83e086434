/**
 * The MCP edge (issue 18, docs/MCP.md): the suite's routes as Model Context Protocol tools, over
 * Streamable HTTP (`/mcp` on the token listener) and stdio (`suite mcp`). Like the HTTP edges it
 * holds no domain logic: a tool call is the capability check and one bus request, and its trace.
 */
export { defineTool, type McpTool, type ToolOutcome } from './tool.ts';
export { attestationOf, callerOfPrincipal } from './principal.ts';
export { createMcpServer } from './server.ts';
export { ANY_JSON_VALUE } from './schemas.ts';
export { mcpRoutes, bearerAuthenticator } from './http.ts';
export { QUOTA_META_KEY, authorize, type Allowed, type AuthorizeDeps } from './authorize.ts';
export type { McpServerDeps, McpGateway, HoldOpen } from './server.ts';
export { REFUSED, RpcError } from './errors.ts';
export { traceCall, TRACE_META_KEY, type Governance } from './trace.ts';
export { mcpMetrics, type McpMetrics } from './metrics.ts';
export type { ProtectedResource } from './protected-resource.ts';
