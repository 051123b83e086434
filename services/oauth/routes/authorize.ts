import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { EdgeApp } from '../../../edge-http/index.ts';
import { ErrorBodySchema, operation, type CapabilityVerifier } from '../../../edge-http/index.ts';
import type { Bus, Caller } from '../../../bus/index.ts';
import { OAUTH_PATHS, oauthError } from '../../../core/oauth/index.ts';
import type { RouteContext } from '../../kit/index.ts';
import { CONSENT_PATH, DEVICE_PAGE_PATH } from '../consent.ts';
import { oauthSubjects } from '../subjects.ts';
import { FORM, FormBody, OAuthErrorBody, sendOAuthError } from './form.ts';
import { issuerOf } from './issuer.ts';

/** A person types at most this many user codes or consent submissions a minute from one address (RFC 8628 §5.1). */
const PERSON_RATE_LIMIT = Object.freeze({ max: 30, timeWindow: 60_000 });

const Param = (description: string, maxLength = 2000) => Type.Optional(Type.String({ maxLength, description }));
const AuthorizeQuery = Type.Object(
  {
    response_type: Param('code', 32),
    client_id: Param('The registered client', 256),
    redirect_uri: Param("One of the client's registered redirect URIs (a loopback one on any port)"),
    scope: Param('Space-separated scopes', 4000),
    state: Param('Required; returned unchanged', 1024),
    code_challenge: Param('PKCE: base64url SHA-256 of the verifier', 128),
    code_challenge_method: Param('S256 (plain is refused)', 16),
    resource: Param("RFC 8707 resource: the token's audience", 256),
  },
  { additionalProperties: true },
);
const DeviceQuery = Type.Object({ user_code: Param('The code the device shows', 64) }, { additionalProperties: true });
const Html = Type.String({ description: 'An HTML page for a person (text/html)' });
/** A refusal: the page saying why, or (for a request no browser sends: not a form, unparsable) an error body. */
const Refusal = Type.Union([Html, OAuthErrorBody, ErrorBodySchema]);

const single = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** Fetch Metadata: the browser loads this into a frame, embed or object (clickjacking). */
const framed = (headers: Record<string, string | string[] | undefined>) =>
  ['iframe', 'frame', 'embed', 'object'].includes(String(headers['sec-fetch-dest'] ?? ''));

/**
 * Who pressed Approve, from what they typed: the admin key (field "Admin key") or a suite token
 * (verified as every edge verifies a bearer). Neither: undefined, with why when something was typed.
 */
async function signedIn(verifier: CapabilityVerifier, form: Record<string, unknown>): Promise<{ approver?: Caller; problem?: string }> {
  const adminKey = single(form.admin_key);
  if (adminKey !== undefined && adminKey !== '')
    return verifier.isAdminKey(adminKey) ? { approver: { kind: 'admin', sub: 'admin', scope: ['*'] } } : { problem: "That admin key is not this suite's." };
  const token = single(form.consent_token)?.trim();
  if (token === undefined || token === '') return {};
  if (!verifier.revocationTrusted()) return { problem: 'The suite cannot check tokens right now; try again shortly.' };
  const verified = await verifier.verifyBearer(token);
  if (!verified.ok) return { problem: 'That token is not valid.' };
  const p = verified.principal;
  return {
    approver: {
      kind: 'token',
      sub: p.sub ?? 'anonymous',
      scope: [...p.scope],
      ...(p.jti !== undefined ? { jti: p.jti } : {}),
      ...(p.tenantId !== undefined ? { tenantId: p.tenantId } : {}),
    },
  };
}

function sendPage(reply: FastifyReply, page: { status: number; headers: Record<string, string>; html?: string; body?: Record<string, unknown> }): FastifyReply {
  reply.code(page.status).headers(page.headers);
  if (page.html !== undefined)
    return reply
      .type('text/html; charset=utf-8')
      .serializer((s: unknown) => s as string)
      .send(page.html);
  return reply.send(page.body ?? {});
}

/**
 * The person-facing routes (authorization code and device grants): the authorization endpoint, the
 * device's user-code page, and the consent form both post to. Pages are rendered by the OAuth actor
 * (any replica: the pending request is in Postgres); the edge only signs the person in.
 */
