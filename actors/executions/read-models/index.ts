/** Read models of the execution chain: the actor serving them, and the pure rules behind them. */
export { ExecutionReadModelActor } from './actor.ts';
export {
  assessConditions, CONDITION_RULES, CONDITIONS, CONDITION_STATES,
  type Assessment, type Condition, type ConditionName, type ConditionRules, type ConditionState,
} from './conditions.ts';
export { explainRecord, type Explanation, type Sentence } from './explain.ts';
export { LINEAGE_MEANING } from './lineage.ts';
