/** The five conditions of a record, its explanation and its reasons for attention: read from signed fields, no I/O. */
export {
  assessConditions,
  CONDITION_RULES,
  CONDITIONS,
  CONDITION_STATES,
  type Assessment,
  type Condition,
  type ConditionName,
  type ConditionRules,
  type ConditionState,
} from './conditions.ts';
export { explainRecord, type Explanation, type Sentence } from './explain.ts';
export { attentionReasons, ATTENTION_KINDS, type AttentionKind, type AttentionReason } from './attention.ts';
export { countIn, conditionTable, unverifiable, unknownGroups, UNKNOWNS_MEANING, type StateCombination } from './summaries.ts';
