import type { Logger } from 'pino';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpUpstreamConfig } from '../../config/index.ts';
import { Upstream, type UpstreamOutcome, type UpstreamStatus } from './upstream.ts';

/**
 * Between a server's name and its tool's, in a gateway tool's name: `everything__echo`. Server names
 * never hold `_` (config/mcp-upstreams.ts) and the suite's own tools never hold `__` (a test checks),
 * so the first `__` splits a name one way only: two upstream tools, or an upstream tool and one of
 * the suite's, can never share a name.
 */
export const NAMESPACE_SEPARATOR = '__';
/** The tool names an upstream may give that the gateway offers (SEP-986's characters); others are left out, logged. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export interface GatewayTool {
  /** `<server>__<tool>`: what a client lists and calls. */
  readonly name: string;
  readonly server: string;
  /** The upstream's own name for it: what the call forwards and the trace's `action`. */
  readonly tool: string;
  /** `mcp:<server>:<tool>`, or the file's override. */
  readonly scope: string;
  /** As the upstream describes it, renamed, its scope said in the description. */
  readonly listed: Tool;
}

export const gatewayToolName = (server: string, tool: string) => `${server}${NAMESPACE_SEPARATOR}${tool}`;
export const defaultScope = (server: string, tool: string) => `mcp:${server}:${tool}`;

/** The upstream MCP servers of one process (its token edge's `/mcp`), their tools namespaced and scoped. */
export class Gateway {
  readonly #upstreams: ReadonlyMap<string, Upstream>;
  readonly #logger: Logger;
  readonly #listeners = new Set<() => void>();
  readonly #stateListeners = new Set<(status: UpstreamStatus) => void>();
  #tools: readonly GatewayTool[] = [];
  #byName: ReadonlyMap<string, GatewayTool> = new Map();
  #signature = '[]';

  constructor(configs: readonly McpUpstreamConfig[], logger: Logger) {
    this.#logger = logger.child({ component: 'mcp-gateway' });
    this.#upstreams = new Map(configs.map((c) => [c.name, new Upstream(c, this.#logger, {
      toolsChanged: () => this.#rebuild(),
      stateChanged: (status) => { for (const l of this.#stateListeners) l(status); },
    })]));
  }

  start(): void {
    for (const u of this.#upstreams.values()) u.start();
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.#upstreams.values()].map((u) => u.stop()));
    this.#listeners.clear();
    this.#stateListeners.clear();
  }

  get size(): number {
    return this.#upstreams.size;
  }

  tools(): readonly GatewayTool[] {
    return this.#tools;
  }

  find(name: string): GatewayTool | undefined {
    return this.#byName.get(name);
  }

  call(tool: GatewayTool, args: Record<string, unknown>): Promise<UpstreamOutcome> {
    const upstream = this.#upstreams.get(tool.server);
    if (upstream === undefined) return Promise.resolve({ ok: false, error: { code: 'NOT_FOUND', message: `no upstream ${tool.server}` } });
    return upstream.call(tool.tool, args);
  }

  statuses(): UpstreamStatus[] {
    return [...this.#upstreams.values()].map((u) => u.status());
  }

  /** Called whenever the union of the upstreams' tools changes; returns the unsubscribe. */
  onToolsChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  onStateChanged(listener: (status: UpstreamStatus) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  #rebuild(): void {
    const tools: GatewayTool[] = [];
    for (const upstream of this.#upstreams.values()) {
      const { name: server, scopes } = upstream.config;
      for (const t of upstream.tools()) {
        if (!TOOL_NAME.test(t.name)) {
          this.#logger.warn({ upstream: server, tool: t.name.slice(0, 80) }, 'upstream tool left out: its name is not 1-64 of A-Z a-z 0-9 _ . -');
          continue;
        }
        const scope = scopes[t.name] ?? defaultScope(server, t.name);
        const name = gatewayToolName(server, t.name);
        const description = `${t.description ?? t.name} (via ${server}; scope ${scope})`;
        tools.push({ name, server, tool: t.name, scope, listed: { ...t, name, description } });
      }
    }
    // Announced only when it differs: a restart that brings back the same tools changes nothing for a client.
    const signature = JSON.stringify(tools.map((t) => t.listed));
    if (signature === this.#signature) return;
    this.#signature = signature;
    this.#tools = tools;
    this.#byName = new Map(tools.map((t) => [t.name, t]));
    for (const l of this.#listeners) l();
  }
}
