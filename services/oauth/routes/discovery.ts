import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EdgeApp } from '../../../edge-http/index.ts';
import { Type } from 'typebox';
import { operation } from '../../../edge-http/index.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from '../../../core/oauth/index.ts';
import type { RouteContext } from '../../kit/index.ts';
import { GRANTS } from '../grants/index.ts';
import { REGISTER_SCOPE } from '../registration.ts';
import { CONSENT_SCOPE } from '../consent.ts';
import { issuerOf } from './issuer.ts';

const Metadata = Type.Object(
  { issuer: Type.String(), token_endpoint: Type.String() },
  {
    additionalProperties: true,
    description: 'Authorization server metadata (RFC 8414 §2)',
  },
);
const ResourceMetadata = Type.Object(
  { resource: Type.String(), authorization_servers: Type.Array(Type.String()) },
  {
    additionalProperties: true,
    description: 'Protected resource metadata (RFC 9728 §2)',
  },
);

/** What a client may ask for: the scopes of the MCP tools, and the OAuth scopes of the suite itself. */
export function scopesSupported(ctx: Pick<RouteContext, 'mcpTools'>): string[] {
  return [...new Set([...ctx.mcpTools.map((t) => t.scope), REGISTER_SCOPE, CONSENT_SCOPE])].sort();
}

/** Where a client discovers everything else (RFC 8414, RFC 9728, and the MCP authorization spec). */
export function discoveryRoutes(app: EdgeApp, ctx: RouteContext): void {
  const scopes = scopesSupported(ctx);
  const toolScopes = [...new Set(ctx.mcpTools.map((t) => t.scope))].sort();
  const grantTypes = GRANTS.map((g) => g.type);
  app.get(
    '/.well-known/oauth-authorization-server',
    {
      config: { authority: { kind: 'public' } },
      schema: { ...operation('oauth', 'oauthMetadata', 'OAuth 2.1 authorization server metadata (RFC 8414)'), response: { 200: Metadata } },
    },
    async (request, reply) =>
      reply
        .header('cache-control', 'public, max-age=300')
        .send(authorizationServerMetadata({ issuer: issuerOf(ctx, request), grantTypes, scopes }) as { issuer: string; token_endpoint: string }),
  );
  const resource = async (request: FastifyRequest, reply: FastifyReply) => {
    const issuer = issuerOf(ctx, request);
    // The resource's own scopes only (its tools'): the MCP SDK asks for all of them (SEP-835), and a person unticks.
    return reply.header('cache-control', 'public, max-age=300').send(protectedResourceMetadata(`${issuer}/mcp`, issuer, toolScopes));
  };
  // RFC 9728 §3.1: the path of the resource is appended to the well-known prefix; the root form answers
  // the same document, for clients that look there (the suite's one protected resource of this kind is /mcp).
  for (const [path, id] of [
    ['/.well-known/oauth-protected-resource/mcp', 'oauthResourceMetadataMcp'],
    ['/.well-known/oauth-protected-resource', 'oauthResourceMetadata'],
  ] as const) {
    app.get(
      path,
      {
        config: { authority: { kind: 'public' } },
        schema: { ...operation('oauth', id, 'Protected resource metadata of /mcp (RFC 9728)'), response: { 200: ResourceMetadata } },
      },
      resource,
    );
  }
}
