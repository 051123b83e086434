import type { Logger } from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { McpUpstreamConfig } from './upstreams-config.ts';
import type { ErrorData } from '../../bus/index.ts';
import { backoffMs } from './backoff.ts';
import { Slots } from './slots.ts';

export type UpstreamState = 'connecting' | 'ready' | 'down' | 'stopped';

export interface UpstreamStatus {
  readonly name: string;
  readonly transport: 'stdio' | 'http';
  readonly state: UpstreamState;
  /** Tools it offers (the last list it gave: kept while it restarts, so a blip does not empty a client's list). */
  readonly tools: number;
  /** Times the connection was made again after it was lost. */
  readonly restarts: number;
  readonly inFlight: number;
  /** Why it was last lost or refused (no credential: a message of ours, or the upstream's error's). */
  readonly lastError: string | null;
  /** The stdio server's process id while it runs. */
  readonly pid: number | null;
}

/** A call's end: the upstream's own result (an `isError` result included), or why there is none. */
export type UpstreamOutcome<R = CallToolResult> = { ok: true; result: R; bytes: number } | { ok: false; error: ErrorData; timedOut?: true; tooLarge?: true };

/** What an upstream offers: the last lists it gave (kept while it restarts, so a blip does not empty a client's lists). */
export interface UpstreamCatalog {
  readonly tools: readonly Tool[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplate[];
  readonly prompts: readonly Prompt[];
}
const EMPTY_CATALOG: UpstreamCatalog = { tools: [], resources: [], resourceTemplates: [], prompts: [] };

export interface UpstreamEvents {
  /** Its lists were read (first connection, its list_changed notifications, a restart). */
  catalogChanged(): void;
  stateChanged(status: UpstreamStatus): void;
}

/** How often a live connection is pinged: a dead HTTP server or a wedged process is found between calls. */
const KEEPALIVE_MS = 15_000;
/**
 * Connecting (a process to start) and keep-alive pings get at least this long, whatever the calls'
 * timeout: a short call timeout must not turn a slow start or a busy machine into a restart loop.
 */
const HOUSEKEEPING_TIMEOUT_MS = 10_000;
const CLIENT_INFO = { name: 'agent-authority-suite-gateway', version: '1.0.0' };

/**
 * One upstream MCP server (docs/MCP.md, "The gateway"): connected with the SDK's client, over stdio
 * (its process started with the file's `command`, `args`, `env`: its own credentials, never the
 * suite's environment, never a caller's token) or Streamable HTTP (the file's `headers`). Kept alive
 * by pings; a lost connection (a crashed process, a dead server) is made again with backoff. Calls
 * are bounded: a timeout, a cap on calls in flight, a cap on the result's size.
 */
export class Upstream {
  readonly config: McpUpstreamConfig;
  readonly #logger: Logger;
  readonly #events: UpstreamEvents;
  readonly #slots: Slots;
  #state: UpstreamState = 'connecting';
  #client: Client | undefined;
  #transport: StdioClientTransport | StreamableHTTPClientTransport | undefined;
  #catalog: UpstreamCatalog = EMPTY_CATALOG;
  #restarts = 0;
  #attempt = 0;
  #lastError: string | null = null;
  #retry: NodeJS.Timeout | undefined;
  #keepalive: NodeJS.Timeout | undefined;

  constructor(config: McpUpstreamConfig, logger: Logger, events: UpstreamEvents) {
    this.config = config;
    this.#logger = logger.child({ upstream: config.name });
    this.#events = events;
    this.#slots = new Slots(config.maxConcurrent);
  }

  /** Connects in the background: an upstream that is down never holds the suite's start. */
  start(): void {
    void this.#connect();
  }

