import { scopeGrants } from '../capability/index.ts';
import type { ExecutionRecord } from '../chain/index.ts';

/**
 * The five-condition assessment of one record (spec, "Condition assessment"; core rule 5: no
 * score). Each condition is read from the record's own fields and names the field it was read
 * from. The same rules run in SQL for counts over the whole chain (storage/execution-conditions.ts);
 * a property test keeps the two in agreement. The rules are documented in docs/EXECUTION-READS.md.
 */
export const CONDITIONS = ['Identity', 'Capability', 'Evidence', 'Governance', 'Time'] as const;
export type ConditionName = (typeof CONDITIONS)[number];
export const CONDITION_STATES = ['DEMONSTRATED', 'FAILED', 'UNKNOWN', 'ABSENT'] as const;
export type ConditionState = (typeof CONDITION_STATES)[number];

export interface Condition {
  condition: ConditionName;
  state: ConditionState;
  /** The record field the state was read from. */
  field: string;
  detail: string;
}

export interface Assessment {
  conditions: Condition[];
  conclusion: string;
}

/**
 * Governance decisions the assessment recognises, compared exactly (the spec writes `PERMITTED` in
 * upper case). Any other decision is a claim the suite cannot classify: Governance UNKNOWN.
 */
export interface ConditionRules {
  readonly permitted: string;
  readonly refusals: readonly string[];
}
export const CONDITION_RULES: ConditionRules = Object.freeze({
  permitted: 'PERMITTED',
  refusals: Object.freeze(['DENIED', 'REJECTED', 'REFUSED', 'FORBIDDEN', 'BLOCKED', 'PROHIBITED', 'NOT_PERMITTED']),
});

/** How the suite writes `timestamp` (Date.prototype.toISOString); anything else was edited in. */
export const TIMESTAMP_SHAPE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$/;

/**
 * A record read back from storage may have been edited; the assessment reads what is there and
 * never throws on a strange shape (verification is the place that judges the content).
 */
type Readable = Pick<ExecutionRecord, 'subject' | 'scope' | 'timestamp' | 'keyId'> & { attested: unknown; governance: unknown };

interface Facts {
  sub: string | undefined;
  proven: boolean;
  grantedScope: string[];
  decision: string | undefined;
  evidence: number;
  policy: string;
}

function factsOf(r: Readable): Facts {
  const a = (typeof r.attested === 'object' && r.attested !== null ? r.attested : {}) as Record<string, unknown>;
  const g = (typeof r.governance === 'object' && r.governance !== null ? r.governance : {}) as Record<string, unknown>;
  const policy =
    typeof g.policyRef === 'string'
      ? `policy ${JSON.stringify(g.policyRef)}${typeof g.policyVersion === 'string' ? ` version ${JSON.stringify(g.policyVersion)}` : ''}`
      : 'an unnamed policy';
  return {
    sub: typeof a.sub === 'string' ? a.sub : undefined,
    proven: a.proven === true,
    grantedScope: Array.isArray(a.scope) ? a.scope.filter((s): s is string => typeof s === 'string') : [],
    decision: typeof g.decision === 'string' ? g.decision : undefined,
    evidence: Array.isArray(g.evidence) ? g.evidence.length : 0,
    policy,
  };
}

const q = (s: string) => JSON.stringify(s);
const list = (xs: readonly string[]) => (xs.length ? xs.map(q).join(', ') : 'none');

export function identityOf(r: Readable, f = factsOf(r)): Condition {
  const at = (state: ConditionState, detail: string): Condition => ({ condition: 'Identity', state, field: 'attested.proven', detail });
  if (f.proven && f.sub === r.subject) {
    return at(
      'DEMONSTRATED',
      `recorded under a token issued with proof of the enrolled identity ${q(r.subject)}'s private key, and that identity is the claimed subject`,
    );
  }
  if (f.proven) {
    return at(
      'FAILED',
      `the recording token proved the identity ${q(f.sub ?? '')} (attested.sub), but the record claims the subject ${q(r.subject)}: the only identity demonstrated is not the one claimed`,
    );
  }
  return at(
    'UNKNOWN',
    `the recording token (attested.sub ${q(f.sub ?? '')}) was not issued with proof of an enrolled identity's key; the subject ${q(r.subject)} is a claim`,
  );
}

