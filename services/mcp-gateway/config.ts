import type { ConfigReader } from '../../config/index.ts';
import { loadMcpPolicy, type McpPolicyFile } from './policy-file.ts';
import { loadMcpUpstreams, type McpUpstreamConfig } from './upstreams-config.ts';

export interface McpGatewayConfig {
  /** The gateway's upstream servers, from the file `SUITE_MCP_UPSTREAMS` names (upstreams-config.ts); none when unset. Holds credentials. */
  readonly mcpUpstreams: readonly McpUpstreamConfig[];
  /** The gateway's policy file (`SUITE_MCP_POLICY`, policy-file.ts): its path, to reload it, and its policy as checked at start; undefined without one. */
  readonly mcpPolicy: McpPolicyFile | undefined;
}

export function mcpGatewayConfig({ str, fail }: ConfigReader): McpGatewayConfig {
  return {
    mcpUpstreams: loadMcpUpstreams(str('SUITE_MCP_UPSTREAMS'), fail),
    mcpPolicy: loadMcpPolicy(str('SUITE_MCP_POLICY'), fail),
  };
}
