import { Counter, type Registry } from 'prom-client';

/** How a tool call ended: answered (`success`, `failure`: traced), `refused` (credential or scope), `invalid` (arguments). */
export type McpCallResult = 'success' | 'failure' | 'refused' | 'invalid';

export interface McpMetrics {
  call(tool: string, result: McpCallResult): void;
}

const byRegistry = new WeakMap<Registry, McpMetrics>();

/**
 * `mcp_tool_calls_total{tool,result}` on the process's registry (served by `/metrics` of its edges);
 * one counter per registry, however many servers (one per HTTP request) report to it.
 */
export function mcpMetrics(registry: Registry): McpMetrics {
  let metrics = byRegistry.get(registry);
  if (metrics === undefined) {
    const calls = new Counter({
      name: 'mcp_tool_calls_total',
      help: 'MCP tool calls, by tool and how they ended',
      labelNames: ['tool', 'result'] as const,
      registers: [registry],
    });
    metrics = { call: (tool, result) => calls.inc({ tool, result }) };
    byRegistry.set(registry, metrics);
  }
  return metrics;
}
