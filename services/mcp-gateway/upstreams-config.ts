import { readFileSync } from 'node:fs';
import { isValidScope } from '../../core/capability/index.ts';

/**
 * The MCP gateway's upstream servers (docs/MCP.md, "The gateway"), from the file `SUITE_MCP_UPSTREAMS`
 * names, in the shape desktop MCP clients already use: `{"mcpServers": {"<name>": {"command", "args",
 * "env"}}}` for stdio, `{"url", "headers"}` for Streamable HTTP. Keys of ours beside them: `scopes`
 * (tool name to the scope that grants it), `resourceScopes` and `promptScopes` (the same for resources and prompts), `timeoutMs`, `maxResultBytes`, `maxConcurrent`. Other keys
 * (a client's `disabled`, `autoApprove`...) are ignored but `disabled: true`, which leaves the server
 * out. Read once at start; an error names the variable and the server, never a value (`env` and
 * `headers` hold the upstream's credentials).
 */

export type McpUpstreamTransport =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string | undefined;
    }
  | { readonly kind: 'http'; readonly url: string; readonly headers: Readonly<Record<string, string>> };

export interface McpUpstreamConfig {
  /** The server's key in the file: the namespace of its tools (`<name>__<tool>`) and scopes (`mcp:<name>:<tool>`). */
  readonly name: string;
  readonly transport: McpUpstreamTransport;
  /** Per-tool scope overrides; a tool not named here needs `mcp:<name>:<tool>`. */
  readonly scopes: Readonly<Record<string, string>>;
  /** Per-resource scope overrides, by the upstream's URI or URI template; others need `mcp:<name>:resources:read`. */
  readonly resourceScopes: Readonly<Record<string, string>>;
  /** Per-prompt scope overrides; a prompt not named here needs `mcp:<name>:prompt:<prompt>`. */
  readonly promptScopes: Readonly<Record<string, string>>;
  /** A call not answered in this long is cancelled and answered as an error result. */
  readonly timeoutMs: number;
  /** A result larger than this (its JSON, in bytes) is dropped and answered as an error result. */
  readonly maxResultBytes: number;
  /** Calls in flight to this server at once; more wait for a slot, within their timeout. */
  readonly maxConcurrent: number;
}

export const UPSTREAMS_VARIABLE = 'SUITE_MCP_UPSTREAMS';
/** Lower-case letters, digits and `-`, never `_`: so the first `__` of a gateway tool's name ends the server's. */
export const UPSTREAM_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const UPSTREAM_DEFAULTS = Object.freeze({ timeoutMs: 30_000, maxResultBytes: 1024 * 1024, maxConcurrent: 16 });

type Fail = (variable: string, message: string) => Error;

export function loadMcpUpstreams(path: string | undefined, fail: Fail): readonly McpUpstreamConfig[] {
  if (path === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw fail(UPSTREAMS_VARIABLE, `cannot read ${path} as JSON (${(err as { code?: string }).code ?? 'not JSON'})`);
  }
  const servers = isObject(parsed) ? parsed.mcpServers : undefined;
  if (!isObject(servers)) throw fail(UPSTREAMS_VARIABLE, `${path} must hold {"mcpServers": {"<name>": {...}}}`);
  const out: McpUpstreamConfig[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    const bad = (message: string) => fail(UPSTREAMS_VARIABLE, `server "${name.slice(0, 40)}": ${message}`);
    if (!UPSTREAM_NAME.test(name)) throw bad('a name is 1-32 lower-case letters, digits and -, starting with a letter or digit');
    if (!isObject(entry)) throw bad('must be an object');
    if (entry.disabled === true) continue;
    out.push({
      name,
      transport: transportOf(entry, bad),
      scopes: scopesOf(entry.scopes, 'scopes', bad),
      resourceScopes: scopesOf(entry.resourceScopes, 'resourceScopes', bad),
      promptScopes: scopesOf(entry.promptScopes, 'promptScopes', bad),
      timeoutMs: whole(entry.timeoutMs, 'timeoutMs', UPSTREAM_DEFAULTS.timeoutMs, 10, 3_600_000, bad),
      maxResultBytes: whole(entry.maxResultBytes, 'maxResultBytes', UPSTREAM_DEFAULTS.maxResultBytes, 256, 64 * 1024 * 1024, bad),
      maxConcurrent: whole(entry.maxConcurrent, 'maxConcurrent', UPSTREAM_DEFAULTS.maxConcurrent, 1, 1024, bad),
    });
  }
  return out;
}

function transportOf(entry: Record<string, unknown>, bad: (m: string) => Error): McpUpstreamTransport {
  const type = entry.type;
  if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'streamable-http' && type !== 'streamableHttp') {
    throw bad('type must be stdio or http (Streamable HTTP); the older SSE transport is not supported');
  }
  if (typeof entry.url === 'string' && entry.command === undefined) {
    let url: URL;
    try {
      url = new URL(entry.url);
    } catch {
      throw bad('url must be an http:// or https:// URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad('url must be an http:// or https:// URL');
    return { kind: 'http', url: url.href, headers: strings(entry.headers, 'headers', bad) };
  }
  if (typeof entry.command !== 'string' || entry.command === '') throw bad('needs "command" (stdio) or "url" (Streamable HTTP)');
  const args = entry.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw bad('args must be a list of strings');
  if (entry.cwd !== undefined && typeof entry.cwd !== 'string') throw bad('cwd must be a string');
  return { kind: 'stdio', command: entry.command, args, env: strings(entry.env, 'env', bad), cwd: entry.cwd };
}

function scopesOf(value: unknown, key: string, bad: (m: string) => Error): Record<string, string> {
  const scopes = strings(value, key, bad);
  for (const [name, scope] of Object.entries(scopes)) {
    if (!isValidScope(scope) || scope === '*') throw bad(`${key}.${name.slice(0, 60)} must be a scope (resource:action, no bare *)`);
  }
  return scopes;
}

function strings(value: unknown, key: string, bad: (m: string) => Error): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === 'string')) throw bad(`${key} must map names to strings`);
  return { ...(value as Record<string, string>) };
}

function whole(value: unknown, key: string, fallback: number, min: number, max: number, bad: (m: string) => Error): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw bad(`${key} must be a whole number between ${min} and ${max}`);
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
