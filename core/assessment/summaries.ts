import { CONDITION_RULES, CONDITION_STATES, CONDITIONS, type ConditionName, type ConditionState } from './conditions.ts';

/**
 * Pure summaries over counts computed in SQL: the condition table of GET /executions/stats, the
 * `unverifiable` list, and the unknowns grouped by the action that would resolve them.
 */

/** One row of storage's conditionCounts: how many records share these five states. */
export interface StateCombination {
  identity: string;
  capability: string;
  evidence: string;
  governance: string;
  time: string;
  n: number;
}

const KEY: Record<ConditionName, keyof Omit<StateCombination, 'n'>> = {
  Identity: 'identity',
  Capability: 'capability',
  Evidence: 'evidence',
  Governance: 'governance',
  Time: 'time',
};

/** Records whose `condition` is in one of `states`. */
export function countIn(rows: readonly StateCombination[], condition: ConditionName, states: readonly ConditionState[]): number {
  return rows.reduce((n, r) => ((states as readonly string[]).includes(r[KEY[condition]]) ? n + r.n : n), 0);
}

export function conditionTable(rows: readonly StateCombination[]) {
  return CONDITIONS.map((condition) => ({
    condition,
    states: Object.fromEntries(CONDITION_STATES.map((s) => [s, countIn(rows, condition, [s])])) as Record<ConditionState, number>,
  }));
}

/** What the suite does not track or cannot check, whatever the counts say (core rule 4). */
export function unverifiable(c: { identityNotDemonstrated: number; unpriced: number }) {
  return [
    { what: 'outcome', why: "the outcome of every record is the recorder's claim; the suite did not observe the action" },
    { what: 'cost', why: `cost figures are claims with a named source; the suite does not measure cost, and ${c.unpriced} records carry no cost claim at all` },
    {
      what: 'governance',
      why: 'governance decisions and their evidence are claims of decisions made elsewhere; the suite records them and never asserts they were correct',
    },
    {
      what: 'identity',
      why: `the subject of ${c.identityNotDemonstrated} records is not demonstrated (Identity UNKNOWN or FAILED): only tokens issued with proof of an enrolled identity's key tie a record to its subject`,
    },
    {
      what: 'input and output content',
      why: 'only SHA-256 hashes are kept; content cannot be recovered, only matched against a candidate (GET|POST /executions/{id}/replay)',
    },
    { what: 'time of the action', why: 'timestamp is when the suite accepted the record, not when the action happened' },
    {
      what: 'completeness',
      why: 'actions that were never recorded are not counted anywhere; the chain proves what it holds, not that nothing is missing from it',
    },
  ];
}

export const UNKNOWNS_MEANING =
  'Counts of records each action would resolve. The list is in a fixed order and carries no priority; ' + 'a record may be counted under several actions.';

/** Unknowns grouped by the action that would resolve them (GET /executions/unknowns), fixed order. */
export function unknownGroups(rows: readonly StateCombination[], c: { unpriced: number; withoutOutput: number }) {
  const decisionWords = [CONDITION_RULES.permitted, ...CONDITION_RULES.refusals].join(', ');
  return [
    {
      resolvedBy: 'Enrol the subject as an identity (POST /identities) and record its executions with a token issued with proof of its key',
      field: 'attested.proven',
      condition: 'Identity' as const,
      states: ['UNKNOWN' as const],
      records: countIn(rows, 'Identity', ['UNKNOWN']),
    },
    {
      resolvedBy: 'Record each execution with a token issued to the acting subject itself, so that its scopes speak for the actor',
      field: 'attested.sub',
      condition: 'Capability' as const,
      states: ['UNKNOWN' as const],
      records: countIn(rows, 'Capability', ['UNKNOWN']),
    },
    {
      resolvedBy: 'Record the scopes the action was taken under',
      field: 'scope',
      condition: 'Capability' as const,
      states: ['ABSENT' as const],
      records: countIn(rows, 'Capability', ['ABSENT']),
    },
    {
      resolvedBy: 'Record the governance decision made for the action',
      field: 'governance',
      condition: 'Governance' as const,
      states: ['ABSENT' as const],
      records: countIn(rows, 'Governance', ['ABSENT']),
    },
    {
      resolvedBy: `Record the governance decision in words the assessment recognises (${decisionWords})`,
      field: 'governance.decision',
      condition: 'Governance' as const,
      states: ['UNKNOWN' as const],
      records: countIn(rows, 'Governance', ['UNKNOWN']),
    },
    {
      resolvedBy: 'Record the evidence the governance decision rested on',
      field: 'governance.evidence',
      condition: 'Evidence' as const,
      states: ['UNKNOWN' as const, 'ABSENT' as const],
      records: countIn(rows, 'Evidence', ['UNKNOWN', 'ABSENT']),
    },
    { resolvedBy: 'Record the cost of the execution with the source of the figure', field: 'cost', records: c.unpriced },
    {
      resolvedBy: 'Send the output with the record, so that it can be matched (replay) and followed downstream (lineage)',
      field: 'outputHash',
      records: c.withoutOutput,
    },
  ];
}
