import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EdgeApp } from '../../../edge-http/index.ts';
import { Type } from 'typebox';
import type { Bus } from '../../../bus/index.ts';
import { operation } from '../../../edge-http/index.ts';
import { OAUTH_PATHS, oauthError } from '../../../core/oauth/index.ts';
import type { RouteContext } from '../../kit/index.ts';
import { oauthSubjects } from '../subjects.ts';
import { FormBody, OAuthErrorBody, formOf, sendAnswer, sendOAuthError, FORM } from './form.ts';
import { issuerOf } from './issuer.ts';

const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Union([Type.Literal('Bearer'), Type.Literal('DPoP')]),
    expires_in: Type.Integer(),
    scope: Type.String(),
    refresh_token: Type.Optional(Type.String()),
    issued_token_type: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: 'The capability token (RFC 6749 §5.1)' },
);

const Introspected = Type.Object(
  {
    active: Type.Boolean(),
  },
  { additionalProperties: true, description: 'RFC 7662 §2.2: `active`, and for a live token scope, sub, exp, iat, jti, client_id, aud, cnf, token_type' },
);

const errors = {
  400: OAuthErrorBody,
  401: OAuthErrorBody,
  503: OAuthErrorBody,
};

/** The three client-authenticated endpoints: each forwards the form and headers to the OAuth actor. */
export function endpointRoutes(app: EdgeApp, bus: Bus, ctx: RouteContext): void {
  const forward = (subject: typeof oauthSubjects.token, path: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    const parsed = formOf(request);
    if (!parsed.ok) return sendOAuthError(reply, parsed.error);
    const issuer = issuerOf(ctx, request);
    const dpop = request.headers.dpop;
    if (Array.isArray(dpop)) return sendOAuthError(reply, oauthError('invalid_dpop_proof', 'one DPoP header at most'));
    const result = await bus.request(subject, {
      form: parsed.form,
      issuer,
      url: `${issuer}${path}`,
      ...(request.headers.authorization !== undefined ? { authorization: request.headers.authorization } : {}),
      ...(dpop !== undefined ? { dpop } : {}),
    });
    if (!result.ok) {
      const unavailable = result.error.code === 'SERVICE_UNAVAILABLE' || result.error.code === 'REVOCATION_UNAVAILABLE';
      return reply
        .code(unavailable ? 503 : 400)
        .header('cache-control', 'no-store')
        .send(oauthError(unavailable ? 'temporarily_unavailable' : 'invalid_request', result.error.message));
    }
    return sendAnswer(reply, result.value);
  };
  const consumes = { consumes: [FORM] };
  app.post(
    OAUTH_PATHS.token,
    {
      config: { authority: { kind: 'public' } },
      attachValidation: true,
      schema: {
        ...operation('oauth', 'oauthToken', 'OAuth 2.1 token endpoint (RFC 6749 §3.2): client_credentials, refresh_token and the grants of grants/'),
        ...consumes,
        body: FormBody,
        response: { 200: TokenResponse, ...errors },
      },
    },
    forward(oauthSubjects.token, OAUTH_PATHS.token),
  );
  app.post(
    OAUTH_PATHS.introspection,
    {
      config: { authority: { kind: 'public' } },
      attachValidation: true,
      schema: {
        ...operation('oauth', 'oauthIntrospect', 'Token introspection (RFC 7662), for a confidential client: is this token live'),
        ...consumes,
        body: FormBody,
        response: { 200: Introspected, ...errors },
      },
    },
    forward(oauthSubjects.introspect, OAUTH_PATHS.introspection),
  );
  app.post(
    OAUTH_PATHS.revocation,
    {
      config: { authority: { kind: 'public' } },
      attachValidation: true,
      schema: {
        ...operation('oauth', 'oauthRevoke', 'Token revocation (RFC 7009): revoke a token issued to the calling client, on every edge'),
        ...consumes,
        body: FormBody,
        response: { 200: Type.Object({}, { description: 'Revoked, or nothing to revoke (RFC 7009 §2.2)' }), ...errors },
      },
    },
    forward(oauthSubjects.revoke, OAUTH_PATHS.revocation),
  );
  app.post(
    OAUTH_PATHS.deviceAuthorization,
    {
      config: { authority: { kind: 'public' } },
      attachValidation: true,
      schema: {
        ...operation(
          'oauth',
          'oauthDeviceAuthorization',
          'Device authorization (RFC 8628 §3.1): a device code to poll with, and the user code a person enters at verification_uri',
        ),
        ...consumes,
        body: FormBody,
        response: {
          200: Type.Object(
            {
              device_code: Type.String(),
              user_code: Type.String(),
              verification_uri: Type.String(),
              verification_uri_complete: Type.String(),
              expires_in: Type.Integer(),
              interval: Type.Integer(),
            },
            { description: 'RFC 8628 §3.2' },
          ),
          ...errors,
        },
      },
    },
    forward(oauthSubjects.deviceAuthorization, OAUTH_PATHS.deviceAuthorization),
  );
}
