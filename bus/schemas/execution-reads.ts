import { Type } from 'typebox';
import { ChainVerifyReply, ExecutionId, SuppliedRecordSchema } from './executions.ts';

/**
 * Read models of the execution chain (docs/EXECUTION-READS.md), served by the read-model actor
 * (queue `executions`). Every request carries an optional `tenantId`: when present, only that
 * tenant's records are read. Cursors are opaque to the edge; the actor that issued one reads it.
 */

const TenantId = Type.Optional(Type.String({ minLength: 1, maxLength: 128 }));
const Cursor = Type.String({ pattern: '^[A-Za-z0-9_-]{1,4400}$' });
const NextCursor = Type.Union([Cursor, Type.Null()]);
const Limit = Type.Integer({ minimum: 1, maximum: 500 });
const Iso = Type.String({ format: 'date-time' });
const Hash = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Count = Type.Integer({ minimum: 0 });
const Word = Type.String({ minLength: 1, maxLength: 512 });

export const ConditionNameSchema = Type.Enum(['Identity', 'Capability', 'Evidence', 'Governance', 'Time'] as const);
export const ConditionStateSchema = Type.Enum(['DEMONSTRATED', 'FAILED', 'UNKNOWN', 'ABSENT'] as const);
export const AttentionKindSchema = Type.Enum(['outcome', 'identity', 'capability', 'governance'] as const);

const Filters = {
  subject: Type.Optional(Word),
  outcome: Type.Optional(Word),
  module: Type.Optional(Word),
  action: Type.Optional(Word),
  from: Type.Optional(Iso),
  to: Type.Optional(Iso),
};

export const ListRequest = Type.Object({ tenantId: TenantId, limit: Limit, cursor: Type.Optional(Cursor), ...Filters }, { additionalProperties: false });
export const ListReply = Type.Object({ records: Type.Array(SuppliedRecordSchema), nextCursor: NextCursor });

/** One record by id: conditions, explanation. */
export const RecordReadRequest = Type.Object({ id: ExecutionId, tenantId: TenantId }, { additionalProperties: false });

export const ConditionSchema = Type.Object({
  condition: ConditionNameSchema,
  state: ConditionStateSchema,
  field: Type.String(),
  detail: Type.String(),
});
export const ConditionsReply = Type.Object({
  id: Type.String(),
  seq: Type.Integer(),
  conditions: Type.Array(ConditionSchema, { minItems: 5, maxItems: 5 }),
  conclusion: Type.String(),
});

export const ExplainReply = Type.Object({
  id: Type.String(),
  seq: Type.Integer(),
  sentences: Type.Array(Type.Object({ text: Type.String(), fields: Type.Array(Type.String(), { minItems: 1 }) })),
  basis: Type.String(),
});

/** Only hashes travel: the candidate input and output are hashed on the edge and dropped (core rule 1). */
export const ReplayRequest = Type.Object(
  {
    id: ExecutionId,
    tenantId: TenantId,
    candidateInputHash: Type.Optional(Hash),
    candidateOutputHash: Type.Optional(Hash),
  },
  { additionalProperties: false },
);
export const ReplayReply = Type.Object({
  id: Type.String(),
  inputHash: Type.String(),
  outputHash: Type.Union([Type.String(), Type.Null()]),
  candidateInputHash: Type.Union([Hash, Type.Null()]),
  candidateOutputHash: Type.Union([Hash, Type.Null()]),
  inputMatches: Type.Union([Type.Boolean(), Type.Null()]),
  outputMatches: Type.Union([Type.Boolean(), Type.Null()]),
  method: Type.String(),
  conclusion: Type.String(),
});

export const LineageRequest = Type.Object(
  {
    id: ExecutionId,
    tenantId: TenantId,
    depth: Type.Integer({ minimum: 1, maximum: 20 }),
    limit: Type.Integer({ minimum: 1, maximum: 1000 }),
  },
  { additionalProperties: false },
);
const LineageRecord = Type.Object({ id: Type.String(), subject: Type.String(), outcome: Type.String(), depth: Type.Integer({ minimum: 1 }) });
const Reach = { count: Count, maxDepth: Count, truncated: Type.Boolean() };
export const LineageReply = Type.Object({
  id: Type.String(),
  inheritedFailures: Type.Array(LineageRecord),
  upstream: Type.Object(Reach),
  blastRadius: Type.Object({ records: Type.Array(LineageRecord), ...Reach }),
  meaning: Type.String(),
});

