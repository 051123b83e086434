/** JSON-RPC server error for a refused credential or scope; `data.code` is the suite's error code. */
export const REFUSED = -32001;

/**
 * A JSON-RPC error a handler throws. Not the SDK's `McpError`: that one's message already reads
 * `MCP error <code>: …`, the SDK's server puts that message on the wire, and the SDK's client
 * prefixes it again on arrival (`MCP error -32001: MCP error -32001: …`). This one carries the bare
 * message, so a client shows the prefix once.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }
}
