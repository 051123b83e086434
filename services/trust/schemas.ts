import { Type, type Static, type TSchema } from 'typebox';
import { CallerSchema, Text } from '../../bus/index.ts';
import { EVENT_KINDS } from '../../core/trust/index.ts';

/**
 * The trust service's bodies (docs/TRUST.md): the edge validates requests against these as sent,
 * and the bus carries the same shapes plus the caller. Every string has a bound and refuses NUL
 * and lone surrogates (`Text`), so nothing a client sends can fail a database write.
 */

/**
 * A name a client chooses (subjects, chains): safe in a path segment, and no longer than the
 * router accepts there (100 characters), so that whatever is recorded can be read back by its name.
 */
export const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._:@+-]*$' });
/** A record id in a path: any such string; one we never issued is 404. */
export const IdParam = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' });

const literals = <T extends string>(values: readonly T[]) => Type.Enum(values as T[]);

export const SUBJECT_TYPES = ['agent', 'human', 'organisation', 'system'] as const;
export const SubjectType = literals(SUBJECT_TYPES);
export const EventKind = literals(EVENT_KINDS);

export const Proof = Type.Union([
  Type.Object({ executionId: Type.String({ pattern: '^exec_[0-9a-f]{32}$' }) }, { additionalProperties: false }),
  Type.Object({ auditEntryId: Type.String({ pattern: '^aud_[A-Za-z0-9_-]{8,64}$' }) }, { additionalProperties: false }),
  Type.Object(
    {
      url: Type.String({ maxLength: 2048, pattern: '^https?://[^\\s\\u0000-\\u001f]+$' }),
      sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    },
    { additionalProperties: false },
  ),
]);

const Iso = Type.String();
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Caller = { caller: CallerSchema };
export const Limit = Type.Integer({ minimum: 1, maximum: 500, default: 100 });

// Events and appeals.
export const EventBody = Type.Object(
  {
    subjectId: Name,
    subjectType: Type.Optional(SubjectType),
    kind: EventKind,
    summary: Type.Optional(Text(1024)),
    proof: Proof,
  },
  { additionalProperties: false },
);
export const EventSchema = Type.Object({
  id: Type.String(),
  subjectId: Type.String(),
  subjectType: Type.String(),
  kind: Type.String(),
  summary: Nullable(Type.String()),
  proof: Type.Unknown(),
  recordedBy: Type.String(),
  recordedAt: Iso,
});
export type TrustEvent = Static<typeof EventSchema>;
export const EventWithCheck = Type.Object({ ...EventSchema.properties, proofCheck: Type.String() });

export const AppealBody = Type.Object({ reason: Text(2048) }, { additionalProperties: false });
export const AppealSchema = Type.Object({
  id: Type.String(),
  eventId: Type.String(),
  reason: Type.String(),
  appellant: Type.String(),
  state: Type.String(),
  createdAt: Iso,
  decidedAt: Nullable(Iso),
  decidedBy: Nullable(Type.String()),
  decisionReason: Nullable(Type.String()),
});
export type Appeal = Static<typeof AppealSchema>;
export const DecideAppealBody = Type.Object({ decision: literals(['upheld', 'rejected'] as const), reason: Text(2048) }, { additionalProperties: false });

// Disputes and arbitration.
export const OpinionSchema = Type.Object(
  {
    participant: Name,
    modelFamily: Type.Optional(Text(128)),
    position: Text(512),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    rationale: Type.Optional(Text(4096)),
  },
  { additionalProperties: false },
);
export const ArbitrateBody = Type.Object(
  {
    question: Type.Optional(Text(2048)),
    irreversible: Type.Optional(Type.Boolean()),
    opinions: Type.Array(OpinionSchema, { minItems: 1, maxItems: 100 }),
  },
  { additionalProperties: false },
);
export const DisputeBody = Type.Object(
  {
    title: Text(256),
    question: Text(2048),
    irreversible: Type.Boolean(),
    opinions: Type.Optional(Type.Array(OpinionSchema, { maxItems: 100 })),
  },
  { additionalProperties: false },
);
export const DisputeArbitrateBody = Type.Object({ opinions: Type.Optional(Type.Array(OpinionSchema, { maxItems: 100 })) }, { additionalProperties: false });
export const DisputeDecideBody = Type.Object({ outcome: Text(512), reason: Text(2048) }, { additionalProperties: false });
export const DisputeSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  question: Type.String(),
  irreversible: Type.Boolean(),
  state: Type.String(),
  opinions: Type.Array(Type.Unknown()),
  arbitration: Type.Unknown(),
  decision: Type.Unknown(),
  createdBy: Type.String(),
  createdAt: Iso,
  updatedAt: Iso,
});
export type Dispute = Static<typeof DisputeSchema>;

