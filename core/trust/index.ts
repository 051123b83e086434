/** The trust service's pure rules: scoring, grounding, arbitration, state machines, anomaly rules. */
export {
  SCORE_METHOD,
  BASELINE,
  SCORE_MIN,
  SCORE_MAX,
  EVENT_WEIGHTS,
  EVENT_KINDS,
  BREACH_WEIGHTS,
  scoreOf,
  gate,
  type EventKind,
  type ScoredEvent,
  type ScoredBreach,
  type Contribution,
  type Exclusion,
  type ScoreExplanation,
  type GateDecision,
} from './scoring.ts';
export { checkGrounding, SUPPORT_THRESHOLD, GROUNDING_NOTICE, type Signal, type SignalType, type GroundingReport } from './grounding.ts';
export {
  evaluate,
  duplicateParticipants,
  ARBITRATION_METHOD,
  SAME_FAMILY_WEIGHT,
  CONSENSUS_SHARE,
  type Opinion,
  type Evaluation,
  type PositionTally,
} from './arbitration.ts';
export { allowed, afterArbitration, MACHINES, type Move, type AppealState, type DisputeState, type ContractState, type BreachState } from './states.ts';
export { placeOf, findingsOnInsert, disagreementOf, isStalled, type AnomalyBounds, type AnomalyKind, type Finding, type Placed } from './anomalies.ts';
export { OBLIGATIONS } from './obligations.ts';
