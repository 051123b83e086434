import type { Logger } from 'pino';
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpUpstreamConfig } from './upstreams-config.ts';
import { Upstream, type UpstreamOutcome, type UpstreamStatus } from './upstream.ts';
import { CallLedger } from './ledger.ts';
import { catalogOfUpstream, resourceScope, upstreamUri, type GatewayCatalog, type GatewayPrompt, type GatewayTool } from './catalog.ts';

/** The lists a client can be told have changed (`notifications/<list>/list_changed`). */
export type GatewayList = 'tools' | 'resources' | 'prompts';
const EMPTY: GatewayCatalog = { tools: [], resources: [], resourceTemplates: [], prompts: [] };

/** A resource read resolved: the upstream, its own URI, the scope the read needs. */
export interface GatewayResourceTarget {
  readonly server: string;
  readonly uri: string;
  readonly scope: string;
}

/** The upstream MCP servers of one process (its token edge's `/mcp`): their tools, resources and prompts namespaced and scoped. */
export class Gateway {
  /** This process's traced calls, per upstream and tool, and the latest ones (`GET /mcp/calls`). */
  readonly ledger = new CallLedger();
  readonly #upstreams: ReadonlyMap<string, Upstream>;
  readonly #logger: Logger;
  readonly #listeners = new Set<(list: GatewayList) => void>();
  readonly #stateListeners = new Set<(status: UpstreamStatus) => void>();
  #catalog: GatewayCatalog = EMPTY;
  #tools: ReadonlyMap<string, GatewayTool> = new Map();
  #prompts: ReadonlyMap<string, GatewayPrompt> = new Map();
  #signatures: Record<GatewayList, string> = { tools: '[]', resources: '[]', prompts: '[]' };

  constructor(configs: readonly McpUpstreamConfig[], logger: Logger) {
    this.#logger = logger.child({ component: 'mcp-gateway' });
    this.#upstreams = new Map(
      configs.map((c) => [
        c.name,
        new Upstream(c, this.#logger, {
          catalogChanged: () => this.#rebuild(),
          stateChanged: (status) => {
            for (const l of this.#stateListeners) l(status);
          },
        }),
      ]),
    );
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

  /** Every upstream's tools, resources, resource templates and prompts, as offered (while an upstream is down, its last lists). */
  catalog(): GatewayCatalog {
    return this.#catalog;
  }

  tools(): readonly GatewayTool[] {
    return this.#catalog.tools;
  }

  find(name: string): GatewayTool | undefined {
    return this.#tools.get(name);
  }

  findPrompt(name: string): GatewayPrompt | undefined {
    return this.#prompts.get(name);
  }

  /** A gateway URI (`mcp+<server>:<uri>`) of a configured upstream, whether or not it is listed (templates make URIs). */
  resolveResource(uri: string): GatewayResourceTarget | undefined {
    const target = upstreamUri(uri);
    const upstream = target === undefined ? undefined : this.#upstreams.get(target.server);
    if (target === undefined || upstream === undefined) return undefined;
    return { ...target, scope: resourceScope(upstream.config, target.uri) };
  }

  call(tool: GatewayTool, args: Record<string, unknown>): Promise<UpstreamOutcome> {
    return this.#on(tool.server, (u) => u.call(tool.tool, args));
  }

  readResource(target: GatewayResourceTarget): Promise<UpstreamOutcome<ReadResourceResult>> {
    return this.#on(target.server, (u) => u.readResource(target.uri));
  }

  getPrompt(prompt: GatewayPrompt, args: Record<string, string> | undefined): Promise<UpstreamOutcome<GetPromptResult>> {
    return this.#on(prompt.server, (u) => u.getPrompt(prompt.prompt, args));
  }

  statuses(): UpstreamStatus[] {
    return [...this.#upstreams.values()].map((u) => u.status());
  }

  /** Called with each list whose union over the upstreams changed; returns the unsubscribe. */
  onListChanged(listener: (list: GatewayList) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  onStateChanged(listener: (status: UpstreamStatus) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  #on<R>(server: string, send: (upstream: Upstream) => Promise<UpstreamOutcome<R>>): Promise<UpstreamOutcome<R>> {
    const upstream = this.#upstreams.get(server);
    if (upstream === undefined) return Promise.resolve({ ok: false, error: { code: 'NOT_FOUND', message: `no upstream ${server}` } });
    return send(upstream);
  }

  #rebuild(): void {
    const warn = (what: string, server: string, name: string) =>
      this.#logger.warn({ upstream: server, [what]: name.slice(0, 80) }, `upstream ${what} left out: its name is not 1-64 of A-Z a-z 0-9 _ . -`);
    const parts = [...this.#upstreams.values()].map((u) => catalogOfUpstream(u.config, u.catalog(), warn));
    const catalog: GatewayCatalog = {
      tools: parts.flatMap((p) => p.tools),
      resources: parts.flatMap((p) => p.resources),
      resourceTemplates: parts.flatMap((p) => p.resourceTemplates),
      prompts: parts.flatMap((p) => p.prompts),
    };
    // Announced only when it differs: a restart that brings back the same lists changes nothing for a client.
    const signatures: Record<GatewayList, string> = {
      tools: JSON.stringify(catalog.tools.map((t) => t.listed)),
      resources: JSON.stringify([catalog.resources.map((r) => r.listed), catalog.resourceTemplates.map((r) => r.listed)]),
      prompts: JSON.stringify(catalog.prompts.map((p) => p.listed)),
    };
    const changed = (Object.keys(signatures) as GatewayList[]).filter((list) => signatures[list] !== this.#signatures[list]);
    if (changed.length === 0) return;
    this.#signatures = signatures;
    this.#catalog = catalog;
    this.#tools = new Map(catalog.tools.map((t) => [t.name, t]));
    this.#prompts = new Map(catalog.prompts.map((p) => [p.name, p]));
    for (const list of changed) for (const l of this.#listeners) l(list);
  }
}
