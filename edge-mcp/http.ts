import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Type } from 'typebox';
import {
  ErrorBodySchema,
  TENANT_KEY_HEADER,
  answer,
  operation,
  presentationProblem,
  presentedToken,
  type EdgeRoutes,
  type TenantResolver,
  type Verified,
} from '../edge-http/index.ts';
import type { McpVerified } from './authorize.ts';
import { createMcpServer, type McpServerDeps } from './server.ts';
import { protectedResourceCheck, sendRefusal, type ProtectedResource } from './protected-resource.ts';
import type { CapabilityVerifier } from '../edge-http/index.ts';

export interface McpRouteDeps extends Omit<McpServerDeps, 'authenticate'> {
  /** The process's capability check (cli/edge.ts `edgeVerifier`): the HTTP edges' own. */
  readonly verifier: CapabilityVerifier;
  /** Resolves `X-Suite-Tenant-Key` (absent: every tenant key is refused `TENANT_KEY_INVALID`). */
  readonly tenants?: TenantResolver;
  /** `/mcp` as an OAuth protected resource (RFC 9728): its identifier and metadata URL per request. */
  readonly protectedResource: ProtectedResource;
}

/**
 * The caller of one HTTP request, from its `Authorization` header, checked as the HTTP edges check it:
 * a Bearer token, or a DPoP-bound token as `DPoP` with its proof when `request` is given (RFC 9449 §7).
 */
export function bearerAuthenticator(verifier: CapabilityVerifier, authorization: string | undefined, request?: FastifyRequest): () => Promise<Verified> {
  return async () => {
    if (authorization === undefined) return { ok: false, error: { code: 'TOKEN_MISSING', message: 'no Authorization header' } };
    const presented = presentedToken(authorization);
    if (presented === null || (request === undefined && presented.scheme !== 'bearer')) {
      return { ok: false, error: { code: 'TOKEN_INVALID', message: 'Authorization must be "Bearer <token>"' } };
    }
    // Fail closed (spec, Authentication rule 10), as the capability check of every route.
    if (!verifier.revocationTrusted())
      return { ok: false, error: { code: 'REVOCATION_UNAVAILABLE', message: 'revocation status unavailable; nothing was done; try again shortly' } };
    const verified = await verifier.verifyBearer(presented.token);
    if (!verified.ok) return verified;
    if (request === undefined) {
      return verified.principal.jkt === undefined
        ? verified
        : { ok: false, error: { code: 'TOKEN_INVALID', message: 'the token is DPoP-bound: present it as "Authorization: DPoP" with a DPoP proof' } };
    }
    const problem = await presentationProblem(request, verified.principal, presented.scheme, presented.token, verifier.dpopFirstUse?.bind(verifier));
    return problem === undefined ? verified : { ok: false, error: problem };
  };
}

/**
 * The caller with the tenant its `X-Suite-Tenant-Key` names, by the HTTP edges' rules (docs/TENANCY.md):
 * an unknown or empty key `TENANT_KEY_INVALID`, a suspended tenant `TENANT_SUSPENDED`, a token issued
 * under another tenant `CAPABILITY_INSUFFICIENT`. Resolved on every message (no cache: a rotated key or
 * a suspension holds from the moment it is answered). Without the header, the bearer check alone.
 */
export function tenantAuthenticator(
  authenticate: () => Promise<Verified>,
  key: string | undefined,
  tenants: TenantResolver | undefined,
): () => Promise<McpVerified> {
  if (key === undefined) return authenticate;
  return async () => {
    const who = await authenticate();
    if (!who.ok) return who;
    if (tenants === undefined) return { ok: false, error: { code: 'TENANT_KEY_INVALID', message: 'tenant keys are not accepted by this deployment' } };
    if (key === '') return { ok: false, error: { code: 'TENANT_KEY_INVALID', message: `the ${TENANT_KEY_HEADER} header is empty` } };
    const resolved = await tenants.resolve(key);
    if (!resolved.ok) return resolved;
    const { principal } = who;
    if (principal.tenantId !== undefined && principal.tenantId !== resolved.tenantId) {
      return { ok: false, error: { code: 'CAPABILITY_INSUFFICIENT', message: 'the token was issued for another tenant than the tenant key names' } };
    }
    return { ok: true, principal: { ...principal, tenantId: resolved.tenantId }, billedTenant: resolved.tenantId };
  };
}

/** A JSON-RPC 2.0 message, as the MCP transport writes it (the MCP specification has its schema). */
const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()])),
    result: Type.Optional(Type.Unknown()),
    error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) })),
  },
  { additionalProperties: true },
);
const JsonRpcAnswer = Type.Union([JsonRpcMessage, Type.Array(JsonRpcMessage)]);
const TransportRefused = (description: string) => answer(JsonRpcMessage, description);
const PostOnly = answer(ErrorBodySchema, 'This MCP endpoint is stateless: POST only (INVALID_REQUEST)');

/**
 * `/mcp` (Streamable HTTP, stateless: every POST stands alone, so any replica of the token edge can
 * answer it). The route is public to the HTTP capability check because the MCP layer holds the
 * authority: each message checks the request's bearer token and each tool its own scope, and
 * answers in MCP terms (an empty tool list, an MCP error naming the missing scope).
 */
