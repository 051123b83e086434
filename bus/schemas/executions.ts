import { Type, type Static } from 'typebox';
import { AuditInputSchema } from './audit.ts';

/**
 * Execution traces (spec, "Execution record"). Every string that is stored and signed is `Text`:
 * no NUL (Postgres text and jsonb refuse it) and no lone UTF-16 surrogate (RFC 8785 cannot
 * canonicalise it, and UTF-8 storage would replace it). One such value in a group commit would fail
 * the whole batch, so it is refused here, per message, before it reaches the chain writer.
 */
const TEXT = '^(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$';
export const Text = (maxLength: number, minLength = 1) => Type.String({ minLength, maxLength, pattern: TEXT });

const Hash = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Iso = Type.String({ format: 'date-time' });
export const ExecutionId = Type.String({ pattern: '^exec_[0-9a-f]{32}$' });
export const KeyId = Type.String({ pattern: '^ed25519-[0-9a-f]{16}$' });
/** `success` and `failure` are the spec's; any other lower-case word is accepted as the claim it is. */
export const Outcome = Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$' });

/**
 * Cost as recorded (spec, "Cost object rules"). The rules are also checked by `costProblem`
 * (services/spine/executions/cost-rules.ts), which names the rule broken; this schema is the last word.
 */
export const CostSchema = Type.Object(
  {
    amount: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    source: Text(256),
    unit: Type.Optional(Text(64)),
    quantity: Type.Optional(Type.Number()),
  },
  { additionalProperties: false },
);

/** A governance decision made elsewhere, recorded as a claim and never asserted correct (core rule 4). */
export const GovernanceSchema = Type.Object(
  {
    policyRef: Type.Optional(Text(512)),
    policyVersion: Type.Optional(Text(128)),
    decision: Type.Optional(Text(64)),
    evidence: Type.Optional(Type.Array(Text(2048), { maxItems: 100 })),
    evaluatedBy: Type.Optional(Text(512)),
  },
  { additionalProperties: false },
);

/** What the edge knows for certain about the recording call (from the verified token). */
export const AttestationSchema = Type.Object(
  {
    jti: Type.Union([Text(128), Type.Null()]),
    sub: Text(512),
    scope: Type.Array(Text(200), { maxItems: 100 }),
    proven: Type.Boolean(),
    tenantId: Type.Union([Text(128), Type.Null()]),
  },
  { additionalProperties: false },
);

/** The claimed part of a record: what the caller said (input and output only as their hashes). */
export const ExecutionClaimSchema = Type.Object(
  {
    subject: Text(512),
    scope: Type.Array(Text(200), { maxItems: 100 }),
    module: Text(256),
    action: Text(256),
    outcome: Outcome,
    inputHash: Hash,
    outputHash: Type.Union([Hash, Type.Null()]),
    cost: Type.Union([CostSchema, Type.Null()]),
    governance: Type.Union([GovernanceSchema, Type.Null()]),
  },
  { additionalProperties: false },
);
export type ExecutionClaim = Static<typeof ExecutionClaimSchema>;

export const RecordRequest = Type.Object({
  claim: ExecutionClaimSchema,
  attested: AttestationSchema,
  /** When the edge accepted the call (ISO-8601 UTC). */
  timestamp: Iso,
  /** `Idempotency-Key` header: a retry with the same key from the same token subject gets the same record. */
  idempotencyKey: Type.Optional(Type.String({ pattern: '^[\\x20-\\x7E]{1,200}$' })),
  /**
   * The audit entry of the edge's decision to let this append through: committed with the record
   * (storage's `audit_outbox`), so one commit makes both durable (docs/DECISIONS.md, "The append's
   * audit entry in its record's commit"). Absent: the edge made it durable itself.
   */
  audit: Type.Optional(AuditInputSchema),
});
export type RecordRequestData = Static<typeof RecordRequest>;

