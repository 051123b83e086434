/**
 * The MCP edge (issue 18, docs/MCP.md): the suite's routes as Model Context Protocol tools, over
 * Streamable HTTP (`/mcp` on the token listener) and stdio (`suite mcp`). Like the HTTP edges it
 * holds no domain logic: a tool call is the capability check and one bus request, and its trace.
 */
export { defineTool, type McpTool, type ToolOutcome } from './tool.ts';
export { attestationOf, callerOfPrincipal } from './principal.ts';
export { createMcpServer, type McpServerDeps } from './server.ts';
export { REFUSED, RpcError } from './errors.ts';
export { wireSchema, outputSchemaOf, ANY_JSON_VALUE } from './schemas.ts';
export { mcpRoutes, bearerAuthenticator, type McpRouteDeps } from './http.ts';
export { mcpMetrics, type McpMetrics, type McpCallResult } from './metrics.ts';
export { TRACE_META_KEY } from './trace.ts';
export { Gateway, NAMESPACE_SEPARATOR, gatewayToolName, defaultScope, gatewayMetrics, upstreamStatusRoute, GATEWAY_READ_SCOPE, type GatewayTool, type UpstreamStatus } from './gateway/index.ts';
export { tenantAuthenticator } from './http.ts';
export { GATEWAY_METRIC, QUOTA_META_KEY, type McpVerified, type Quota } from './authorize.ts';
export { type ProtectedResource } from './protected-resource.ts';
