import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpUpstreamConfig } from './upstreams-config.ts';
import type { UpstreamCatalog } from './upstream.ts';

/**
 * Between a server's name and its tool's (or prompt's), in a gateway name: `everything__echo`. Server
 * names never hold `_` (upstreams-config.ts) and the suite's own tools never hold `__` (a test
 * checks), so the first `__` splits a name one way only: two upstream tools, or an upstream tool and
 * one of the suite's, can never share a name.
 */
export const NAMESPACE_SEPARATOR = '__';
/** The names an upstream may give its tools and prompts that the gateway offers (SEP-986's characters); others are left out, logged. */
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/**
 * A resource's URI through the gateway: `mcp+<server>:<the upstream's URI>`, a URI of its own
 * (scheme `mcp+<server>`, the upstream's URI as its path), so a client can read it back. Server
 * names hold no `:`, so the first `:` after the prefix ends the server's name and what follows is the
 * upstream's URI, byte for byte.
 */
export const RESOURCE_SCHEME_PREFIX = 'mcp+';

export const gatewayToolName = (server: string, tool: string) => `${server}${NAMESPACE_SEPARATOR}${tool}`;
export const defaultScope = (server: string, tool: string) => `mcp:${server}:${tool}`;
/** Four segments, where a tool's scope has three: no tool's scope (`mcp:<server>:*` included) grants a resource or a prompt. */
export const defaultResourceScope = (server: string) => `mcp:${server}:resources:read`;
export const defaultPromptScope = (server: string, prompt: string) => `mcp:${server}:prompt:${prompt}`;
export const gatewayUri = (server: string, uri: string) => `${RESOURCE_SCHEME_PREFIX}${server}:${uri}`;

/** The server and the upstream's own URI of a gateway URI; undefined for a URI not of that form. */
export function upstreamUri(uri: string): { server: string; uri: string } | undefined {
  if (!uri.startsWith(RESOURCE_SCHEME_PREFIX)) return undefined;
  const colon = uri.indexOf(':', RESOURCE_SCHEME_PREFIX.length);
  if (colon < 0) return undefined;
  const server = uri.slice(RESOURCE_SCHEME_PREFIX.length, colon);
  const rest = uri.slice(colon + 1);
  return server === '' || rest === '' ? undefined : { server, uri: rest };
}

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

export interface GatewayPrompt {
  /** `<server>__<prompt>`. */
  readonly name: string;
  readonly server: string;
  readonly prompt: string;
  /** `mcp:<server>:prompt:<prompt>`, or the file's override. */
  readonly scope: string;
  readonly listed: Prompt;
}

/** A listed resource or template: its scope and what a client sees (its URI namespaced). */
export interface GatewayListed<T> {
  readonly server: string;
  readonly scope: string;
  readonly listed: T;
}

export interface GatewayCatalog {
  readonly tools: readonly GatewayTool[];
  readonly resources: readonly GatewayListed<Resource>[];
  readonly resourceTemplates: readonly GatewayListed<ResourceTemplate>[];
  readonly prompts: readonly GatewayPrompt[];
}

const via = (description: string | undefined, fallback: string, server: string, scope: string) => `${description ?? fallback} (via ${server}; scope ${scope})`;

/**
 * The scope a read of the upstream's `uri` needs: the file's `resourceScopes` entry for that exact
 * URI, else for the first URI template it matches, else `mcp:<server>:resources:read`.
 */
export function resourceScope(config: McpUpstreamConfig, uri: string): string {
  const exact = config.resourceScopes[uri];
  if (exact !== undefined) return exact;
  for (const [key, scope] of Object.entries(config.resourceScopes)) {
    if (key.includes('{') && templateMatcher(key).test(uri)) return scope;
  }
  return defaultResourceScope(config.name);
}

const matchers = new Map<string, RegExp>();
/**
 * An RFC 6570 template as a pattern: a `{var}` matches within one path segment, a `{+var}` or
 * `{#var}` anything; the rest literally. Enough to give every URI a template names its scope.
 */
function templateMatcher(template: string): RegExp {
  let re = matchers.get(template);
  if (re === undefined) {
    const source = template
      .split(/(\{[^}]*\})/)
      .map((part) => {
        if (!part.startsWith('{')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        return part.startsWith('{+') || part.startsWith('{#') ? '.*' : '[^/]*';
      })
      .join('');
    re = new RegExp(`^${source}$`);
    matchers.set(template, re);
  }
  return re;
}

type Warn = (what: string, server: string, name: string) => void;

/** One upstream's lists as the gateway offers them: names and URIs namespaced, each with its scope. */
export function catalogOfUpstream(config: McpUpstreamConfig, offered: UpstreamCatalog, warn: Warn): GatewayCatalog {
  const server = config.name;
  const named = <T extends { name: string }>(what: string, items: readonly T[]) =>
    items.filter((item) => {
      if (NAME.test(item.name)) return true;
      warn(what, server, item.name);
      return false;
    });
  return {
    tools: named('tool', offered.tools).map((t) => {
      const scope = config.scopes[t.name] ?? defaultScope(server, t.name);
      const name = gatewayToolName(server, t.name);
      return { name, server, tool: t.name, scope, listed: { ...t, name, description: via(t.description, t.name, server, scope) } };
    }),
    resources: offered.resources.map((r) => {
      const scope = resourceScope(config, r.uri);
      return { server, scope, listed: { ...r, uri: gatewayUri(server, r.uri), description: via(r.description, r.name, server, scope) } };
    }),
    resourceTemplates: offered.resourceTemplates.map((r) => {
      const scope = config.resourceScopes[r.uriTemplate] ?? defaultResourceScope(server);
      return { server, scope, listed: { ...r, uriTemplate: gatewayUri(server, r.uriTemplate), description: via(r.description, r.name, server, scope) } };
    }),
    prompts: named('prompt', offered.prompts).map((p) => {
      const scope = config.promptScopes[p.name] ?? defaultPromptScope(server, p.name);
      const name = gatewayToolName(server, p.name);
      return { name, server, prompt: p.name, scope, listed: { ...p, name, description: via(p.description, p.name, server, scope) } };
    }),
  };
}
