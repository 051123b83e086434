/**
 * The MCP gateway (issue 27, docs/MCP.md "The gateway"): upstream MCP servers behind the suite's
 * capability check, each call audited, forwarded with the upstream's own credentials and signed on
 * the execution chain. An edge: no actors, no storage.
 */
export { Gateway, type GatewayList, type GatewayResourceTarget } from './pool.ts';
export {
  NAMESPACE_SEPARATOR, RESOURCE_SCHEME_PREFIX, gatewayToolName, gatewayUri, defaultScope, defaultResourceScope, defaultPromptScope,
  type GatewayTool, type GatewayPrompt, type GatewayCatalog,
} from './catalog.ts';
export type { UpstreamStatus, UpstreamState, UpstreamOutcome } from './upstream.ts';
export { forwardCall } from './forward.ts';
export { registerGatewayOffers, GATEWAY_OFFERS } from './offers.ts';
export { gatewayMetrics } from './metrics.ts';
export { upstreamStatusRoute, GATEWAY_READ_SCOPE, UpstreamsReply } from './status-route.ts';
