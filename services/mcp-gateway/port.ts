import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { authorize, type McpGateway, type McpServerDeps } from '../../edge-mcp/index.ts';
import type { Gateway } from './pool.ts';
import { forwardCall } from './forward.ts';
import { gateCall, type ApprovalDesk } from './policy-gate.ts';
import { GATEWAY_OFFERS, registerGatewayOffers } from './offers.ts';
import { listChangedStreams } from './notifications.ts';

/**
 * The gateway as the MCP edge calls it (edge-mcp's `McpGateway`): an upstream tool's call is the
 * capability check (metered), then the policy gate when a desk is set (deny, hold for approval, or
 * run), then the forwarded call and its trace.
 */
export function gatewayPort(gateway: Gateway, desk: ApprovalDesk | undefined): McpGateway {
  const call = async (name: string, args: Record<string, unknown>, deps: McpServerDeps): Promise<CallToolResult> => {
    const upstream = gateway.find(name);
    if (upstream === undefined) throw new Error(`no upstream tool ${name}`);
    const allowed = await authorize(deps, { name: upstream.name, resource: `mcp tools/call ${upstream.name}`, scope: upstream.scope, metered: true });
    const forwardDeps = { ...deps, gateway };
    if (desk === undefined) return forwardCall(forwardDeps, upstream, args, allowed);
    const gate = await gateCall(desk, deps.audit, upstream, args, allowed.caller);
    if (!gate.run) {
      deps.metrics?.call(upstream.name, 'refused');
      return gate.result;
    }
    return forwardCall(forwardDeps, upstream, args, allowed, gate.governance);
  };
  return {
    offers: GATEWAY_OFFERS,
    tools: () => gateway.tools(),
    call: (name, args, deps) => (gateway.find(name) === undefined ? undefined : call(name, args, deps)),
    register: (server, deps) => registerGatewayOffers(server, { ...deps, gateway }),
    streams: listChangedStreams(gateway),
  };
}
