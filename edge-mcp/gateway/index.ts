/**
 * The MCP gateway (issue 27, docs/MCP.md "The gateway"): upstream MCP servers behind the suite's
 * capability check, each call audited, forwarded with the upstream's own credentials and signed on
 * the execution chain. An edge: no actors, no storage.
 */
export { Gateway } from '../../services/mcp-gateway/pool.ts';
export type { UpstreamStatus } from '../../services/mcp-gateway/upstream.ts';
export { forwardCall } from '../../services/mcp-gateway/forward.ts';
export { registerGatewayOffers, GATEWAY_OFFERS } from '../../services/mcp-gateway/offers.ts';
export { gatewayMetrics } from '../../services/mcp-gateway/metrics.ts';
export { upstreamStatusRoute } from '../../services/mcp-gateway/status-route.ts';
export { gateCall, APPROVAL_META_KEY, type ApprovalDesk } from '../../services/mcp-gateway/policy-gate.ts';
