import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type ServerCapabilities,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import type { Logger } from 'pino';
import type { Bus } from '../bus/index.ts';
import { scopeGrants } from '../core/capability/index.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditSink, Meter, Verified } from '../edge-http/index.ts';
import { authorize, type McpVerified } from './authorize.ts';
import type { McpTool, ToolOutcome } from './tool.ts';
import { traceCall, TRACE_META_KEY } from './trace.ts';
import type { McpMetrics } from './metrics.ts';
import { REFUSED, RpcError } from './errors.ts';
import { outputSchemaOf, wireSchema } from './schemas.ts';

export interface McpServerDeps {
  readonly bus: Bus;
  readonly tools: readonly McpTool[];
  /**
   * The caller, checked anew for every message (signature, expiry, revocation, the staleness of the
   * revocation view): a token revoked mid-session lists nothing and is refused on its next call.
   * With the tenant its tenant key named, if any: gateway calls are metered against its plan.
   */
  authenticate(): Promise<McpVerified>;
  /** The plan meter for gateway calls billed to a tenant (absent: such calls are refused, fail closed). */
  readonly meter?: Meter;
  /** The edge's audit sink: every call's decision, allow or deny, is recorded. */
  readonly audit: AuditSink;
  readonly logger: Logger;
  /** The name the server gives in `initialize`. */
  readonly version: string;
  /** Counts calls by tool and result (absent: not counted). */
  readonly metrics?: McpMetrics;
  /** The upstream MCP servers whose tools this server also offers (docs/MCP.md, "The gateway"). */
  readonly gateway?: McpGateway;
}

/**
 * What the MCP edge asks of the gateway to upstream MCP servers (docs/MCP.md, "The gateway"). The
 * gateway is a service of its own (services/mcp-gateway: upstream supervision, catalogue, ledger,
 * slots, approvals); the edge knows it only through this port, so nothing here imports it.
 */
/**
 * A held call the agent holds open (docs/MCP.md, "Waiting for the decision"): the gateway waits up to
 * `ms` (never past the request's expiry) for a person to decide, telling the agent it still waits.
 */
export interface HoldOpen {
  readonly ms: number;
  progress(step: number, message: string): Promise<void>;
}

export interface McpGateway {
  /** Capabilities announced in `initialize` beside `tools` (the upstreams' resources and prompts). */
  readonly offers: ServerCapabilities;
  /** The upstreams' tools, each with the scope a caller needs to see and call it. */
  tools(): readonly { readonly scope: string; readonly listed: Tool }[];
  /**
   * A `tools/call` of a name the suite's own tools do not have: undefined when no upstream offers it;
   * else the decided, audited, forwarded and traced call's result (refusals included).
   */
  call(name: string, args: Record<string, unknown>, deps: McpServerDeps, hold?: HoldOpen): Promise<CallToolResult> | undefined;
  /** Adds the upstreams' resources and prompts handlers to one server. */
  register(server: Server, deps: McpServerDeps): void;
  /** `GET /mcp`'s list-changed notifications: one stream per request, all ended when the listener closes. */
  readonly streams: {
    handle(request: FastifyRequest, reply: FastifyReply, authenticate: () => Promise<Verified>): Promise<FastifyReply | undefined>;
    end(): void;
  };
}

interface Prepared {
  readonly byName: ReadonlyMap<string, { tool: McpTool; check: Validator }>;
  readonly listed: ReadonlyMap<string, Tool>;
}
type Validator = ReturnType<typeof Compile>;

/** Schemas compiled and descriptions written once per tool list, not once per HTTP request. */
const preparedLists = new WeakMap<readonly McpTool[], Prepared>();
function prepared(tools: readonly McpTool[]): Prepared {
  let p = preparedLists.get(tools);
  if (p === undefined) {
    p = {
      byName: new Map(tools.map((t) => [t.name, { tool: t, check: Compile(t.input) }])),
      listed: new Map(
        tools.map((t) => [
          t.name,
          {
            name: t.name,
            description: `${t.description} (scope ${t.scope})`,
            inputSchema: wireSchema(t.input) as Tool['inputSchema'],
            outputSchema: outputSchemaOf(t.output),
          } satisfies Tool,
        ]),
      ),
    };
    preparedLists.set(tools, p);
  }
  return p;
}

const SERVER_NAME = 'agent-authority-suite';

/**
 * One JSON Schema validator for every server of the process. The SDK builds an Ajv instance with its
 * formats for each server it is not given one (~0.4 ms and its garbage, on every stateless `/mcp`
 * POST); it compiles only the schemas a server asks it to (a client's elicitation answers, which
 * these servers never request), so one instance serves them all.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** `_meta` key: how long (seconds, 1-300) a held call sent with a progressToken may wait for its decision. */
const WAIT_META_KEY = 'agent-authority-suite/wait';
const DEFAULT_WAIT_S = 60;
const MAX_WAIT_S = 300;

