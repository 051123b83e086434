/**
 * The MCP gateway (issue 27, docs/MCP.md "The gateway"): upstream MCP servers behind the suite's
 * capability check, each call audited, forwarded with the upstream's own credentials and signed on
 * the execution chain. An edge: no actors, no storage.
 */
export { Gateway } from './pool.ts';
export type { UpstreamStatus } from './upstream.ts';
export { forwardCall } from './forward.ts';
export { registerGatewayOffers, GATEWAY_OFFERS } from './offers.ts';
export { gatewayMetrics } from './metrics.ts';
export { upstreamStatusRoute } from './status-route.ts';
export { gateCall, conditionGate, APPROVAL_META_KEY, type ApprovalDesk, type HoldOpen } from './policy-gate.ts';
export { PolicySource } from './policy-source.ts';
