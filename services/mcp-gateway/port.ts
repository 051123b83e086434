import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { authorize, TRACE_META_KEY, type HoldOpen, type McpGateway, type McpServerDeps } from '../../edge-mcp/index.ts';
import type { Gateway } from './pool.ts';
import { forwardCall } from './forward.ts';
import { conditionGate, gateCall, type ApprovalDesk } from './policy-gate.ts';
import { GATEWAY_OFFERS, registerGatewayOffers } from './offers.ts';
import { listChangedStreams } from './notifications.ts';

/**
 * The gateway as the MCP edge calls it (edge-mcp's `McpGateway`): an upstream tool's call is the
 * capability check (metered), then the policy gate when a desk is set (deny, hold for approval, or
 * run), then the forwarded call and its trace.
 */
export function gatewayPort(gateway: Gateway, desk: ApprovalDesk | undefined): McpGateway {
  const call = async (name: string, args: Record<string, unknown>, deps: McpServerDeps, hold?: HoldOpen): Promise<CallToolResult> => {
    const upstream = gateway.find(name);
    if (upstream === undefined) throw new Error(`no upstream tool ${name}`);
    const allowed = await authorize(deps, { name: upstream.name, resource: `mcp tools/call ${upstream.name}`, scope: upstream.scope, metered: true });
    const forwardDeps = { ...deps, gateway };
    // The conditions the token binds to its scope (claim cnd), checked with or without a policy file.
    const bound = conditionGate(deps.audit, upstream, args, allowed.caller);
    if (bound !== undefined) {
      deps.metrics?.call(upstream.name, 'refused');
      return bound;
    }
    if (desk === undefined) return forwardCall(forwardDeps, upstream, args, allowed);
    const gate = await gateCall(desk, deps.audit, upstream, args, allowed.caller, hold);
    if (!gate.run) {
      deps.metrics?.call(upstream.name, 'refused');
      return gate.result;
    }
    const result = await forwardCall(forwardDeps, upstream, args, allowed, gate.governance);
    if (gate.approvalId !== undefined) await linkApproval(desk, deps, gate.approvalId, result);
    return result;
  };
  return {
    offers: GATEWAY_OFFERS,
    tools: () => gateway.tools(),
    call: (name, args, deps, hold) => (gateway.find(name) === undefined ? undefined : call(name, args, deps, hold)),
    register: (server, deps) => registerGatewayOffers(server, { ...deps, gateway }),
    streams: listChangedStreams(gateway),
  };
}

/**
 * The approved call ran: its record is stored on the approval (the dashboard links both records).
 * The call already ran; a desk that does not answer loses the link, never the call's result.
 */
async function linkApproval(desk: ApprovalDesk, deps: McpServerDeps, approvalId: string, result: CallToolResult): Promise<void> {
  const trace = (result._meta as Record<string, { id?: unknown }> | undefined)?.[TRACE_META_KEY];
  if (typeof trace?.id !== 'string') return;
  try {
    await desk.ran(approvalId, trace.id);
  } catch (err) {
    deps.logger.warn({ err, approvalId }, 'an approved call ran; its record could not be linked to the approval');
  }
}
