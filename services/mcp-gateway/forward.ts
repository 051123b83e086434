import type { Logger } from 'pino';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Bus } from '../../bus/index.ts';
import type { McpMetrics } from '../../edge-mcp/index.ts';
import { traceCall, TRACE_META_KEY, type Governance } from '../../edge-mcp/index.ts';
import { QUOTA_META_KEY, type Allowed } from '../../edge-mcp/index.ts';
import type { Gateway } from './pool.ts';
import type { GatewayTool } from './catalog.ts';

export interface ForwardDeps {
  readonly bus: Bus;
  readonly gateway?: Gateway;
  readonly logger: Logger;
  readonly metrics?: McpMetrics;
}

/**
 * One allowed call to an upstream tool (docs/MCP.md, "The gateway"), after the capability check and
 * its audit entry: forwarded with the arguments as sent (the upstream validates them against its own
 * schema) over the upstream's own connection and credentials (the caller's token goes no further
 * than this edge), then recorded on the execution chain (module `mcp:<server>`, action the tool,
 * input and output hashed and dropped, outcome from `isError`). The upstream's result comes back as
 * it gave it, its trace in `_meta`. Whatever failed on the way (down, timeout, too large, its own
 * JSON-RPC error) is a result with `isError`, traced too: never an MCP error, never a 500.
 */
export async function forwardCall(
  deps: ForwardDeps,
  tool: GatewayTool,
  args: Record<string, unknown>,
  { caller, quota }: Allowed,
  governance?: Governance,
): Promise<CallToolResult> {
  const gateway = deps.gateway as Gateway;
  const outcome = await gateway.call(tool, args);
  const result: CallToolResult = outcome.ok
    ? outcome.result
    : { content: [{ type: 'text', text: `${outcome.error.code}: ${outcome.error.message}` }], isError: true };
  const success = outcome.ok && result.isError !== true;
  const trace = await traceCall(
    deps.bus,
    {
      scope: tool.scope,
      module: `mcp:${tool.server}`,
      action: tool.tool,
      input: args,
      output: outcome.ok ? outcome.result : { error: outcome.error },
      success,
      ...(governance !== undefined ? { governance } : {}),
    },
    caller,
  );
  deps.metrics?.call(tool.name, success ? 'success' : 'failure');
  gateway.ledger.record(tool.server, tool.tool, success, String(trace.id), caller.tenantId);
  if (!outcome.ok) deps.logger.info({ tool: tool.name, code: outcome.error.code, reason: outcome.error.message }, 'upstream call failed');
  return {
    ...result,
    _meta: {
      ...(result._meta ?? {}),
      [TRACE_META_KEY]: trace,
      ...(outcome.ok ? {} : { 'agent-authority-suite/error': outcome.error }),
      ...(quota !== undefined ? { [QUOTA_META_KEY]: quota } : {}),
    },
  };
}
