import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { SuiteConfig } from '../config/index.ts';
import { bearerAuthenticator, createMcpServer } from '../edge-mcp/index.ts';
import { SERVICE_MODULES } from '../services/index.ts';
import { MCP_SERVER_VERSION } from '../services/mcp/index.ts';
import { edgeVerifier, mcpToolsOf } from './edge.ts';
import { startSuite, type RunningSuite } from './runtime.ts';
import { ALL_ROLES } from './roles.ts';

export interface McpIo {
  readonly stdin: Readable;
  /** The protocol's channel: nothing else is ever written to it. */
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Aborted on SIGTERM or SIGINT: close the session and stop the embedded suite cleanly (its database flushed). */
  readonly signal?: AbortSignal;
}

/** How long a running suite on this machine gets to answer the probe. */
const PROBE_TIMEOUT_MS = 1_000;

/**
 * `suite mcp` (issue 18, docs/MCP.md): the MCP server over stdio, acting with SUITE_MCP_TOKEN.
 * Where the suite is, in order: on the bus (SUITE_NATS_URL: this process joins it as an edge);
 * already running on this machine (its token listener answers: this process bridges to its `/mcp`,
 * since an embedded suite's bus lives in that process); else embedded in this process. Resolves
 * with the exit code once the client closes stdin.
 */
export async function mcpCommand(config: SuiteConfig, logger: Logger, io: McpIo): Promise<number> {
  const token = config.mcpToken;
  if (token === undefined) {
    io.stderr.write('suite mcp: SUITE_MCP_TOKEN is not set: give the capability token this MCP server acts with (docs/MCP.md)\n');
    return 2;
  }
  if (config.natsServers === undefined) {
    const running = await runningSuiteUrl(config);
    if (running !== undefined) return bridge(running, token, logger, io);
  }
  const suite = await startSuite(config, config.natsServers !== undefined ? [] : [...ALL_ROLES], logger, { checksTokens: true });
  try {
    return await serveLocally(suite, config, token, logger, io);
  } finally {
    await suite.stop();
  }
}

async function serveLocally(suite: RunningSuite, config: SuiteConfig, token: string, logger: Logger, io: McpIo): Promise<number> {
  if (suite.checker === undefined) throw new Error('suite mcp: this process checks no token');
  const verifier = edgeVerifier(suite.checker, config.adminKey, suite.audit);
  const authenticate = bearerAuthenticator(verifier, `Bearer ${token}`);
  const first = await authenticate();
  if (!first.ok) {
    io.stderr.write(`suite mcp: SUITE_MCP_TOKEN refused: ${first.error.code}: ${first.error.message}\n`);
    return 1;
  }
  if (io.signal?.aborted) return 0;
  // The listeners' bound ports (a port variable of 0 binds one of the system's choosing).
  const listeners = Object.fromEntries(suite.edges.map((e) => [e.service, e.port]));
  logger.info({ sub: first.principal.sub, mode: config.natsServers !== undefined ? 'bus' : 'embedded', listeners }, 'MCP server on stdio');
  const server = createMcpServer({
    bus: suite.bus, tools: mcpToolsOf(SERVICE_MODULES), authenticate, audit: suite.audit,
    logger: logger.child({ component: 'mcp' }), version: MCP_SERVER_VERSION,
  });
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((done) => { server.onclose = () => done(); });
  io.stdin.once('end', () => void server.close());
  io.signal?.addEventListener('abort', () => void server.close(), { once: true });
  await server.connect(transport);
  await closed;
  return 0;
}

/** The `/mcp` URL of a suite already running on this machine, when its token listener answers. */
async function runningSuiteUrl(config: SuiteConfig): Promise<URL | undefined> {
  const port = config.ports.token;
  if (port === 0) return undefined;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = (await res.json()) as { service?: unknown };
    return res.ok && body.service === 'token' ? new URL('/mcp', base) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Relay every message between stdio and the running suite's `/mcp`, with the token as bearer: that
 * suite checks it on each message, as for any remote client. The token is checked once first
 * (GET /capabilities), so a bad one stops the command at once with the suite's own error.
 */
async function bridge(url: URL, token: string, logger: Logger, io: McpIo): Promise<number> {
  const check = await fetch(new URL('/capabilities', url), { headers: { authorization: `Bearer ${token}` } });
  if (!check.ok) {
    const body = (await check.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    io.stderr.write(`suite mcp: SUITE_MCP_TOKEN refused: ${body.error?.code ?? check.status}: ${body.error?.message ?? 'the running suite refused it'}\n`);
    return 1;
  }
  logger.info({ url: url.href }, 'MCP server on stdio, bridged to the running suite');
  const remote = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const local = new StdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((done) => {
    local.onclose = () => done();
    io.stdin.once('end', () => done());
    io.signal?.addEventListener('abort', () => done(), { once: true });
  });
  local.onmessage = (message) => {
    remote.send(message).catch((err: unknown) => {
      logger.warn({ err }, 'relay to the running suite failed');
      // A request must be answered, or the client waits for ever.
      if ('id' in message && 'method' in message) {
        void local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: 'the running suite could not be reached' } });
      }
    });
  };
  remote.onmessage = (message) => {
    local.send(message).catch((err: unknown) => logger.warn({ err }, 'relay to the client failed'));
  };
  remote.onerror = (err) => logger.warn({ err }, 'running suite connection error');
  await remote.start();
  await local.start();
  await closed;
  await Promise.allSettled([remote.close(), local.close()]);
  return 0;
}