export const AttentionRequest = Type.Object(
  {
    tenantId: TenantId,
    limit: Limit,
    cursor: Type.Optional(Cursor),
    kinds: Type.Array(AttentionKindSchema, { minItems: 1, maxItems: 4 }),
  },
  { additionalProperties: false },
);
const Reason = Type.Object({
  kind: AttentionKindSchema,
  field: Type.String(),
  state: Type.Optional(ConditionStateSchema),
  detail: Type.String(),
});
export const AttentionReply = Type.Object({
  records: Type.Array(
    Type.Object({
      id: Type.String(),
      seq: Type.Integer(),
      timestamp: Type.String(),
      subject: Type.String(),
      module: Type.String(),
      action: Type.String(),
      outcome: Type.String(),
      reasons: Type.Array(Reason, { minItems: 1 }),
    }),
  ),
  nextCursor: NextCursor,
});

/** Pages of subjects (authority, cost). */
export const SubjectPageRequest = Type.Object(
  {
    tenantId: TenantId,
    limit: Limit,
    cursor: Type.Optional(Cursor),
    subject: Type.Optional(Word),
    from: Type.Optional(Iso),
    to: Type.Optional(Iso),
  },
  { additionalProperties: false },
);

const ScopeCount = Type.Object({ scope: Type.String(), count: Count });
const ModuleCount = Type.Object({ module: Type.String(), count: Count });
const OutcomeCount = Type.Object({ outcome: Type.String(), count: Count });
export const AuthorityReply = Type.Object({
  subjects: Type.Array(
    Type.Object({
      subject: Type.String(),
      records: Count,
      firstSeen: Type.String(),
      lastSeen: Type.String(),
      scopes: Type.Array(ScopeCount),
      modules: Type.Array(ModuleCount),
      actions: Type.Array(Type.Object({ module: Type.String(), action: Type.String(), count: Count })),
      outcomes: Type.Array(OutcomeCount),
      capability: Type.Array(Type.Object({ state: ConditionStateSchema, count: Count })),
      truncated: Type.Boolean(),
    }),
  ),
  nextCursor: NextCursor,
});

/** A sum of minor units: a number while exact in JSON, else its decimal digits. */
const Amount = Type.Union([Type.Integer(), Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$' })]);
const Totals = Type.Array(Type.Object({ currency: Type.String(), amount: Amount }));
/** Spec, "Cost summary response": coverage first, totals per currency, subjects. */
export const CostReply = Type.Object({
  coverage: Type.Object({ records: Count, priced: Count, unpriced: Count, meaning: Type.String() }),
  totals: Totals,
  subjects: Type.Array(Type.Object({ subject: Type.String(), priced: Count, unpriced: Count, totals: Totals })),
  nextCursor: NextCursor,
});

export const TenantRequest = Type.Object({ tenantId: TenantId }, { additionalProperties: false });

const StateCounts = Type.Object({ DEMONSTRATED: Count, FAILED: Count, UNKNOWN: Count, ABSENT: Count });
export const StatsReply = Type.Object({
  records: Type.Object({
    total: Count,
    subjects: Count,
    priced: Count,
    unpriced: Count,
    withoutOutput: Count,
    firstTimestamp: Type.Union([Type.String(), Type.Null()]),
    lastTimestamp: Type.Union([Type.String(), Type.Null()]),
  }),
  byOutcome: Type.Object({ counts: Type.Array(OutcomeCount), distinct: Count }),
  byModule: Type.Object({ counts: Type.Array(ModuleCount), distinct: Count }),
  conditions: Type.Array(Type.Object({ condition: ConditionNameSchema, states: StateCounts })),
  chain: ChainVerifyReply,
  unverifiable: Type.Array(Type.Object({ what: Type.String(), why: Type.String() })),
});

export const UnknownsReply = Type.Object({
  records: Count,
  unknowns: Type.Array(
    Type.Object({
      resolvedBy: Type.String(),
      field: Type.String(),
      condition: Type.Optional(ConditionNameSchema),
      states: Type.Optional(Type.Array(ConditionStateSchema)),
      records: Count,
    }),
  ),
  meaning: Type.String(),
});
