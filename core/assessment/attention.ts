import type { ExecutionRecord } from '../chain/index.ts';
import { capabilityOf, governanceOf, identityOf, type ConditionState } from './conditions.ts';

/** The kinds of attention a record can need on its face (GET /executions/attention `kind`). */
export const ATTENTION_KINDS = ['outcome', 'identity', 'capability', 'governance'] as const;
export type AttentionKind = (typeof ATTENTION_KINDS)[number];

/**
 * Why a record needs attention on its face, each reason naming the field that says so. The same
 * rules select the records in SQL (storage listAttention); this says why, per record. Not a
 * judgement of what happened: a failed outcome or an unproven subject is what the record shows.
 */
export interface AttentionReason {
  kind: AttentionKind;
  field: string;
  state?: ConditionState;
  detail: string;
}

export function attentionReasons(r: ExecutionRecord, kinds: readonly AttentionKind[]): AttentionReason[] {
  const reasons: AttentionReason[] = [];
  if (kinds.includes('outcome') && r.outcome !== 'success') {
    reasons.push({ kind: 'outcome', field: 'outcome', detail: `the recorded outcome is ${JSON.stringify(r.outcome)}, not "success"` });
  }
  const identity = identityOf(r);
  if (kinds.includes('identity') && identity.state !== 'DEMONSTRATED') {
    reasons.push({ kind: 'identity', field: identity.field, state: identity.state, detail: `Identity ${identity.state}: ${identity.detail}` });
  }
  const capability = capabilityOf(r);
  if (kinds.includes('capability') && capability.state === 'FAILED') {
    reasons.push({ kind: 'capability', field: `${capability.field} vs attested.scope`, state: 'FAILED', detail: `Capability FAILED: ${capability.detail}` });
  }
  const governance = governanceOf(r);
  if (kinds.includes('governance') && governance.state === 'FAILED') {
    reasons.push({ kind: 'governance', field: governance.field, state: 'FAILED', detail: `Governance FAILED: ${governance.detail}` });
  }
  return reasons;
}