/** A stored record, every signed field plus `hash` and `signature` (format v1). */
export const ExecutionRecordSchema = Type.Object({
  seq: Type.Integer({ minimum: 1 }),
  id: ExecutionId,
  timestamp: Type.String(),
  subject: Type.String(),
  scope: Type.Array(Type.String()),
  module: Type.String(),
  action: Type.String(),
  outcome: Type.String(),
  inputHash: Type.String(),
  outputHash: Type.Union([Type.String(), Type.Null()]),
  cost: Type.Union([CostSchema, Type.Null()]),
  governance: Type.Union([GovernanceSchema, Type.Null()]),
  attested: AttestationSchema,
  prevHash: Type.String(),
  keyId: Type.String(),
  hash: Type.String(),
  signature: Type.String(),
});

/** `replayed`: the Idempotency-Key matched a record already made (HTTP 200 instead of 201). */
export const RecordReply = Type.Object({ record: ExecutionRecordSchema, replayed: Type.Boolean() });

/**
 * A record handed in for verification, or read back from storage: it may have been tampered with,
 * so only its shape is required; the verifier judges its content (an edited record is an answer,
 * not a 400 or a 500).
 */
export const SuppliedRecordSchema = Type.Object({
  seq: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  id: Type.String({ maxLength: 128 }),
  timestamp: Type.String({ maxLength: 64 }),
  subject: Type.String({ maxLength: 4096 }),
  scope: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 1000 }),
  module: Type.String({ maxLength: 4096 }),
  action: Type.String({ maxLength: 4096 }),
  outcome: Type.String({ maxLength: 4096 }),
  inputHash: Type.String({ maxLength: 128 }),
  outputHash: Type.Union([Type.String({ maxLength: 128 }), Type.Null()]),
  cost: Type.Unknown(),
  governance: Type.Unknown(),
  attested: Type.Unknown(),
  prevHash: Type.String({ maxLength: 128 }),
  keyId: Type.String({ maxLength: 128 }),
  hash: Type.String({ maxLength: 128 }),
  signature: Type.String({ maxLength: 256 }),
});

export const GetRequest = Type.Object({ id: ExecutionId });
export const GetReply = Type.Object({ record: SuppliedRecordSchema });

/** No `record` and no `id`: the whole chain. `publicKey` (PEM) pins the key instead of the published ones. */
export const VerifyRequest = Type.Object({
  record: Type.Optional(SuppliedRecordSchema),
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  publicKey: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
});

const Failure = {
  brokenAt: Type.Optional(Type.Integer()),
  brokenId: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  contentIntact: Type.Optional(Type.Boolean()),
};
/** Spec, "Chain verification result", plus `mode`. */
export const ChainVerifyReply = Type.Object({
  mode: Type.Literal('chain'),
  valid: Type.Boolean(),
  checked: Type.Integer(),
  headHash: Type.String(),
  ...Failure,
  /** Records pruned under retention among those checked (links and signatures checked, content gone; docs/TENANCY.md). */
  pruned: Type.Optional(Type.Integer()),
});
/** One record: same failure fields, so a client reads both answers alike; `inChain` when stored as given. */
export const RecordVerifyReply = Type.Object({
  mode: Type.Literal('record'),
  valid: Type.Boolean(),
  checked: Type.Literal(1),
  id: Type.String(),
  seq: Type.Integer(),
  hash: Type.String(),
  keyId: Type.String(),
  inChain: Type.Boolean(),
  ...Failure,
});
export const VerifyReply = Type.Union([ChainVerifyReply, RecordVerifyReply]);

export const KeysRequest = Type.Object({ keyId: Type.Optional(KeyId) });
/** Spec, "Trace public key response". */
export const KeysReply = Type.Object({
  keyId: Type.String(),
  algorithm: Type.Literal('Ed25519'),
  publicKey: Type.String(),
  ephemeral: Type.Boolean(),
});

/**
 * Broadcast when a writer has published the key it signs with and starts to lead: the key that
 * `suite.executions.keys` calls current changes, so readers drop the answer they keep.
 */
export const KeyPublishedEvent = Type.Object({ keyId: KeyId });

/** Broadcast after each commit: identifiers only, never payloads (issue 3, "Events"). */
export const AppendedEvent = Type.Object({
  id: Type.String(),
  seq: Type.Integer(),
  hash: Type.String(),
  subject: Type.String(),
  outcome: Type.String(),
});
