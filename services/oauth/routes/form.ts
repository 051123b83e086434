import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { oauthError, type OAuthError } from '../../../core/oauth/index.ts';

/** The most a form body of these endpoints may weigh: an assertion and a DPoP-bound request fit many times. */
const FORM_BODY_LIMIT = 64 * 1024;
export const FORM = 'application/x-www-form-urlencoded';

/** A form body as parsed: a parameter given twice becomes a list (and is refused, RFC 6749 §3.2). */
export const FormBody = Type.Record(
  Type.String({ maxLength: 256 }),
  Type.Union([Type.String({ maxLength: 16_384 }), Type.Array(Type.String({ maxLength: 16_384 }))]),
  {
    description: 'application/x-www-form-urlencoded parameters (RFC 6749 §3.2)',
  },
);

/** RFC 6749 §5.2 error body. */
export const OAuthErrorBody = Type.Object(
  {
    error: Type.String({ description: 'The RFC 6749 / 7591 / 9449 error code' }),
    error_description: Type.Optional(Type.String()),
  },
  { description: 'An OAuth error (RFC 6749 §5.2)' },
);

/**
 * The form parser, added in the encapsulated context of the OAuth routes only (every other route of
 * the listener keeps refusing a form body with 415).
 */
export function addFormParser(app: Pick<FastifyInstance, 'addContentTypeParser'>): void {
  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
    const params: Record<string, string | string[]> = Object.create(null);
    for (const [name, value] of new URLSearchParams(body as string)) {
      const had = params[name];
      params[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
    }
    done(null, { ...params });
  });
}

/** The form, each parameter once, or the RFC error that says what is wrong with the request. */
export function formOf(request: FastifyRequest): { ok: true; form: Record<string, string> } | { ok: false; error: OAuthError } {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== FORM) return { ok: false, error: oauthError('invalid_request', `the body must be ${FORM}`) };
  if (request.validationError !== undefined) return { ok: false, error: oauthError('invalid_request', 'a parameter is too long') };
  const form: Record<string, string> = {};
  for (const [name, value] of Object.entries((request.body ?? {}) as Record<string, string | string[]>)) {
    if (Array.isArray(value)) return { ok: false, error: oauthError('invalid_request', `parameter ${name.slice(0, 64)} is given more than once`) };
    // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
    if (value !== '') form[name] = value;
  }
  return { ok: true, form };
}

export function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  return reply.code(400).header('cache-control', 'no-store').send(error);
}

export function sendAnswer(reply: FastifyReply, answer: { status: number; body: Record<string, unknown>; headers?: Record<string, string> }): FastifyReply {
  return reply
    .code(answer.status)
    .headers(answer.headers ?? {})
    .send(answer.body);
}
