import { Type, type Static } from 'typebox';

const Iso = Type.String({ format: 'date-time' });

export const AuditInputSchema = Type.Object({
  /** Assigned by the recorder, so that a retried append is recognised and not written twice. */
  id: Type.String({ pattern: '^aud_[A-Za-z0-9_-]{8,64}$' }),
  timestamp: Iso,
  subject: Type.String({ minLength: 1, maxLength: 512 }),
  action: Type.String({ minLength: 1, maxLength: 256 }),
  resource: Type.String({ minLength: 1, maxLength: 1024 }),
  result: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  reason: Type.String({ maxLength: 1024 }),
  tenantId: Type.Union([Type.String(), Type.Null()]),
});
export type AuditInput = Static<typeof AuditInputSchema>;

export const AuditAppendRequest = Type.Object({
  entries: Type.Array(AuditInputSchema, { minItems: 1, maxItems: 10_000 }),
  /** True when some entries were sent before without an answer: only then can they be in the chain already. */
  retry: Type.Optional(Type.Boolean()),
});
export const AuditAppendReply = Type.Object({
  records: Type.Array(Type.Object({ id: Type.String(), seq: Type.Integer(), hash: Type.String() })),
});

/**
 * Internal (not a public event): an audit chain writer has just taken the lease and serves
 * `suite.audit.append`; recorders send again the batch they have in flight (bus/carry.ts).
 */
export const WriterLeadsEvent = Type.Object({ holder: Type.String({ maxLength: 512 }) });

export const AuditEntrySchema = Type.Object({
  id: Type.String(),
  seq: Type.Integer(),
  timestamp: Type.String(),
  subject: Type.String(),
  action: Type.String(),
  resource: Type.String(),
  result: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  reason: Type.String(),
  tenantId: Type.Optional(Type.String()),
  prevHash: Type.String(),
  hash: Type.String(),
});

export const AuditListRequest = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  subject: Type.Optional(Type.String()),
  result: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('deny')])),
  from: Type.Optional(Iso),
  to: Type.Optional(Iso),
  tenantId: Type.Optional(Type.String()),
});
export const AuditListReply = Type.Object({ entries: Type.Array(AuditEntrySchema), total: Type.Integer() });

export const AuditVerifyRequest = Type.Object({});
export const AuditVerifyReply = Type.Object({
  valid: Type.Boolean(),
  checked: Type.Integer(),
  headHash: Type.String(),
  brokenAt: Type.Optional(Type.Integer()),
  reason: Type.Optional(Type.String()),
  /** Entries pruned under retention among those checked (links checked, content gone; docs/TENANCY.md). */
  pruned: Type.Optional(Type.Integer()),
});
