import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type GetPromptResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { scopeGrants } from '../../core/capability/index.ts';
import { authorize, QUOTA_META_KEY, type Allowed, type AuthorizeDeps } from '../../edge-mcp/index.ts';
import { RpcError } from '../../edge-mcp/index.ts';
import { traceCall, TRACE_META_KEY } from '../../edge-mcp/index.ts';
import type { ForwardDeps } from './forward.ts';
import { gatewayUri } from './catalog.ts';
import type { UpstreamOutcome } from './upstream.ts';
import type { Gateway } from './pool.ts';

type OffersDeps = AuthorizeDeps & ForwardDeps & { readonly gateway: Gateway };

/** What an upstream's resources and prompts need of the server: `resources` and `prompts` declared, with list_changed. */
export const GATEWAY_OFFERS = { resources: { listChanged: true }, prompts: { listChanged: true } } as const;

/**
 * The upstreams' resources and prompts on the suite's MCP server (docs/MCP.md, "Resources and
 * prompts"): listed as the token's scopes grant them, names and URIs namespaced; a read or a get is
 * decided, audited and metered as a tool call is, forwarded within the upstream's limits, and
 * recorded on the chain (module `mcp:<server>`, action `resources/read` or `prompts/get`, what was
 * asked and what came back hashed). The protocol has no error result for these, so a failure past
 * the capability check is a JSON-RPC error (`-32603`, `<CODE>: <why>`) whose `data` holds the signed
 * trace of the failure.
 */
export function registerGatewayOffers(server: Server, deps: OffersDeps): void {
  const granted = async () => {
    const who = await deps.authenticate();
    // A caller that cannot be trusted sees nothing, as with tools.
    return (scope: string) => who.ok && scopeGrants(who.principal.scope, scope);
  };

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const grants = await granted();
    const all = deps.gateway.catalog().resources;
    const shown = all.filter((r) => grants(r.scope));
    return { resources: shown.map((r) => r.listed), ...hiddenNote(all.length - shown.length, 'resources') };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    const grants = await granted();
    return {
      resourceTemplates: deps.gateway
        .catalog()
        .resourceTemplates.filter((r) => grants(r.scope))
        .map((r) => r.listed),
    };
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    const grants = await granted();
    return {
      prompts: deps.gateway
        .catalog()
        .prompts.filter((p) => grants(p.scope))
        .map((p) => p.listed),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request): Promise<ReadResourceResult> => {
    const { uri } = request.params;
    const target = deps.gateway.resolveResource(uri);
    if (target === undefined) throw new RpcError(ErrorCode.InvalidParams, `unknown resource: ${uri.slice(0, 200)} (a gateway resource is mcp+<server>:<uri>)`);
    const label = `resources/read ${target.server}`;
    const allowed = await authorize(deps, { name: label, resource: `mcp resources/read ${uri.slice(0, 300)}`, scope: target.scope, metered: true });
    const outcome = await deps.gateway.readResource(target);
    // Contents name the upstream's URIs: given back as the gateway's, so a client can read them again.
    const answer = outcome.ok
      ? { ...outcome, result: { ...outcome.result, contents: outcome.result.contents.map((c) => ({ ...c, uri: gatewayUri(target.server, c.uri) })) } }
      : outcome;
    return attest(deps, answer, allowed, {
      label,
      scope: target.scope,
      upstream: target.server,
      name: 'resources/read',
      action: 'resources/read',
      input: { uri: target.uri },
    });
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request): Promise<GetPromptResult> => {
    const { name } = request.params;
    const prompt = deps.gateway.findPrompt(name);
    if (prompt === undefined) throw new RpcError(ErrorCode.InvalidParams, `unknown prompt: ${String(name).slice(0, 100)}`);
    const label = `prompts/get ${prompt.name}`;
    const allowed = await authorize(deps, { name: label, resource: `mcp prompts/get ${prompt.name}`, scope: prompt.scope, metered: true });
    const args = request.params.arguments;
    const outcome = await deps.gateway.getPrompt(prompt, args);
    return attest(deps, outcome, allowed, {
      label,
      scope: prompt.scope,
      upstream: prompt.server,
      name: `prompts/get ${prompt.prompt}`,
      action: 'prompts/get',
      input: { name: prompt.prompt, arguments: args ?? {} },
    });
  });
}

interface Attested {
  /** The metrics label. */
  readonly label: string;
  readonly scope: string;
  readonly upstream: string;
  /** What the call ledger counts it under. */
  readonly name: string;
  readonly action: string;
  readonly input: unknown;
}

/** The signed record of a read or get, then its answer with the trace (and quota) in `_meta`, or its failure as an error carrying the trace. */
async function attest<R extends { _meta?: Record<string, unknown> }>(
  deps: OffersDeps,
  outcome: UpstreamOutcome<R>,
  { caller, quota }: Allowed,
  call: Attested,
): Promise<R> {
  const trace = await traceCall(
    deps.bus,
    {
      scope: call.scope,
      module: `mcp:${call.upstream}`,
      action: call.action,
      input: call.input,
      output: outcome.ok ? outcome.result : { error: outcome.error },
      success: outcome.ok,
    },
    caller,
  );
  deps.metrics?.call(call.label, outcome.ok ? 'success' : 'failure');
  deps.gateway.ledger.record(call.upstream, call.name, outcome.ok, String(trace.id), caller.tenantId);
  if (!outcome.ok) {
    deps.logger.info({ call: call.label, code: outcome.error.code, reason: outcome.error.message }, 'upstream request failed');
    throw new RpcError(ErrorCode.InternalError, `${outcome.error.code}: ${outcome.error.message}`, { code: outcome.error.code, trace });
  }
  const result = outcome.result;
  return { ...result, _meta: { ...(result._meta ?? {}), [TRACE_META_KEY]: trace, ...(quota !== undefined ? { [QUOTA_META_KEY]: quota } : {}) } };
}

/**
 * Why a list came back shorter than the catalogue (issue 36, item 11): a token that sees a server's
 * tools (`mcp:<server>:*`, three segments) sees none of its resources, which need four
 * (`mcp:<server>:resources:read`, docs/MCP.md); an empty list alone read as "no resources".
 */
function hiddenNote(hidden: number, what: 'resources'): { _meta?: Record<string, unknown> } {
  if (hidden === 0) return {};
  return {
    _meta: {
      'suite/hidden': {
        count: hidden,
        reason: `${hidden} ${what} not listed: reading one needs mcp:<server>:resources:read (or the scope the gateway's resourceScopes names); a tool scope such as mcp:<server>:* does not grant it (docs/MCP.md, "Scopes")`,
      },
    },
  };
}
