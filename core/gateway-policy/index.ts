/** The MCP gateway's call-time rules, budgets and approvals (issue 33, docs/MCP.md "The policy file"): pure, no I/O. */
export {
  parsePolicy,
  decideCall,
  budgetCharges,
  argsDigest,
  describeRule,
  ruleViews,
  type Policy,
  type RuleView,
  type Decision,
  type RuleRef,
  type BudgetCharge,
} from './policy.ts';
export { CallVars, type CallFacts } from './cel.ts';
export { resolveHeld, decisionProblem, statusAt, type ApprovalState, type ApprovalStatus, type Binding, type Resolution } from './approval.ts';
export { tokenConditionsProblem, conditionsDropped, unmetCondition, type TokenConditions } from './conditions.ts';