  async stop(): Promise<void> {
    this.#setState('stopped');
    clearTimeout(this.#retry);
    clearInterval(this.#keepalive);
    await this.#client?.close().catch(() => undefined);
  }

  catalog(): UpstreamCatalog {
    return this.#catalog;
  }

  status(): UpstreamStatus {
    const pid = this.#transport instanceof StdioClientTransport ? this.#transport.pid : null;
    return {
      name: this.config.name,
      transport: this.config.transport.kind,
      state: this.#state,
      tools: this.#catalog.tools.length,
      restarts: this.#restarts,
      inFlight: this.#slots.busy,
      lastError: this.#lastError,
      pid: this.#state === 'ready' ? pid : null,
    };
  }

  /** Forward one tool call; every way it can fail is an outcome, never a throw. */
  call(tool: string, args: Record<string, unknown>): Promise<UpstreamOutcome> {
    return this.#bounded((client, options) => client.callTool({ name: tool, arguments: args }, undefined, options) as Promise<CallToolResult>);
  }

  /** Forward one `resources/read` of the upstream's own URI, bounded as a tool call is. */
  readResource(uri: string): Promise<UpstreamOutcome<ReadResourceResult>> {
    return this.#bounded((client, options) => client.readResource({ uri }, options));
  }

  /** Forward one `prompts/get` of the upstream's own prompt name, bounded as a tool call is. */
  getPrompt(name: string, args: Record<string, string> | undefined): Promise<UpstreamOutcome<GetPromptResult>> {
    return this.#bounded((client, options) => client.getPrompt({ name, ...(args !== undefined ? { arguments: args } : {}) }, options));
  }

  /** One request within the upstream's limits: a slot, the timeout (waiting for the slot included), the result's size. */
  async #bounded<R>(send: (client: Client, options: RequestOptions) => Promise<R>): Promise<UpstreamOutcome<R>> {
    const { name, timeoutMs, maxResultBytes } = this.config;
    const client = this.#client;
    if (this.#state !== 'ready' || client === undefined) {
      return {
        ok: false,
        error: {
          code: 'PROVIDER_UNAVAILABLE',
          message: `upstream ${name} is ${this.#state}${this.#lastError ? ` (${this.#lastError})` : ''}; try again shortly`,
        },
      };
    }
    const deadline = Date.now() + timeoutMs;
    const timedOut = (): UpstreamOutcome<R> => ({
      ok: false,
      timedOut: true,
      error: { code: 'PROVIDER_UNAVAILABLE', message: `upstream ${name} did not answer within ${timeoutMs} ms` },
    });
    if (!(await this.#slots.acquire(timeoutMs))) return timedOut();
    try {
      const remaining = Math.max(1, deadline - Date.now());
      // The SDK cancels the request upstream (notifications/cancelled) when the timeout fires.
      const result = await send(client, { timeout: remaining, maxTotalTimeout: remaining });
      const bytes = Buffer.byteLength(JSON.stringify(result));
      if (bytes > maxResultBytes) {
        return {
          ok: false,
          tooLarge: true,
          error: { code: 'PROVIDER_REJECTED', message: `upstream ${name} answered ${bytes} bytes, over its limit of ${maxResultBytes}` },
        };
      }
      return { ok: true, result, bytes };
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) return timedOut();
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        return { ok: false, error: { code: 'PROVIDER_UNAVAILABLE', message: `upstream ${name} closed the connection during the call; it is being restarted` } };
      }
      // The upstream's own JSON-RPC error (unknown tool, invalid params): its message, bounded.
      const message = err instanceof Error ? err.message : String(err);
      return { ok: false, error: { code: 'PROVIDER_REJECTED', message: `upstream ${name}: ${message.slice(0, 500)}` } };
    } finally {
      this.#slots.release();
    }
  }

  async #connect(): Promise<void> {
    if (this.#state === 'stopped') return;
    const t = this.config.transport;
    const transport =
      t.kind === 'stdio'
        ? new StdioClientTransport({ command: t.command, args: [...t.args], env: { ...t.env }, ...(t.cwd !== undefined ? { cwd: t.cwd } : {}), stderr: 'pipe' })
        : new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers: { ...t.headers } } });
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const reread = () => {
      this.#refreshCatalog(client).catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'upstream lists could not be read again'));
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, reread);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, reread);
    client.setNotificationHandler(PromptListChangedNotificationSchema, reread);
    client.onclose = () => this.#lost(client, 'connection closed');
    this.#client = client;
    this.#transport = transport;
    try {
      // Its standard error is its log: kept at debug level, and read so a chatty server never blocks on a full pipe.
      if (transport instanceof StdioClientTransport) {
        transport.stderr?.on('data', (chunk: Buffer) => this.#logger.debug({ stderr: chunk.toString().slice(0, 2000) }, 'upstream stderr'));
      }
      await client.connect(transport, { timeout: Math.max(this.config.timeoutMs, HOUSEKEEPING_TIMEOUT_MS) });
      await this.#refreshCatalog(client);
      if ((this.#state as UpstreamState) === 'stopped') return void client.close();
      if (this.#attempt > 0) this.#restarts++;
      this.#attempt = 0;
      this.#lastError = null;
      this.#setState('ready');
      this.#keepalive = setInterval(() => {
        client
          .ping({ timeout: Math.max(this.config.timeoutMs, HOUSEKEEPING_TIMEOUT_MS) })
          .catch((err: unknown) => this.#lost(client, `keep-alive ping failed: ${String(err).slice(0, 200)}`));
      }, KEEPALIVE_MS);
      this.#keepalive.unref();
    } catch (err) {
      this.#lost(client, `connect failed: ${String(err).slice(0, 200)}`);
    }
  }

  /** The connection of `client` is gone: close it, and connect again after the backoff. */
  #lost(client: Client, reason: string): void {
    if (this.#client !== client || this.#state === 'stopped' || this.#state === 'down') return;
    clearInterval(this.#keepalive);
    this.#lastError = reason;
    this.#setState('down');
    this.#logger.warn({ reason, attempt: this.#attempt }, 'upstream lost; connecting again after backoff');
    void client.close().catch(() => undefined);
    this.#retry = setTimeout(() => {
      if (this.#state === 'stopped') return;
      this.#attempt++;
      this.#setState('connecting');
      void this.#connect();
    }, backoffMs(this.#attempt));
    this.#retry.unref();
  }

  /** Its tools, and its resources, resource templates and prompts when it declares them, all pages of each. */
  async #refreshCatalog(client: Client): Promise<void> {
    const options = { timeout: Math.max(this.config.timeoutMs, HOUSEKEEPING_TIMEOUT_MS) };
    const offers = client.getServerCapabilities() ?? {};
    const [tools, resources, resourceTemplates, prompts] = await Promise.all([
      allPages(
        (cursor) => client.listTools(cursor, options),
        (r) => r.tools,
      ),
      offers.resources
        ? allPages(
            (cursor) => client.listResources(cursor, options),
            (r) => r.resources,
          )
        : [],
      offers.resources
        ? allPages(
            (cursor) => client.listResourceTemplates(cursor, options),
            (r) => r.resourceTemplates,
          )
        : [],
      offers.prompts
        ? allPages(
            (cursor) => client.listPrompts(cursor, options),
            (r) => r.prompts,
          )
        : [],
    ]);
    if (this.#client !== client) return;
    this.#catalog = { tools, resources, resourceTemplates, prompts };
    this.#events.catalogChanged();
  }

  #setState(state: UpstreamState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#events.stateChanged(this.status());
  }
}

/** Every page of one list, bounded: a server that pages for ever does not hold the gateway. */
async function allPages<P extends { nextCursor?: string | undefined }, T>(
  list: (params: { cursor: string } | undefined) => Promise<P>,
  items: (page: P) => readonly T[],
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await list(cursor === undefined ? undefined : { cursor });
    out.push(...items(r));
    cursor = r.nextCursor;
    if (cursor === undefined) break;
  }
  return out;
}
