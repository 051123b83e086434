import type { EdgeApp } from '../../../edge-http/index.ts';
import { Type } from 'typebox';
import type { Bus } from '../../../bus/index.ts';
import { answer, callerOf, operation, sendResult, bearerToken, type CapabilityVerifier } from '../../../edge-http/index.ts';
import { ADMIN_KEY_HEADER } from '../../../edge-http/index.ts';
import { OAUTH_PATHS, oauthError } from '../../../core/oauth/index.ts';
import type { Caller } from '../../../bus/index.ts';
import { oauthSubjects } from '../subjects.ts';
import { OAuthErrorBody, sendAnswer } from './form.ts';
import { issuerOf } from './issuer.ts';
import type { RouteContext } from '../../kit/index.ts';

/** Registration is open to public clients: at most this many per address per minute. */
export const REGISTRATION_RATE_LIMIT = Object.freeze({ max: 20, timeWindow: 60_000 });

const ClientMetadata = Type.Object(
  {
    client_name: Type.Optional(Type.String({ maxLength: 200 })),
    token_endpoint_auth_method: Type.Optional(Type.String({ maxLength: 64 })),
    grant_types: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 8 })),
    redirect_uris: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 10 })),
    scope: Type.Optional(Type.String({ maxLength: 20_000 })),
    jwks: Type.Optional(Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 10 }) })),
  },
  { additionalProperties: true, description: 'Client metadata (RFC 7591 §2); members not listed are ignored' },
);
const Registered = Type.Object(
  { client_id: Type.String(), client_secret: Type.Optional(Type.String()) },
  {
    additionalProperties: true,
    description: 'The registered client (RFC 7591 §3.2.1); client_secret shown this once',
  },
);
const ListQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  },
  { additionalProperties: false },
);
const ClientParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 256 }) });

/**
 * The initial access token's holder (RFC 7591 §3), verified as every edge verifies a bearer; or the
 * admin key. No credential: undefined (a public client may still register). A bad credential is an
 * error, never silently treated as none.
 */
async function registrarOf(
  verifier: CapabilityVerifier,
  headers: Record<string, string | string[] | undefined>,
): Promise<{ ok: true; caller: Caller | undefined } | { ok: false }> {
  const admin = headers[ADMIN_KEY_HEADER];
  if (typeof admin === 'string') return verifier.isAdminKey(admin) ? { ok: true, caller: { kind: 'admin', sub: 'admin', scope: ['*'] } } : { ok: false };
  const authorization = headers.authorization;
  if (authorization === undefined) return { ok: true, caller: undefined };
  const token = typeof authorization === 'string' ? bearerToken(authorization) : null;
  if (token === null || !verifier.revocationTrusted()) return { ok: false };
  const verified = await verifier.verifyBearer(token);
  if (!verified.ok) return { ok: false };
  const p = verified.principal;
  return {
    ok: true,
    caller: {
      kind: 'token',
      sub: p.sub ?? 'anonymous',
      scope: [...p.scope],
      ...(p.jti !== undefined ? { jti: p.jti } : {}),
      ...(p.tenantId !== undefined ? { tenantId: p.tenantId } : {}),
    },
  };
}

export function clientRoutes(app: EdgeApp, bus: Bus, ctx: RouteContext): void {
  app.post(
    OAUTH_PATHS.registration,
    {
      config: { authority: { kind: 'public' }, rateLimit: REGISTRATION_RATE_LIMIT },
      schema: {
        ...operation(
          'oauth',
          'oauthRegisterClient',
          'Dynamic client registration (RFC 7591): confidential clients with an initial access token holding oauth:client:register, public clients openly',
        ),
        body: ClientMetadata,
        response: { 201: Registered, 400: OAuthErrorBody, 401: OAuthErrorBody, 403: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      const registrar = await registrarOf(ctx.verifier, request.headers);
      if (!registrar.ok) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer error="invalid_token"')
          .send(oauthError('invalid_token', 'the initial access token is not valid'));
      }
      const result = await bus.request(oauthSubjects.register, {
        metadata: request.body as Record<string, unknown>,
        issuer: issuerOf(ctx, request),
        ...(registrar.caller !== undefined ? { registrar: registrar.caller } : {}),
      });
      if (!result.ok) return sendResult(reply, result);
      return sendAnswer(reply, result.value);
    },
  );

  app.get(
    '/oauth/clients',
    {
      config: { authority: { kind: 'scope', scope: 'oauth:client:admin', admin: true } },
      schema: {
        ...operation('oauth', 'oauthListClients', 'List registered OAuth clients, newest first (no secrets)'),
        querystring: ListQuery,
        response: { 200: answer(oauthSubjects.listClients.reply, 'A page of clients') },
      },
    },
    async (request, reply) => {
      const { limit, offset } = request.query as { limit: number; offset: number };
      return sendResult(reply, await bus.request(oauthSubjects.listClients, { limit, offset, caller: callerOf(request) }));
    },
  );

  app.get(
    '/oauth/issuers',
    {
      config: { authority: { kind: 'scope', scope: 'oauth:read', admin: true } },
      schema: {
        ...operation(
          'oauth',
          'oauthListIssuers',
          'The trusted outside issuers of token exchange (SUITE_OAUTH_TRUSTED_ISSUERS) and what each subject may get; no keys',
        ),
        response: { 200: answer(oauthSubjects.listIssuers.reply, 'The trusted issuers') },
      },
    },
    async (request, reply) => sendResult(reply, await bus.request(oauthSubjects.listIssuers, { caller: callerOf(request) })),
  );

  app.get(
    '/oauth/grants',
    {
      config: { authority: { kind: 'scope', scope: 'oauth:read', admin: true } },
      schema: {
        ...operation(
          'oauth',
          'oauthListGrants',
          "The token endpoint's recent outcomes, granted or refused, newest first (30 days kept; the audit trail is the record)",
        ),
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }) }, { additionalProperties: false }),
        response: { 200: answer(oauthSubjects.listGrants.reply, 'Recent grants') },
      },
    },
    async (request, reply) => {
      const { limit } = request.query as { limit: number };
      return sendResult(reply, await bus.request(oauthSubjects.listGrants, { limit, caller: callerOf(request) }));
    },
  );

  app.delete(
    '/oauth/clients/:clientId',
    {
      config: { authority: { kind: 'scope', scope: 'oauth:client:admin', admin: true } },
      schema: {
        ...operation('oauth', 'oauthDeleteClient', 'Delete a registered OAuth client (its live tokens stay until they expire or are revoked)'),
        params: ClientParams,
        response: { 200: answer(oauthSubjects.deleteClient.reply, 'Deleted') },
      },
    },
    async (request, reply) => {
      const { clientId } = request.params as { clientId: string };
      return sendResult(reply, await bus.request(oauthSubjects.deleteClient, { clientId, caller: callerOf(request) }));
    },
  );
}
