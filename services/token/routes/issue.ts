import { Type, type Static } from 'typebox';
import type { Bus } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { isValidScope, MAX_LIFETIME_SECONDS, parseDurationSeconds } from '../../../core/capability/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { sendError } from '../../../edge-http/index.ts';
import { callerOf } from '../../../edge-http/index.ts';
import { operation } from '../../../edge-http/index.ts';

/**
 * `POST /issue`: the dashboard-shaped issue request (actor, action, resource, expires) mapped onto
 * the token request of `POST /auth/token` and sent as the same bus request (subjects.tokenIssue), so
 * attenuation, proof for enrolled identities and the audit entry are exactly those of
 * `POST /auth/token` (docs/TOKENS-ISSUE.md).
 *
 * Authority: `auth:token:create` with a bearer token only. The spec's table gives this route no
 * "(or admin key)", unlike `POST /auth/token`; so every /issue call is a token handing on authority
 * it holds itself. Metering: the spec's "counts against" column says none for /issue (an open
 * question, see docs/TOKENS-ISSUE.md), so no meter is declared here.
 */

const IssueBody = Type.Object(
  {
    actor: Type.String({ minLength: 1, maxLength: 256 }),
    action: Type.String({ minLength: 1, maxLength: 64 }),
    resource: Type.String({ minLength: 1, maxLength: 190 }),
    expires: Type.String({ minLength: 2, maxLength: 64 }),
    audience: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    proof: Type.Optional(
      Type.Object(
        {
          nonce: Type.String({ minLength: 1, maxLength: 256 }),
          signature: Type.String({ minLength: 1, maxLength: 512 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type IssueBody = Static<typeof IssueBody>;

/** What an /issue request means as a token request. */
export interface IssueMapping {
  sub: string;
  scope: [string];
  expiresIn: string;
  aud?: string;
  proof?: { nonce: string; signature: string };
}

const SEGMENT = /^(?:\*|[A-Za-z0-9_.-]+)$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** Map the body onto a token request, or name the field that is wrong. `nowMs` is the edge's clock. */
export function mapIssueRequest(body: IssueBody, nowMs: number): { ok: true; value: IssueMapping } | { ok: false; message: string } {
  const bad = (message: string) => ({ ok: false as const, message });
  if (!SEGMENT.test(body.action)) return bad('body/action must be one scope segment: letters, digits, _ . - (or *), no colon');
  if (!body.resource.split(':').every((s) => SEGMENT.test(s))) {
    return bad('body/resource must be one or more colon-separated segments of letters, digits, _ . - (or *)');
  }
  const scope = `${body.resource}:${body.action}`;
  if (!isValidScope(scope)) return bad('body/resource and body/action make a scope longer than 200 characters');
  const expiresIn = expiresInOf(body.expires, nowMs);
  if (typeof expiresIn !== 'string') return bad(expiresIn.message);
  return {
    ok: true,
    value: {
      sub: body.actor,
      scope: [scope],
      expiresIn,
      ...(body.audience !== undefined ? { aud: body.audience } : {}),
      ...(body.proof !== undefined ? { proof: body.proof } : {}),
    },
  };
}

/**
 * `expires` is a duration as `expiresIn` takes it (`15m`), or an RFC 3339 date-time with a zone
 * (`2030-01-01T09:00:00Z`) at least a second and at most 365 days ahead. A date becomes the whole
 * seconds left, rounded down, so the token never outlives the date asked for.
 */
function expiresInOf(expires: string, nowMs: number): string | { message: string } {
  if (parseDurationSeconds(expires) !== undefined) return expires;
  const m = DATE_TIME.exec(expires);
  if (!m) return { message: 'body/expires must be a duration such as 30s, 15m, 8h or 7d (at most 365d), or an ISO 8601 date-time with a time zone' };
  const [year, month, day, hour, minute, second, offH, offM] = m.slice(1).map((x) => Number(x ?? '0')) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth || hour! > 23 || minute! > 59 || second! > 59 || offH! > 23 || offM! > 59) {
    return { message: 'body/expires is not a valid date-time' };
  }
  const at = Date.parse(expires);
  if (!Number.isFinite(at)) return { message: 'body/expires is not a valid date-time' };
  const seconds = Math.floor((at - nowMs) / 1000);
  if (seconds < 1) return { message: 'body/expires is in the past; give a date-time at least 1s ahead' };
  if (seconds > MAX_LIFETIME_SECONDS) return { message: 'body/expires is more than 365d ahead, the longest lifetime a token gets' };
  return durationText(seconds);
}

/** The largest unit that states the seconds exactly: 3600 → `1h`; beyond the format's 7 digits, minutes (rounded down). */
function durationText(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return seconds <= 9_999_999 ? `${seconds}s` : `${Math.floor(seconds / 60)}m`;
}

/** The token response, and the token request the body was mapped onto. */
const IssueReply = Type.Object(
  {
    ...subjects.tokenIssue.reply.properties,
    sub: Type.String(),
    scope: Type.Array(Type.String()),
    expiresIn: Type.String(),
    aud: Type.Optional(Type.String()),
  },
  { description: 'The token, and the token request it was issued as' },
);

export function issueRoutes(bus: Bus): EdgeRoutes {
  return (app) => {
    app.post(
      '/issue',
      {
        config: { authority: { kind: 'scope', scope: 'auth:token:create' } },
        schema: {
          ...operation('tokens', 'issueTokenForAction', "Issue a token for one action on one resource (the dashboard's form)"),
          body: IssueBody,
          response: { 200: IssueReply },
        },
      },
      async (request, reply) => {
        const mapped = mapIssueRequest(request.body, Date.now());
        if (!mapped.ok) return sendError(reply, { code: 'INVALID_REQUEST', message: mapped.message });
        const result = await bus.request(subjects.tokenIssue, { ...mapped.value, caller: callerOf(request) });
        if (!result.ok) return sendError(reply, result.error);
        const { sub, scope, expiresIn, aud } = mapped.value;
        return reply.send({ ...result.value, sub, scope, expiresIn, ...(aud !== undefined ? { aud } : {}) });
      },
    );
  };
}
