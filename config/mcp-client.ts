import type { ConfigReader } from './reader.ts';

/** What `suite mcp` (the stdio MCP server, a relay to a running suite) acts with; other commands ignore it. */
export interface McpClientConfig {
  /** `SUITE_MCP_TOKEN`: the capability token `suite mcp` (stdio) acts with; required by that command only. */
  readonly mcpToken: string | undefined;
  /**
   * `SUITE_MCP_CLIENT_ID` (and `SUITE_MCP_CLIENT_SECRET`, `SUITE_MCP_SCOPE`): without SUITE_MCP_TOKEN,
   * `suite mcp` obtains its token from the suite's OAuth token endpoint, by client credentials with a
   * secret, else by the device grant (docs/OAUTH.md).
   */
  readonly mcpClient: { readonly clientId: string; readonly clientSecret?: string; readonly scope?: string } | undefined;
}

export function mcpClientConfig({ str }: ConfigReader): McpClientConfig {
  const clientId = str('SUITE_MCP_CLIENT_ID');
  const clientSecret = str('SUITE_MCP_CLIENT_SECRET');
  const scope = str('SUITE_MCP_SCOPE');
  return {
    mcpToken: str('SUITE_MCP_TOKEN'),
    mcpClient:
      clientId === undefined ? undefined : { clientId, ...(clientSecret !== undefined ? { clientSecret } : {}), ...(scope !== undefined ? { scope } : {}) },
  };
}
