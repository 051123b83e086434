import { Type } from 'typebox';
import type { Bus } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { PLANS } from '../../../core/tenancy/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { sendResult } from '../../../edge-http/index.ts';
import { callerOf } from '../../../edge-http/index.ts';
import { ErrorBodySchema, answer, operation } from '../../../edge-http/index.ts';
import { validateLocally, type LocalValidation } from './validate.ts';

const Scope = Type.String({ minLength: 1, maxLength: 200 });

export const TokenRequest = Type.Object(
  {
    sub: Type.String({ minLength: 1, maxLength: 256 }),
    scope: Type.Array(Scope, { minItems: 1, maxItems: 100 }),
    expiresIn: Type.Optional(Type.String({ minLength: 2, maxLength: 16 })),
    aud: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    proof: Type.Optional(
      Type.Object(
        {
          nonce: Type.String({ minLength: 1, maxLength: 256 }),
          signature: Type.String({ minLength: 1, maxLength: 512 }),
        },
        { additionalProperties: false },
      ),
    ),
    conditions: Type.Optional(
      Type.Record(Scope, Type.String({ minLength: 1, maxLength: 1024 }), {
        maxProperties: 20,
        description:
          'CEL conditions bound to MCP gateway scopes (`mcp:<server>:<tool>`, globs allowed): a call the scope grants runs only when its condition holds for the call\'s arguments (docs/MCP.md, "Conditions on a token\'s scope")',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ValidateBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 8192 }),
    requiredScope: Type.Optional(Scope),
  },
  { additionalProperties: false },
);

const RevokeBody = Type.Object(
  {
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
    jti: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AuditQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    // Bounded like every offset (issue 25, finding 8): past it Postgres answered 500; deeper pages by `to`.
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    result: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('deny')])),
    from: Type.Optional(Type.String({ format: 'date-time' })),
    to: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

const [Validated, NotValid] = subjects.tokenValidate.reply.anyOf;
/** A refused token is an answer (spec, Errors: 400 `{valid:false, error}`); a malformed request the usual error body. */
const ValidateRefused = Type.Union([NotValid, ErrorBodySchema], {
  description:
    'The token is not valid (`{valid:false, error}`, e.g. `CAPABILITY_INSUFFICIENT` for an unmet `requiredScope`), or the request is malformed (the error body)',
});
const Plans = Type.Object({ plans: Type.Array(subjects.tenancyUsage.reply.properties.plan) }, { description: 'Every plan, with its limits and price' });

/**
 * Token service routes of the foundation: tokens, plans, and the audit trail. A validation is
 * decided in this process with its edge's own capability check and audit sink (`local`, validate.ts).
 */
export function tokenRoutes(bus: Bus, local: LocalValidation): EdgeRoutes {
  return (app) => {
    app.post(
      '/auth/token',
      {
        config: { authority: { kind: 'scope', scope: 'auth:token:create', admin: true }, meter: 'agents' },
        schema: {
          ...operation('tokens', 'issueToken', 'Issue a capability token'),
          body: TokenRequest,
          response: { 200: answer(subjects.tokenIssue.reply, 'The token, its key id, id and lifetime') },
        },
      },
      async (request, reply) => {
        const result = await bus.request(subjects.tokenIssue, { ...request.body, caller: callerOf(request) });
        return sendResult(reply, result);
      },
    );

    app.post(
      '/auth/token/validate',
      {
        config: { authority: { kind: 'scope', scope: 'auth:token:validate', admin: true }, meter: 'validations' },
        schema: {
          ...operation('tokens', 'validateToken', 'Validate a token, optionally against a required scope'),
          body: ValidateBody,
          response: { 200: answer(Validated, 'The token is valid; `scopeSatisfied` when `requiredScope` was given'), 400: ValidateRefused },
        },
      },
      async (request, reply) => {
        const answer = await validateLocally(local, request, request.body);
        // A failed validation is an answer, not an error: 400 with `{valid:false, error}` (spec, Errors).
        return answer.valid ? answer : reply.code(400).send(answer);
      },
    );

    app.post(
      '/auth/token/revoke',
      {
        config: { authority: { kind: 'scope', scope: 'auth:token:revoke', admin: true } },
        schema: {
          ...operation('tokens', 'revokeToken', 'Revoke a token (by the token or its jti), across every service'),
          body: RevokeBody,
          response: { 200: answer(subjects.tokenRevoke.reply, 'Revoked; `revoked: false` when there was nothing to revoke (unknown or expired)') },
        },
      },
      async (request, reply) => {
        const result = await bus.request(subjects.tokenRevoke, { ...request.body, caller: callerOf(request) });
        return sendResult(reply, result);
      },
    );

    app.get(
      '/plans',
      {
        config: { authority: { kind: 'public' } },
        schema: { ...operation('tenancy', 'listPlans', 'List the plans'), response: { 200: Plans } },
      },
      async () => ({ plans: PLANS.map((plan) => ({ ...plan, features: [...plan.features] })) }),
    );

    app.get(
      '/audit',
      {
        config: { authority: { kind: 'scope', scope: 'audit:read', admin: true } },
        schema: {
          ...operation('audit', 'listAuditEntries', 'List audit entries, newest first'),
          querystring: AuditQuery,
          response: { 200: answer(subjects.auditList.reply, 'A page of entries and the total that match') },
        },
      },
      async (request, reply) => {
        const q = request.query;
        const tenantId = request.principal.tenantId;
        // Entries reach the chain in batches off the answers' path: this edge's own go first, so the
        // page shows the decisions it answered before (actors/audit/sink.ts, `committed`).
        await local.audit.committed?.();
        const result = await bus.request(subjects.auditList, {
          limit: q.limit,
          offset: q.offset,
          ...(q.subject !== undefined ? { subject: q.subject } : {}),
          ...(q.result !== undefined ? { result: q.result } : {}),
          // Stored timestamps are UTC ISO strings; normalise so that text order is time order.
          ...(q.from !== undefined ? { from: new Date(q.from).toISOString() } : {}),
          ...(q.to !== undefined ? { to: new Date(q.to).toISOString() } : {}),
          ...(tenantId !== undefined ? { tenantId } : {}),
        });
        return sendResult(reply, result);
      },
    );

    app.get(
      '/audit/verify',
      {
        config: { authority: { kind: 'scope', scope: 'audit:read', admin: true } },
        schema: {
          ...operation('audit', 'verifyAuditChain', 'Verify the audit chain'),
          response: { 200: answer(subjects.auditVerify.reply, 'The audit chain verification result') },
        },
      },
      async (_request, reply) => {
        await local.audit.committed?.();
        return sendResult(reply, await bus.request(subjects.auditVerify, {}, { timeoutMs: 120_000 }));
      },
    );
  };
}
