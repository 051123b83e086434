import { Type, type TProperties } from 'typebox';
import { answer } from '../../edge-http/index.ts';
import { AppealSchema, BreachSchema, ChainSchema, ContractSchema, DisputeSchema, InteractionSchema, ObservationSchema } from './schemas.ts';
import { trustSubjects as s } from './subjects.ts';

/**
 * The trust routes' answers as the documents describe them and Fastify serializes them. Records
 * (events, appeals, disputes, contracts, breaches, interactions, observations) are the bus
 * schemas; the composite answers (docs/TRUST.md) name the fields a client reads and stay open
 * (`additionalProperties: true`) for the explanation parts the scoring and arbitration rules add,
 * so that serializing from the schema never drops a field the arbiter sends.
 */

const Open = (properties: TProperties, description: string) => Type.Object(properties, { additionalProperties: true, description });
const Entry = Type.Object({}, { additionalProperties: true });
const Entries = Type.Array(Entry);
const OrNull = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const EventRecorded = answer(s.recordEvent.reply, 'Recorded, with how its proof was checked');
export const EventsOfSubject = Open(
  { subjectId: Type.String(), subjectType: Type.Optional(OrNull(Type.String())), events: Entries },
  "The subject's events, newest first, each with its appeals",
);
export const AppealMade = answer(s.appeal.reply, 'The appeal, pending');
export const AppealsOfEvent = Open({ eventId: Type.String(), appeals: Type.Array(AppealSchema) }, "The event's appeals");
export const AppealDecided = Type.Object(
  { ...AppealSchema.properties, effect: Type.String() },
  { description: 'The decided appeal, and its effect on scores' },
);

export const Evidence = Open(
  {
    subjectId: Type.String(),
    subjectType: Type.Optional(OrNull(Type.String())),
    events: Entries,
    breaches: Entries,
    notice: Type.String(),
  },
  'Recorded facts only: events (with their appeals) and breaches; no score, rank or conclusion',
);
export const Score = Open(
  {
    subjectId: Type.String(),
    advisory: Type.Literal(true),
    score: Type.Number(),
    contributions: Entries,
    excluded: Entries,
    methodDetails: Entry,
  },
  'The advisory score, each contribution traceable to one record with a link to appeal it',
);
export const Scores = Open(
  {
    scores: Type.Array(
      Type.Object({
        subjectId: Type.String(),
        score: Type.Number(),
        advisory: Type.Literal(true),
        contributions: Type.Integer(),
        excluded: Type.Integer(),
        explanation: Type.String(),
      }),
    ),
    method: Entry,
  },
  "Every agent's advisory score, and the method",
);
export const ScoreCheck = Open(
  {
    subjectId: Type.String(),
    allowed: Type.Boolean(),
    gating: Type.String(),
    reason: Type.String(),
    threshold: Type.Optional(Type.Number()),
    score: Type.Optional(Type.Number()),
  },
  'Whether the score allows: always, when gating is disabled',
);

const Count = Type.Integer({ minimum: 0 });
export const Grounding = Open(
  {
    signals: Entries,
    checked: Type.Object({ sentences: Count, numbers: Count, dates: Count, quotations: Count, entities: Count }),
    notice: Type.String(),
  },
  'Risk signals of the output against its sources, never a verdict of truth (docs/TRUST.md, "Grounding")',
);
export const Arbitration = Open(
  {
    stored: Type.Literal(false),
    question: OrNull(Type.String()),
    irreversible: Type.Boolean(),
    method: Type.String(),
    positions: Entries,
    outcome: Type.Union([Type.Literal('consensus'), Type.Literal('no-consensus')]),
    leading: OrNull(Type.String()),
    leadingShare: Type.Number(),
    escalate: Type.Boolean(),
    reason: Type.String(),
    unknownFamily: Type.Array(Type.String()),
    rules: Entry,
  },
  'The evaluation of the opinions; nothing is stored (docs/TRUST.md, "Arbitration")',
);
export const DisputeList = Open({ disputes: Type.Array(DisputeSchema) }, 'Disputes, newest first');
export const Dispute = (description: string) => answer(DisputeSchema, description);

export const ContractList = Open({ contracts: Type.Array(ContractSchema) }, 'Contracts, newest first');
export const ContractWithBreaches = Type.Object(
  { ...ContractSchema.properties, breaches: Type.Array(BreachSchema) },
  { description: 'The contract and its breaches' },
);
const FailureCount = Type.Object({ total: Type.Integer(), open: Type.Integer(), remediated: Type.Integer() });
export const ContractHealth = Type.Object(
  {
    contractId: Type.String(),
    state: Type.String(),
    agentId: Type.String(),
    operatorId: Type.String(),
    failures: Type.Object({ agent: FailureCount, operator: FailureCount, total: Type.Integer() }),
    summary: Type.String(),
  },
  { description: "The contract's failures, by whose fault they are" },
);
export const Contract = (description: string) => answer(ContractSchema, description);
export const Breach = (description: string) => answer(BreachSchema, description);

export const InteractionRecorded = answer(InteractionSchema, 'Recorded, with its place in its chain');
export const ObservationRecorded = answer(ObservationSchema, "Stored as the observer's opinion");
export const ChainList = Open({ chains: Type.Array(ChainSchema) }, 'Chains, most recently active first');
export const ChainDetail = Open(
  {
    ...ChainSchema.properties,
    stalled: Type.Boolean(),
    interactions: Type.Array(InteractionSchema),
    observations: Type.Array(ObservationSchema),
    executions: Entries,
    anomalies: Entries,
  },
  'The chain, its interactions, observations, linked executions and anomalies',
);
export const Anomalies = Open(
  {
    anomalies: Entries,
    bounds: Type.Object({ maxDepth: Type.Integer(), maxFanOut: Type.Integer(), stallMs: Type.Integer() }),
  },
  'Structural anomalies (cycles, runaways, stalls, disagreement) and the bounds they are judged by',
);
export const Obligations = Type.Object(
  {
    service: Type.String(),
    promises: Type.Array(Type.String()),
    doesNot: Type.Array(Type.String()),
    documentation: Type.String(),
  },
  { description: 'What the trust service promises and does not do' },
);