// Contracts and breaches.
export const TermSchema = Type.Object({ id: Name, text: Text(2048) }, { additionalProperties: false });
export const ContractBody = Type.Object(
  {
    title: Text(256),
    agentId: Name,
    operatorId: Name,
    /** How the operator is recorded when it is new (default `organisation`); an operator already known keeps its type. */
    operatorType: Type.Optional(literals(['human', 'organisation', 'system'] as const)),
    terms: Type.Array(TermSchema, { minItems: 1, maxItems: 100 }),
  },
  { additionalProperties: false },
);
export const ContractSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  agentId: Type.String(),
  operatorId: Type.String(),
  terms: Type.Array(Type.Unknown()),
  state: Type.String(),
  stateReason: Nullable(Type.String()),
  createdBy: Type.String(),
  createdAt: Iso,
  stateChangedAt: Iso,
});
export type Contract = Static<typeof ContractSchema>;
export const BreachBody = Type.Object(
  {
    party: literals(['agent', 'operator'] as const),
    description: Text(4096),
    term: Type.Optional(Name),
  },
  { additionalProperties: false },
);
export const BreachSchema = Type.Object({
  id: Type.String(),
  contractId: Type.String(),
  party: Type.String(),
  agentId: Type.String(),
  term: Nullable(Type.String()),
  description: Type.String(),
  state: Type.String(),
  reportedBy: Type.String(),
  reportedAt: Iso,
  remediatedAt: Nullable(Iso),
  remediatedBy: Nullable(Type.String()),
  remediation: Nullable(Type.String()),
});
export type Breach = Static<typeof BreachSchema>;
export const ReasonBody = Type.Object({ reason: Text(2048) }, { additionalProperties: false });
export const RemediateBody = Type.Object({ remediation: Text(4096) }, { additionalProperties: false });

// Interactions, observations, chains, anomalies.
export const INTERACTION_OUTCOMES = ['pending', 'success', 'failure', 'refused', 'timeout'] as const;
export const Outcome = literals(INTERACTION_OUTCOMES);
export const InteractionBody = Type.Object(
  {
    caller: Name,
    callee: Name,
    parentId: Type.Optional(IdParam),
    chainId: Type.Optional(Name),
    outcome: Outcome,
    executionId: Type.Optional(Type.String({ pattern: '^exec_[0-9a-f]{32}$' })),
  },
  { additionalProperties: false },
);
export const InteractionSchema = Type.Object({
  id: Type.String(),
  chainId: Type.String(),
  parentId: Nullable(Type.String()),
  caller: Type.String(),
  callee: Type.String(),
  outcome: Type.String(),
  executionId: Nullable(Type.String()),
  depth: Type.Integer(),
  path: Type.Array(Type.String()),
  children: Type.Integer(),
  recordedBy: Type.String(),
  at: Iso,
});
export type Interaction = Static<typeof InteractionSchema>;
export const ObserveBody = Type.Object(
  {
    observer: Name,
    outcome: Outcome,
    note: Type.Optional(Text(2048)),
  },
  { additionalProperties: false },
);
export const ObservationSchema = Type.Object({
  id: Type.String(),
  interactionId: Type.String(),
  kind: Type.Literal('opinion'),
  observer: Type.String(),
  outcome: Type.String(),
  note: Nullable(Type.String()),
  observedAt: Iso,
});
export type Observation = Static<typeof ObservationSchema>;
export const ChainSchema = Type.Object({
  id: Type.String(),
  startedAt: Iso,
  lastActivityAt: Iso,
  lastOutcome: Type.String(),
  interactionCount: Type.Integer(),
  maxDepth: Type.Integer(),
});
export type Chain = Static<typeof ChainSchema>;
export const AnomalySchema = Type.Object({
  kind: Type.String(),
  key: Type.String(),
  chainId: Type.String(),
  detail: Type.String(),
  records: Type.Unknown(),
  detectedAt: Iso,
  updatedAt: Iso,
});
export type Anomaly = Static<typeof AnomalySchema>;

/** Bounds that keep one check under about a second of CPU (docs/TRUST.md, "Grounding"). */
export const VERIFY_LIMITS = { output: 20_000, source: 100_000, sources: 20, sourcesTotal: 200_000 } as const;
export const VerifyBody = Type.Object(
  {
    output: Text(VERIFY_LIMITS.output),
    sources: Type.Array(Text(VERIFY_LIMITS.source), { minItems: 1, maxItems: VERIFY_LIMITS.sources }),
  },
  { additionalProperties: false },
);

// Bus requests: the route's parameters and body, the caller, and the caller's tenant.
export const req = {
  recordEvent: Type.Object({ ...EventBody.properties, ...Caller }),
  subject: Type.Object({ subjectId: Name, limit: Limit, ...Caller }),
  id: Type.Object({ id: Type.String({ minLength: 1, maxLength: 256 }), ...Caller }),
  appeal: Type.Object({ eventId: IdParam, ...AppealBody.properties, ...Caller }),
  decideAppeal: Type.Object({ appealId: IdParam, ...DecideAppealBody.properties, ...Caller }),
  list: Type.Object({ limit: Limit, ...Caller }),
  createDispute: Type.Object({ ...DisputeBody.properties, ...Caller }),
  arbitrateDispute: Type.Object({ disputeId: IdParam, ...DisputeArbitrateBody.properties, ...Caller }),
  decideDispute: Type.Object({ disputeId: IdParam, ...DisputeDecideBody.properties, ...Caller }),
  createContract: Type.Object({ ...ContractBody.properties, ...Caller }),
  breach: Type.Object({ contractId: IdParam, ...BreachBody.properties, ...Caller }),
  contractMove: Type.Object({ contractId: IdParam, action: literals(['suspend', 'reinstate'] as const), ...ReasonBody.properties, ...Caller }),
  remediate: Type.Object({ breachId: IdParam, ...RemediateBody.properties, ...Caller }),
  interaction: Type.Object({ interaction: InteractionBody, ...Caller }),
  observe: Type.Object({ interactionId: IdParam, ...ObserveBody.properties, ...Caller }),
  anomalies: Type.Object({ limit: Limit, kind: Type.Optional(Type.String()), ...Caller }),
};
