import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, isJSONRPCErrorResponse, isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { listenerUrl, URL_VARIABLES, type SharedConfig } from '../config/index.ts';
import { REFUSED } from '../edge-mcp/index.ts';
import { obtainMcpToken } from './mcp-token.ts';

export interface McpIo {
  readonly stdin: Readable;
  /** The protocol's channel: nothing else is ever written to it. */
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Aborted on SIGTERM or SIGINT: close the session. */
  readonly signal?: AbortSignal;
}

/** Exit status when SUITE_MCP_TOKEN is not set (a usage error), and when the session could not start. */
const EXIT_NO_TOKEN = 2;
const EXIT_FAILED = 1;

/**
 * `suite mcp` (docs/MCP.md, "stdio"): a relay between stdio and the `/mcp` of a running suite
 * (`SUITE_TOKEN_URL`, default the local token listener), with SUITE_MCP_TOKEN as the bearer of each
 * message. It starts no listener, no actor, no storage: the running suite checks the token on every
 * message, serves its tools and the gateway's, and signs the traces, on the one code path remote
 * clients use. A session that cannot start (no token, a token refused, no suite answering) is
 * refused at `initialize` with an error that says why; the command then exits non-zero.
 */
export async function mcpCommand(config: SharedConfig, logger: Logger, io: McpIo): Promise<number> {
  const base = listenerUrl(config, 'token');
  if (base === undefined) {
    io.stderr.write(`suite mcp: no token listener to attach to: set ${URL_VARIABLES.token} (docs/MCP.md)\n`);
    return EXIT_FAILED;
  }
  const url = new URL('/mcp', base);
  let token = config.mcpToken;
  let tokenProblem: string | undefined;
  if (token === undefined && config.mcpClient !== undefined) {
    try {
      token = await obtainMcpToken(new URL(base), config.mcpClient, io.stderr, io.signal);
    } catch (err) {
      tokenProblem = `no token from ${new URL('/oauth/token', base).href}: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  const local = new StdioServerTransport(io.stdin, io.stdout);
  const remote = new StreamableHTTPClientTransport(url, token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } });

  let exit = 0;
  let finish: () => void = () => undefined;
  const closed = new Promise<void>((done) => {
    finish = done;
  });
  local.onclose = () => finish();
  // Input over: the requests already sent are still answered (a client may pipe its messages and
  // close), then the session ends.
  const pending = new Set<string | number>();
  let inputEnded = false;
  const answered = (id: string | number) => {
    pending.delete(id);
    if (inputEnded && pending.size === 0) finish();
  };
  io.stdin.once('end', () => {
    inputEnded = true;
    if (pending.size === 0) finish();
  });
  io.signal?.addEventListener('abort', () => finish(), { once: true });

  /** Refuse the session: answer the request, say why on stderr, end with `code`. */
  const refuse = async (id: string | number, code: number, message: string, data: Record<string, unknown>, status: number) => {
    io.stderr.write(`suite mcp: ${message}\n`);
    await local.send({ jsonrpc: '2.0', id, error: { code, message, data } }).catch(() => undefined);
    pending.delete(id);
    exit = status;
    finish();
  };

  /** The `initialize` request sent to the suite, whose answer decides whether the session starts. */
  let initializeId: string | number | undefined;
  local.onmessage = (message: JSONRPCMessage) => {
    const request = isJSONRPCRequest(message) ? message : undefined;
    if (request?.method === 'initialize') {
      if (token === undefined) {
        if (tokenProblem !== undefined) void refuse(request.id, REFUSED, tokenProblem, { code: 'TOKEN_MISSING' }, EXIT_FAILED);
        else
          void refuse(
            request.id,
            REFUSED,
            'SUITE_MCP_TOKEN is not set: give the capability token this MCP server acts with, or SUITE_MCP_CLIENT_ID to obtain one by OAuth (docs/MCP.md)',
            { code: 'TOKEN_MISSING' },
            EXIT_NO_TOKEN,
          );
        return;
      }
      initializeId = request.id;
    }
    if (request !== undefined) pending.add(request.id);
    remote.send(message).catch((err: unknown) => {
      // A request must be answered, or the client waits for ever.
      const refusal = refusalOf(err);
      if (refusal !== undefined && request !== undefined) {
        // /mcp answers a refused token with 401 and a call beyond its scope with 403 (RFC 9728, the MCP
        // authorization spec): relayed to the stdio client as the MCP error it knows.
        const text = refusal.message.startsWith(`${refusal.code}: `) ? refusal.message : `${refusal.code}: ${refusal.message}`;
        if (request.method === 'initialize') void refuse(request.id, REFUSED, `SUITE_MCP_TOKEN refused: ${text}`, { code: refusal.code }, EXIT_FAILED);
        else
          void local
            .send({ jsonrpc: '2.0', id: request.id, error: { code: REFUSED, message: text, data: { code: refusal.code } } })
            .finally(() => answered(request.id));
        return;
      }
      logger.warn({ err: String(err), url: url.href }, 'relay to the suite failed');
      if (request === undefined) return;
      const reason = `no suite answers at ${url.origin} (${URL_VARIABLES.token}): start one with \`suite start\`, or point ${URL_VARIABLES.token} at one`;
      if (request.method === 'initialize') void refuse(request.id, ErrorCode.InternalError, reason, { code: 'SERVICE_UNAVAILABLE' }, EXIT_FAILED);
      else
        void local
          .send({ jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.InternalError, message: reason, data: { code: 'SERVICE_UNAVAILABLE' } } })
          .finally(() => answered(request.id));
    });
  };
  remote.onmessage = (message) => {
    if (isJSONRPCErrorResponse(message) && message.id !== undefined && message.id === initializeId) {
      void refuse(
        message.id,
        message.error.code,
        `SUITE_MCP_TOKEN refused: ${message.error.message}`,
        (message.error.data ?? {}) as Record<string, unknown>,
        EXIT_FAILED,
      );
      return;
    }
    local
      .send(message)
      .catch((err: unknown) => logger.warn({ err }, 'relay to the client failed'))
      .finally(() => {
        if ('id' in message && message.id !== undefined) answered(message.id);
      });
  };
  let closing = false;
  // Closing aborts the transport's own requests: not an error worth a line.
  remote.onerror = (err) => {
    if (!closing) logger.warn({ err: String(err) }, 'suite connection error');
  };

  await remote.start();
  await local.start();
  logger.info({ url: url.href }, 'MCP server on stdio, relaying to the suite');
  await closed;
  closing = true;
  await Promise.allSettled([remote.close(), local.close()]);
  return exit;
}

/** The suite's refusal in a 401 or 403 from /mcp (its body is the error shape), or undefined. */
function refusalOf(err: unknown): { code: string; message: string } | undefined {
  if (!(err instanceof StreamableHTTPError) || (err.code !== 401 && err.code !== 403)) return undefined;
  const body = err.message.slice(err.message.indexOf('{'));
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    const { code, message } = parsed.error ?? {};
    return typeof code === 'string' && typeof message === 'string' ? { code, message } : undefined;
  } catch {
    return undefined;
  }
}