/**
 * A call sent with a `progressToken` is held open while it awaits a person's approval (docs/MCP.md,
 * "Waiting for the decision"): progress notifications until the decision or the bound, default 60 s,
 * `_meta["agent-authority-suite/wait"]` seconds (whole, 1-300) to choose another. Without a token the
 * held call is answered at once.
 */
function holdOpen(meta: Record<string, unknown> | undefined, notify: (n: ServerNotification) => Promise<void>): HoldOpen | undefined {
  const token = meta?.progressToken;
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  const asked = meta?.[WAIT_META_KEY];
  const seconds = Number.isSafeInteger(asked) ? Math.min(MAX_WAIT_S, Math.max(1, asked as number)) : DEFAULT_WAIT_S;
  return {
    ms: seconds * 1000,
    progress: (progress, message) => notify({ method: 'notifications/progress', params: { progressToken: token, progress, message } }),
  };
}

/**
 * The MCP server over the suite's tools (docs/MCP.md): one per connection (stdio) or per request
 * (Streamable HTTP, stateless). It translates `tools/list` and `tools/call` into the capability
 * check and one bus request; every completed call, failed ones too, is recorded on the execution
 * chain (module `mcp`, action the tool name, input and output hashed) and returns that record.
 */
export function createMcpServer(deps: McpServerDeps): Server {
  // With a gateway, the lists change when an upstream's do (announced on GET /mcp), and the
  // upstreams' resources and prompts are offered beside the tools.
  const capabilities = deps.gateway !== undefined ? { tools: { listChanged: true }, ...deps.gateway.offers } : { tools: {} };
  const server = new Server({ name: SERVER_NAME, version: deps.version }, { capabilities, jsonSchemaValidator });
  const { byName, listed } = prepared(deps.tools);

  // A credential that cannot be trusted fails the session at its start (docs/MCP.md, rule 2): a
  // client shows why, instead of an empty tool list. The answer is otherwise the SDK's own.
  server.setRequestHandler(InitializeRequestSchema, async (request) => {
    const who = await deps.authenticate();
    if (!who.ok) throw new RpcError(REFUSED, `${who.error.code}: ${who.error.message}`, { code: who.error.code });
    const requested = request.params.protocolVersion;
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
      capabilities,
      serverInfo: { name: SERVER_NAME, version: deps.version },
    };
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const who = await deps.authenticate();
    // A caller that cannot be trusted sees no tool: nothing to call, nothing to learn.
    if (!who.ok) return { tools: [] };
    const grants = (scope: string) => scopeGrants(who.principal.scope, scope);
    const own = deps.tools.filter((t) => grants(t.scope)).map((t) => listed.get(t.name) as Tool);
    return { tools: [...own, ...(deps.gateway?.tools() ?? []).filter((t) => grants(t.scope)).map((t) => t.listed)] };
  });

  deps.gateway?.register(server, deps);

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const entry = byName.get(name);
    if (entry === undefined) {
      const forwarded = deps.gateway?.call(name, request.params.arguments ?? {}, deps, holdOpen(request.params._meta, extra.sendNotification));
      if (forwarded !== undefined) return forwarded;
      // Unknown names are not counted: a label per name a caller makes up would grow without bound.
      throw new RpcError(ErrorCode.InvalidParams, `unknown tool: ${String(name).slice(0, 100)}`);
    }
    const { tool, check } = entry;
    const { caller } = await authorize(deps, { name: tool.name, resource: `mcp tools/call ${tool.name}`, scope: tool.scope, metered: false });

    // Defaults first (limit 50, as the routes), then the route's own schema, as sent: no coercion.
    const args = Value.Default(tool.input, structuredClone(request.params.arguments ?? {}));
    if (!check.Check(args)) {
      const first = check.Errors(args)[0];
      deps.metrics?.call(tool.name, 'invalid');
      throw new RpcError(ErrorCode.InvalidParams, `arguments${first?.instancePath ?? ''} ${first?.message ?? 'are invalid'}`);
    }
    let outcome: ToolOutcome;
    try {
      outcome = await tool.run(args as Parameters<McpTool['run']>[0], caller, deps.bus);
    } catch (err) {
      deps.logger.error({ err, tool: tool.name }, 'tool call failed');
      outcome = { ok: false, error: { code: 'INTERNAL_ERROR', message: 'the call failed' } };
    }
    const trace = await traceCall(
      deps.bus,
      {
        scope: tool.scope,
        module: 'mcp',
        action: tool.name,
        input: args,
        output: outcome.ok ? outcome.value : { error: outcome.error },
        success: outcome.ok,
      },
      caller,
    );
    deps.metrics?.call(tool.name, outcome.ok ? 'success' : 'failure');
    const structured = outcome.ok ? { result: outcome.value, trace } : { error: outcome.error, trace };
    return {
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured,
      ...(outcome.ok ? {} : { isError: true }),
      _meta: { [TRACE_META_KEY]: trace },
    };
  });
  return server;
}
