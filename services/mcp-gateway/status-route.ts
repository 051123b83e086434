import { Type } from 'typebox';
import { answer, operation, type EdgeRoutes } from '../../edge-http/index.ts';
import type { Gateway } from './pool.ts';

const UpstreamStatusSchema = Type.Object({
  name: Type.String(),
  transport: Type.Union([Type.Literal('stdio'), Type.Literal('http')]),
  state: Type.Union([Type.Literal('connecting'), Type.Literal('ready'), Type.Literal('down'), Type.Literal('stopped')]),
  tools: Type.Integer({ minimum: 0 }),
  restarts: Type.Integer({ minimum: 0 }),
  inFlight: Type.Integer({ minimum: 0 }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  pid: Type.Union([Type.Integer(), Type.Null()]),
});
export const UpstreamsReply = Type.Object({ upstreams: Type.Array(UpstreamStatusSchema) });

const Iso = Type.String({ format: 'date-time' });
const Outcome = Type.Union([Type.Literal('success'), Type.Literal('failure')]);
export const GatewayCallsReply = Type.Object({
  since: Object.assign(Iso, { description: 'When this process started counting (its start)' }),
  calls: Type.Array(
    Type.Object({
      upstream: Type.String(),
      name: Type.String({ description: "The upstream's tool name, `prompts/get <prompt>` or `resources/read`" }),
      success: Type.Integer({ minimum: 0 }),
      failure: Type.Integer({ minimum: 0 }),
      lastAt: Iso,
      lastTraceId: Type.String({ description: 'The execution record of the latest call (GET /executions/{id})' }),
    }),
  ),
  recent: Type.Array(Type.Object({ at: Iso, upstream: Type.String(), name: Type.String(), outcome: Outcome, traceId: Type.String() })),
});

/** Without upstreams there is nothing to count: `since` is this module's load, the process's start. */
const STARTED = new Date().toISOString();

/** The scope that reads the gateway's upstreams (`mcp:…` scopes are the upstream tools', so not that prefix). */
export const GATEWAY_READ_SCOPE = 'gateway:read';

/**
 * `GET /mcp/upstreams`: each upstream of this edge's gateway, its connection state, tool count,
 * restarts, calls in flight, last error and (stdio) process id; an empty list when none is set. Never its command, URL, `env` or
 * `headers`: they may hold the upstream's credentials. `GET /mcp/calls`: the gateway's traced calls in
 * this process (gateway/ledger.ts), per upstream and tool, and the latest with their trace ids: a
 * tenant's token sees its own tenant's calls only.
 */
export function upstreamStatusRoute(gateway: Gateway | undefined): EdgeRoutes {
  return (app) => {
    app.get(
      '/mcp/upstreams',
      {
        config: { authority: { kind: 'scope', scope: GATEWAY_READ_SCOPE, admin: true } },
        schema: {
          ...operation('mcp', 'listMcpUpstreams', "The MCP gateway's upstream servers and their connection state"),
          response: { 200: answer(UpstreamsReply, "Each upstream of this edge's gateway; an empty list when none is configured") },
        },
      },
      async () => ({ upstreams: gateway?.statuses() ?? [] }),
    );
    app.get(
      '/mcp/calls',
      {
        config: { authority: { kind: 'scope', scope: GATEWAY_READ_SCOPE, admin: true } },
        schema: {
          ...operation(
            'mcp',
            'listMcpGatewayCalls',
            "The MCP gateway's traced calls in this process, per upstream and tool, and the latest ones with their trace ids",
          ),
          response: {
            200: answer(
              GatewayCallsReply,
              "Counted since this process started; empty without upstreams. A token issued under a tenant sees that tenant's calls only",
            ),
          },
        },
      },
      async (request) => {
        // A tenant's token sees its tenant's calls only; the admin key and untenanted tokens see all.
        const tenantId = request.principal.tenantId;
        return gateway?.ledger.snapshot(tenantId !== undefined ? { tenantId } : { all: true }) ?? { since: STARTED, calls: [], recent: [] };
      },
    );
  };
}
