import { Type, type Static } from 'typebox';

/** Tenancy (spec, "Plan", "Tenant", "Usage report"; bodies we chose are in docs/TENANCY.md). */

export const TenantIdSchema = Type.String({ pattern: '^ten_[0-9a-f]{24}$' });
export const PlanIdSchema = Type.Union([Type.Literal('free'), Type.Literal('team'), Type.Literal('business'), Type.Literal('enterprise')]);
export const TenantStatusSchema = Type.Union([Type.Literal('active'), Type.Literal('suspended')]);
/** The metered limits of a plan (`auditRetentionDays` is a limit, not a counter). */
export const MetricSchema = Type.Union([Type.Literal('agents'), Type.Literal('validations'), Type.Literal('schedules'), Type.Literal('benchmarkRuns')]);
export type Metric = Static<typeof MetricSchema>;
export const PeriodSchema = Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$' });
const Iso = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const TenantSchema = Type.Object({
  id: TenantIdSchema,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  plan: PlanIdSchema,
  status: TenantStatusSchema,
  /** Why it has its status (required when suspending); null when none was given. */
  statusReason: Nullable(Type.String({ maxLength: 500 })),
  externalRef: Nullable(Type.String({ maxLength: 200 })),
  email: Nullable(Type.String({ maxLength: 254 })),
  createdAt: Iso,
});
export type Tenant = Static<typeof TenantSchema>;

/** The tenant plus its API key: only on creation and rotation, once. */
export const TenantWithKeySchema = Type.Intersect([TenantSchema, Type.Object({ apiKey: Type.String() })]);

const Limits = Type.Object({
  agents: Type.Integer(),
  validations: Type.Integer(),
  auditRetentionDays: Type.Integer(),
  schedules: Type.Integer(),
  benchmarkRuns: Type.Integer(),
});
export const PlanSchema = Type.Object({
  id: PlanIdSchema,
  label: Type.String(),
  priceCents: Type.Integer(),
  limits: Limits,
  features: Type.Array(Type.String()),
});

/** One metered limit for the period; `-1` limit and remaining mean unlimited. */
export const QuotaSchema = Type.Object({
  metric: MetricSchema,
  limit: Type.Integer(),
  used: Type.Integer({ minimum: 0 }),
  remaining: Type.Integer(),
});
/** A quota at 80% or more of its limit, or with at most one unit left (spec, "Limits"). */
export const ApproachingSchema = Type.Object({
  metric: MetricSchema,
  limit: Type.Integer(),
  used: Type.Integer({ minimum: 0 }),
  remaining: Type.Integer(),
  percentUsed: Type.Integer({ minimum: 0 }),
});
export const UsageSchema = Type.Object({
  agents: Type.Integer({ minimum: 0 }),
  validations: Type.Integer({ minimum: 0 }),
  schedules: Type.Integer({ minimum: 0 }),
  benchmarkRuns: Type.Integer({ minimum: 0 }),
});
export const UsageReportSchema = Type.Object({
  tenant: TenantSchema,
  period: PeriodSchema,
  plan: PlanSchema,
  usage: UsageSchema,
  quotas: Type.Array(QuotaSchema),
  approachingLimit: Type.Array(ApproachingSchema),
});
export type UsageReport = Static<typeof UsageReportSchema>;

/** Who asked for a change, for the audit entry (a token subject, `admin`, `signup`, `billing-webhook`). */
const By = Type.String({ minLength: 1, maxLength: 512 });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const ExternalRef = Type.String({ minLength: 1, maxLength: 200 });
const Email = Type.String({ minLength: 3, maxLength: 254 });

export const CreateRequest = Type.Object({
  name: Name,
  plan: Type.Optional(PlanIdSchema),
  externalRef: Type.Optional(ExternalRef),
  email: Type.Optional(Email),
  by: By,
});
export const CreateReply = TenantWithKeySchema;

export const ListRequest = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  period: PeriodSchema,
});
export const ListReply = Type.Object({ tenants: Type.Array(UsageReportSchema), total: Type.Integer({ minimum: 0 }) });

export const GetRequest = Type.Object({ id: TenantIdSchema, period: PeriodSchema });
export const GetReply = UsageReportSchema;

export const SetPlanRequest = Type.Object({ id: TenantIdSchema, plan: PlanIdSchema, by: By });
export const RotateKeyRequest = Type.Object({ id: TenantIdSchema, by: By });
export const SetStatusRequest = Type.Object({
  id: TenantIdSchema,
  status: TenantStatusSchema,
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  by: By,
});

/** The edge sends the key's SHA-256, never the key. */
export const ResolveRequest = Type.Object({ keyHash: Type.String({ pattern: '^[0-9a-f]{64}$' }) });
export const ResolveReply = Type.Object({ tenantId: TenantIdSchema });

/**
 * The one metering call (docs/PLANS.md, "Metering"): `amount` units of `metric` for the tenant in
 * `period` (default: the current month). A negative amount returns units reserved earlier (an
 * operation that failed after its unit was taken), never below zero.
 */
export const MeterRequest = Type.Object({
  tenantId: TenantIdSchema,
  metric: MetricSchema,
  amount: Type.Integer({ minimum: -1000, maximum: 1000, not: { const: 0 } }),
  period: Type.Optional(PeriodSchema),
});
/** `accepted: false` is the limit reached (answer 402 `QUOTA_EXCEEDED`); nothing was counted. */
export const MeterReply = Type.Object({
  accepted: Type.Boolean(),
  metric: MetricSchema,
  period: PeriodSchema,
  limit: Type.Integer(),
  used: Type.Integer({ minimum: 0 }),
  remaining: Type.Integer(),
  /** When the window closes: 00:00 UTC on the 1st of the next month. */
  resetAt: Iso,
});
export type MeterReplyData = Static<typeof MeterReply>;

export const UsageRequest = Type.Object({ tenantId: TenantIdSchema, period: PeriodSchema });

/**
 * A billing provider's event (docs/BILLING-WEBHOOK.md). Unknown fields are allowed: providers add
 * fields over time, and the signature already vouches for the body.
 */
export const BillingEventSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 255 }),
  type: Type.String({ minLength: 1, maxLength: 100 }),
  data: Type.Optional(
    Type.Object({
      externalRef: Type.Optional(ExternalRef),
      plan: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    }),
  ),
});
export type BillingEvent = Static<typeof BillingEventSchema>;
export const BillingEventRequest = Type.Object({ event: BillingEventSchema });
export const BillingEventReply = Type.Object({
  duplicate: Type.Boolean(),
  /** What was done: `suspended`, `reactivated`, `plan changed`, or `ignored: <why>`. */
  outcome: Type.String(),
  tenantId: Type.Optional(TenantIdSchema),
});

/** Public signup: a free tenant, at most a few per client address and hour. */
export const SignupRequest = Type.Object({
  name: Name,
  email: Type.Optional(Email),
  clientIp: Type.String({ minLength: 1, maxLength: 100 }),
});
export const SignupReply = Type.Union([
  Type.Object({ created: Type.Literal(true), tenant: TenantWithKeySchema }),
  Type.Object({ created: Type.Literal(false), retryAfterSeconds: Type.Integer({ minimum: 1 }) }),
]);
