import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Bus } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { PlanIdSchema, TenantStatusSchema } from '../../../bus/index.ts';
import { TENANT_ID_PATTERN } from '../../../core/tenancy/index.ts';
import { PERIOD_PATTERN, periodOf } from '../../../core/tenancy/index.ts';
import type { Authority } from '../../../edge-http/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { sendError, sendResult } from '../../../edge-http/index.ts';
import { answer, errorsOf, operation } from '../../../edge-http/index.ts';

const MANAGE: Authority = { kind: 'scope', scope: 'tenant:manage', admin: true };

const Period = Type.String({ pattern: PERIOD_PATTERN, description: 'YYYY-MM (UTC calendar month)' });
const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    plan: Type.Optional(PlanIdSchema),
    externalRef: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' })),
  },
  { additionalProperties: false },
);
const ListQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    // Bounded like every offset (issue 25, finding 8): past 2^63 Postgres answered 500.
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
    period: Type.Optional(Period),
  },
  { additionalProperties: false },
);
const PeriodQuery = Type.Object({ period: Type.Optional(Period) }, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String({ maxLength: 256 }) });
const PlanBody = Type.Object({ plan: PlanIdSchema }, { additionalProperties: false });
const StatusBody = Type.Object(
  {
    status: TenantStatusSchema,
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
const EmptyBody = Type.Object({}, { additionalProperties: false });

const UsageReport = subjects.tenancyUsage.reply;
const TenantList = Type.Object(
  {
    ...subjects.tenancyList.reply.properties,
    limit: Type.Integer(),
    offset: Type.Integer(),
    period: Type.String(),
  },
  { description: 'A page of tenants, each with its usage report for the period' },
);

/** Answers carrying an API key must not be kept by any cache on the way (RFC 9111 §5.2.2.5). */
const NO_STORE = 'no-store';

/**
 * Tenant management is an operator's: a caller acting for a tenant (a token issued under one, or a
 * tenant key beside the credential) could otherwise read and change every other tenant.
 */
function refuseTenantCaller(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const tenantId = request.principal.tenantId;
  if (tenantId === undefined) return undefined;
  return sendError(reply, { code: 'CAPABILITY_INSUFFICIENT', message: `tenant management is not open to a credential acting for tenant ${tenantId}` });
}

function noSuchTenant(reply: FastifyReply): FastifyReply {
  return sendError(reply, { code: 'NOT_FOUND', message: 'no tenant with this id' });
}

const by = (request: FastifyRequest): string => request.principal.sub ?? 'anonymous';
const periodOrNow = (period: string | undefined): string => period ?? periodOf(Date.now());

/** `/admin/tenants*` (spec, token service; bodies in docs/TENANCY.md) and `GET /usage`. */
export function tenantRoutes(bus: Bus): EdgeRoutes {
  return (app) => {
    app.post(
      '/admin/tenants',
      {
        config: { authority: MANAGE },
        schema: {
          ...operation('tenancy', 'createTenant', 'Create a tenant; its API key is in this answer only'),
          body: CreateBody,
          response: { 201: answer(subjects.tenancyCreate.reply, 'The tenant with its `apiKey`, shown this once'), ...errorsOf(409) },
        },
      },
      async (request, reply) => {
        if (refuseTenantCaller(request, reply)) return reply;
        const result = await bus.request(subjects.tenancyCreate, { ...request.body, by: by(request) });
        return sendResult(reply.header('cache-control', NO_STORE), result, 201);
      },
    );

    app.get(
      '/admin/tenants',
      {
        config: { authority: MANAGE },
        schema: {
          ...operation('tenancy', 'listTenants', 'List tenants with their usage reports'),
          querystring: ListQuery,
          response: { 200: TenantList },
        },
      },
      async (request, reply) => {
        if (refuseTenantCaller(request, reply)) return reply;
        const { limit, offset } = request.query;
        const period = periodOrNow(request.query.period);
        const result = await bus.request(subjects.tenancyList, { limit, offset, period });
        if (!result.ok) return sendError(reply, result.error);
        return reply.send({ ...result.value, limit, offset, period });
      },
    );

    app.get(
      '/admin/tenants/:id',
      {
        config: { authority: MANAGE },
        schema: {
          ...operation('tenancy', 'getTenant', 'Read a tenant and its usage report'),
          params: IdParams,
          querystring: PeriodQuery,
          response: { 200: answer(UsageReport, "The tenant's usage report for the period"), ...errorsOf(404) },
        },
      },
      async (request, reply) => {
        if (refuseTenantCaller(request, reply)) return reply;
        if (!TENANT_ID_PATTERN.test(request.params.id)) return noSuchTenant(reply);
        return sendResult(reply, await bus.request(subjects.tenancyGet, { id: request.params.id, period: periodOrNow(request.query.period) }));
      },
    );

    app.post(
      '/admin/tenants/:id/plan',
      {
        config: { authority: MANAGE },
        schema: {
          ...operation('tenancy', 'setTenantPlan', 'Move a tenant to another plan'),
          params: IdParams,
          body: PlanBody,
          response: { 200: answer(subjects.tenancySetPlan.reply, 'The tenant on its new plan'), ...errorsOf(404) },
        },
      },
      async (request, reply) => {
        if (refuseTenantCaller(request, reply)) return reply;
        if (!TENANT_ID_PATTERN.test(request.params.id)) return noSuchTenant(reply);
        return sendResult(reply, await bus.request(subjects.tenancySetPlan, { id: request.params.id, plan: request.body.plan, by: by(request) }));
      },
    );

    app.post(
      '/admin/tenants/:id/rotate-key',
      {
        config: { authority: MANAGE },
        schema: {
          ...operation('tenancy', 'rotateTenantKey', "Replace a tenant's API key; the old one stops working"),
          params: IdParams,
          body: EmptyBody,
          response: { 200: answer(subjects.tenancyRotateKey.reply, 'The tenant with its new `apiKey`, shown this once'), ...errorsOf(404) },
        },
        // No body at all is the usual call; it means the same as `{}`.
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) (request as { body: unknown }).body = {};
        },
      },
      async (request, reply) => {
        if (refuseTenantCaller(request, reply)) return reply;
        if (!TENANT_ID_PATTERN.test(request.params.id)) return noSuchTenant(reply);
        const result = await bus.request(subjects.tenancyRotateKey, { id: request.params.id, by: by(request) });
        return sendResult(reply.header('cache-control', NO_STORE), result);
      },
    );

    app.post(
      '/admin/tenants/:id/status',
      {
        config: { authority: MANAGE },
        schema: {
          ...operation('tenancy', 'setTenantStatus', 'Suspend or reactivate a tenant'),
          params: IdParams,
          body: StatusBody,
          response: { 200: answer(subjects.tenancySetStatus.reply, 'The tenant with its new status'), ...errorsOf(404) },
        },
      },
      async (request, reply) => {
        if (refuseTenantCaller(request, reply)) return reply;
        if (!TENANT_ID_PATTERN.test(request.params.id)) return noSuchTenant(reply);
        const { status, reason } = request.body;
        if (status === 'suspended' && reason === undefined) {
          return sendError(reply, { code: 'INVALID_REQUEST', message: 'body/reason is required when status is suspended' });
        }
        return sendResult(
          reply,
          await bus.request(subjects.tenancySetStatus, {
            id: request.params.id,
            status,
            ...(reason !== undefined ? { reason } : {}),
            by: by(request),
          }),
        );
      },
    );

    // The tenant key alone decides whose usage this is: no query can name another tenant.
    app.get(
      '/usage',
      {
        config: { authority: { kind: 'tenant' } },
        schema: {
          ...operation('tenancy', 'getUsage', "The calling tenant's usage report"),
          querystring: PeriodQuery,
          response: { 200: answer(UsageReport, 'Usage, quotas and the limits being approached, for the period') },
        },
      },
      async (request, reply) => {
        const tenantId = request.principal.tenantId as string;
        return sendResult(reply, await bus.request(subjects.tenancyUsage, { tenantId, period: periodOrNow(request.query.period) }));
      },
    );
  };
}