export function capabilityOf(r: Readable, f = factsOf(r)): Condition {
  const at = (state: ConditionState, detail: string): Condition => ({ condition: 'Capability', state, field: 'scope', detail });
  const claimed = Array.isArray(r.scope) ? r.scope : [];
  if (claimed.length === 0) return at('ABSENT', 'no scope was claimed for this action');
  if (f.sub !== r.subject) {
    return at(
      'UNKNOWN',
      `the claimed scopes (${list(claimed)}) were recorded by another subject's token (attested.sub ${q(f.sub ?? '')}), whose scopes do not speak for ${q(r.subject)}`,
    );
  }
  const missing = claimed.filter((s) => !scopeGrants(f.grantedScope, s));
  if (missing.length === 0) {
    return at(
      'DEMONSTRATED',
      `every claimed scope (${list(claimed)}) is granted by the subject's own recording token (attested.scope: ${list(f.grantedScope)})`,
    );
  }
  return at(
    'FAILED',
    `claimed scope${missing.length > 1 ? 's' : ''} ${list(missing)} not granted by the subject's own recording token (attested.scope: ${list(f.grantedScope)})`,
  );
}

export function governanceOf(r: Readable, rules: ConditionRules = CONDITION_RULES, f = factsOf(r)): Condition {
  const present = typeof r.governance === 'object' && r.governance !== null && !Array.isArray(r.governance);
  if (!present) return { condition: 'Governance', state: 'ABSENT', field: 'governance', detail: 'no governance decision was recorded' };
  const at = (state: ConditionState, detail: string): Condition => ({ condition: 'Governance', state, field: 'governance.decision', detail });
  const claim = 'recorded as a claim made elsewhere; the suite never asserts it was correct';
  if (f.decision === rules.permitted) return at('DEMONSTRATED', `${f.policy} decided ${q(f.decision)}: ${claim}`);
  if (f.decision !== undefined && rules.refusals.includes(f.decision)) return at('FAILED', `${f.policy} decided ${q(f.decision)}, a refusal: ${claim}`);
  if (f.decision === undefined) return at('UNKNOWN', `a governance claim about ${f.policy} without a decision`);
  return at('UNKNOWN', `${f.policy} decided ${q(f.decision)}, which is neither ${q(rules.permitted)} nor a recognised refusal`);
}

export function evidenceOf(r: Readable, f = factsOf(r)): Condition {
  const at = (state: ConditionState, detail: string): Condition => ({ condition: 'Evidence', state, field: 'governance.evidence', detail });
  if (f.evidence > 0) {
    return at(
      'DEMONSTRATED',
      `${f.evidence} evidence reference${f.evidence > 1 ? 's' : ''} recorded with the governance claim; the suite keeps them as given and does not fetch or judge them`,
    );
  }
  if (f.decision !== undefined) return at('UNKNOWN', `a governance decision (${q(f.decision)}) was recorded without the evidence it rested on`);
  return at('ABSENT', 'no evidence was recorded');
}

export function timeOf(r: Readable): Condition {
  const at = (state: ConditionState, detail: string): Condition => ({ condition: 'Time', state, field: 'timestamp', detail });
  if (typeof r.timestamp === 'string' && TIMESTAMP_SHAPE.test(r.timestamp)) {
    return at(
      'DEMONSTRATED',
      `the suite accepted the record at ${r.timestamp} by its own clock and signed that time with key ${q(r.keyId)}; it is when the record was made, not a claim of when the action happened`,
    );
  }
  return at('FAILED', 'the timestamp is not one the suite writes (the stored record was edited; verify it)');
}

/** All five, in the spec's order, and a conclusion in words. No score (core rule 5). */
export function assessConditions(r: Readable, rules: ConditionRules = CONDITION_RULES): Assessment {
  const f = factsOf(r);
  const conditions = [identityOf(r, f), capabilityOf(r, f), evidenceOf(r, f), governanceOf(r, rules, f), timeOf(r)];
  return { conditions, conclusion: conclude(conditions) };
}

const STATE_WORDS: Record<ConditionState, string> = {
  DEMONSTRATED: 'demonstrated',
  FAILED: 'failed',
  UNKNOWN: 'unknown',
  ABSENT: 'absent',
};

export function conclude(conditions: readonly Condition[]): string {
  const parts = CONDITION_STATES.flatMap((state) => {
    const names = conditions.filter((c) => c.state === state).map((c) => c.condition);
    return names.length ? [`${names.length} ${STATE_WORDS[state]} (${names.join(', ')})`] : [];
  });
  const joined = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : (parts[0] ?? 'none assessed');
  return `Of the five conditions, ${joined}. Each is reported on its own, read from the record's fields; no score is derived from them.`;
}
