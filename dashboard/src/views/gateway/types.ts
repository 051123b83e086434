/** The MCP gateway's answers (services/mcp-gateway/status-route.ts; docs/MCP.md, "The gateway"). */
export interface UpstreamRow {
  name: string;
  transport: 'stdio' | 'http';
  state: 'connecting' | 'ready' | 'down' | 'stopped';
  tools: number;
  restarts: number;
  inFlight: number;
  lastError: string | null;
  pid: number | null;
}

export interface CallTally {
  upstream: string;
  name: string;
  success: number;
  failure: number;
  lastAt: string;
  lastTraceId: string;
}
export interface RecentCall {
  at: string;
  upstream: string;
  name: string;
  outcome: 'success' | 'failure';
  traceId: string;
}
export interface GatewayCalls {
  since: string;
  calls: CallTally[];
  recent: RecentCall[];
}

/** The scope both reads need (or the admin key). */
export const GATEWAY_READ_SCOPE = 'gateway:read';
