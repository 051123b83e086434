/**
 * The MCP edge (issue 18, docs/MCP.md): the suite's routes as Model Context Protocol tools, over
 * Streamable HTTP (`/mcp` on the token listener) and stdio (`suite mcp`). Like the HTTP edges it
 * holds no domain logic: a tool call is the capability check and one bus request, and its trace.
 */
export { defineTool, type McpTool, type ToolOutcome } from './tool.ts';
export { attestationOf, callerOfPrincipal } from './principal.ts';
export { createMcpServer } from './server.ts';
export { REFUSED } from './errors.ts';
export { ANY_JSON_VALUE } from './schemas.ts';
export { mcpRoutes, bearerAuthenticator } from './http.ts';
export { mcpMetrics } from './metrics.ts';
export { TRACE_META_KEY } from './trace.ts';
export { Gateway, gatewayMetrics, upstreamStatusRoute, APPROVAL_META_KEY, type UpstreamStatus, type ApprovalDesk, PolicySource } from './gateway/index.ts';
export { QUOTA_META_KEY } from './authorize.ts';
export { type ProtectedResource } from './protected-resource.ts';