export function mcpRoutes(deps: McpRouteDeps): EdgeRoutes {
  return (app) => {
    app.post(
      '/mcp',
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('mcp', 'postMcpMessage', 'Send MCP JSON-RPC messages (Streamable HTTP, stateless); the bearer token is checked per message'),
          response: {
            200: answer(JsonRpcAnswer, 'The JSON-RPC answer'),
            401: answer(
              ErrorBodySchema,
              'No token, or one that is invalid, expired, revoked or for another resource; `WWW-Authenticate: Bearer resource_metadata=…` names the protected resource metadata (RFC 9728)',
            ),
            403: answer(ErrorBodySchema, 'A tools/call of a tool whose scope the token lacks; `WWW-Authenticate: Bearer error="insufficient_scope", scope=…`'),
            202: { description: 'Accepted: notifications or responses only, nothing to answer', type: 'null' },
            400: answer(
              Type.Union([JsonRpcMessage, ErrorBodySchema]),
              'Not a JSON-RPC message (a JSON-RPC error), or a body that is not JSON (the error body)',
            ),
            406: TransportRefused('The `Accept` header must list application/json and text/event-stream'),
            415: TransportRefused('The body must be application/json'),
          },
        },
      },
      async (request, reply) => {
        const tenantKey = request.headers[TENANT_KEY_HEADER];
        // Checked once per HTTP request (the MCP layer asks per message; one POST is one decision).
        const checked = tenantAuthenticator(
          bearerAuthenticator(deps.verifier, request.headers.authorization, request),
          typeof tenantKey === 'string' ? tenantKey : undefined,
          deps.tenants,
        )();
        const authenticate = () => checked;
        const refusal = await protectedResourceCheck(deps.protectedResource, request, await checked, deps.tools, deps.audit, deps.metrics);
        if (refusal !== undefined) return sendRefusal(reply, refusal);
        const server = createMcpServer({ ...deps, authenticate });
        // JSON answers rather than an SSE stream: a tool call has one answer, and the edge's hooks
        // (request id, access log, metrics) see an ordinary reply. A tool call sent with a progressToken
        // is answered as a stream: a held call may wait for a person, telling the agent so meanwhile.
        const streamed = asksForProgress(request.body);
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streamed });
        await server.connect(transport);
        if (streamed) {
          const response = await transport.handleRequest(webRequestOf(request), { parsedBody: request.body });
          // The server lives until the stream ends (the answer sent) or the agent goes away.
          reply.raw.once('close', () => void server.close());
          return sendStream(reply, response);
        }
        try {
          const response = await transport.handleRequest(webRequestOf(request), { parsedBody: request.body });
          return await send(reply, response);
        } finally {
          await server.close();
        }
      },
    );
    // With a gateway, GET opens the stream of list-changed notifications; without, there is nothing
    // to send. Stateless: no session to end (the transport spec's 405).
    const streams = deps.gateway?.streams;
    if (streams !== undefined) {
      app.addHook('preClose', async () => streams.end());
      app.get(
        '/mcp',
        {
          config: { authority: { kind: 'public' } },
          schema: {
            ...operation('mcp', 'openMcpStream', 'Open the stream of notifications/tools/list_changed (text/event-stream) of the MCP gateway'),
            response: {
              200: { description: 'A text/event-stream of JSON-RPC notifications', type: 'null' },
              401: answer(ErrorBodySchema, 'No token, or one that is invalid, expired or revoked'),
              406: answer(ErrorBodySchema, 'The `Accept` header must list text/event-stream (INVALID_REQUEST)'),
            },
          },
        },
        async (request, reply) => streams.handle(request, reply, bearerAuthenticator(deps.verifier, request.headers.authorization)),
      );
    }
    for (const method of streams !== undefined ? (['DELETE'] as const) : (['GET', 'DELETE'] as const)) {
      app.route({
        method,
        url: '/mcp',
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('mcp', method === 'GET' ? 'openMcpStream' : 'endMcpSession', `Not offered: the endpoint is stateless (405)`),
          response: { 405: PostOnly },
        },
        handler: async (_request, reply) =>
          reply
            .code(405)
            .header('allow', 'POST')
            .send({ error: { code: 'INVALID_REQUEST', message: 'this MCP endpoint is stateless: POST only' } }),
      });
    }
  };
}

function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  // The body was read and parsed by the edge (its size limit and JSON rules); the transport gets it as `parsedBody`.
  headers.delete('content-length');
  return new Request(`http://localhost${request.url}`, { method: 'POST', headers });
}

/** One `tools/call` request whose `_meta` carries a progressToken (a batch or anything else: JSON answers). */
function asksForProgress(body: unknown): boolean {
  const m = body as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } } | null;
  const token = m?.method === 'tools/call' ? m.params?._meta?.progressToken : undefined;
  return typeof token === 'string' || typeof token === 'number';
}

function sendStream(reply: FastifyReply, response: Response): FastifyReply {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'transfer-encoding') reply.header(name, value);
  });
  return response.body === null ? reply.send() : reply.send(Readable.fromWeb(response.body as never));
}

async function send(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'transfer-encoding') reply.header(name, value);
  });
  const text = await response.text();
  return reply.send(text === '' ? undefined : text);
}