export function authorizeRoutes(app: EdgeApp, bus: Bus, ctx: RouteContext): void {
  app.get(
    OAUTH_PATHS.authorization,
    {
      config: { authority: { kind: 'public' } },
      schema: {
        ...operation(
          'oauth',
          'oauthAuthorize',
          'The authorization endpoint (RFC 6749 §4.1, PKCE S256 and state required): the consent page, or a redirect back with an error',
        ),
        querystring: AuthorizeQuery,
        produces: ['text/html', 'application/json'],
        response: {
          200: Html,
          303: Type.Null({ description: "Back to the client's redirect URI with error and state" }),
          400: OAuthErrorBody,
          403: Html,
          503: OAuthErrorBody,
        },
      },
    },
    async (request, reply) => {
      const query: Record<string, string> = {};
      for (const [k, v] of Object.entries(request.query as Record<string, unknown>))
        if (typeof v === 'string' && v !== '' && k.length <= 64) query[k] = v.slice(0, 4000);
      const result = await bus.request(oauthSubjects.authorize, {
        query,
        issuer: issuerOf(ctx, request),
        ...(framed(request.headers) ? { framed: true } : {}),
      });
      if (!result.ok)
        return reply.code(503).header('cache-control', 'no-store').send({ error: 'temporarily_unavailable', error_description: result.error.message });
      return sendPage(reply, result.value);
    },
  );

  app.get(
    DEVICE_PAGE_PATH,
    {
      config: { authority: { kind: 'public' }, rateLimit: PERSON_RATE_LIMIT },
      schema: {
        ...operation('oauth', 'oauthDevicePage', "The device grant's page (RFC 8628 §3.3): a person enters the user code, then sees the consent page"),
        querystring: DeviceQuery,
        produces: ['text/html'],
        response: { 200: Html, 400: Refusal, 403: Html, 503: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      const userCode = single((request.query as Record<string, unknown>).user_code);
      const result = await bus.request(oauthSubjects.devicePage, {
        issuer: issuerOf(ctx, request),
        ...(framed(request.headers) ? { framed: true } : {}),
        ...(userCode !== undefined && userCode !== '' ? { userCode: userCode.slice(0, 64) } : {}),
      });
      if (!result.ok)
        return reply.code(503).header('cache-control', 'no-store').send({ error: 'temporarily_unavailable', error_description: result.error.message });
      return sendPage(reply, result.value);
    },
  );

  app.post(
    CONSENT_PATH,
    {
      config: { authority: { kind: 'public' }, rateLimit: PERSON_RATE_LIMIT },
      attachValidation: true,
      schema: {
        ...operation(
          'oauth',
          'oauthConsent',
          "The consent form's submission: Approve (admin key or an oauth:consent token) or Deny, for a code or device request",
        ),
        consumes: [FORM],
        body: FormBody,
        produces: ['text/html'],
        response: {
          200: Html,
          303: Type.Null({ description: 'Back to the client with code and state, or error=access_denied' }),
          400: Refusal,
          401: Html,
          403: Html,
          503: OAuthErrorBody,
        },
      },
    },
    async (request, reply) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== FORM || request.validationError !== undefined)
        return sendOAuthError(reply, oauthError('invalid_request', `the consent form is posted as ${FORM}, each field at most 16 KB`));
      const form = (request.body ?? {}) as Record<string, string | string[]>;
      const scopes = form.scope === undefined ? [] : Array.isArray(form.scope) ? form.scope : [form.scope];
      const who = await signedIn(ctx.verifier, form);
      const lifetime = single(form.lifetime);
      const result = await bus.request(oauthSubjects.consent, {
        requestId: (single(form.request_id) ?? '').slice(0, 256),
        csrf: (single(form.csrf) ?? '').slice(0, 256),
        decision: (single(form.decision) ?? '').slice(0, 16),
        scope: scopes.slice(0, 100).map((s) => s.slice(0, 256)),
        issuer: issuerOf(ctx, request),
        ...(lifetime !== undefined ? { lifetime: lifetime.slice(0, 16) } : {}),
        ...(who.approver !== undefined ? { approver: who.approver } : {}),
        ...(who.problem !== undefined ? { signInProblem: who.problem } : {}),
      });
      if (!result.ok)
        return reply.code(503).header('cache-control', 'no-store').send({ error: 'temporarily_unavailable', error_description: result.error.message });
      return sendPage(reply, result.value);
    },
  );
}
