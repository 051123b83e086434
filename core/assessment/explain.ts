import type { ExecutionRecord } from '../chain/index.ts';

/**
 * A plain-language explanation of one record (spec, core rule 6): fixed templates filled only with
 * the record's signed fields (docs/TRACE-FORMAT.md), never a model. Each sentence names the
 * fields it was built from. Values the caller chose are quoted as JSON strings, so that no value
 * can read as part of the sentence around it. `hash` and `signature` are not signed fields and are
 * not used.
 */
export interface Sentence {
  text: string;
  fields: string[];
}

export interface Explanation {
  sentences: Sentence[];
  basis: string;
}

export const EXPLANATION_BASIS =
  "Every sentence is a fixed template filled with the record's signed fields (named in `fields`), " +
  'so anyone holding the record can rebuild it; no model wrote it. Claims of the recorder are called claims: ' +
  'the suite attests only the time it accepted the record, the recording token (attested) and the chain position.';

const q = (v: unknown) => JSON.stringify(v);
const obj = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const quoted = (xs: readonly string[]) => xs.map(q).join(', ');

type Explainable = Omit<ExecutionRecord, 'cost' | 'governance' | 'attested'> & { cost: unknown; governance: unknown; attested: unknown };

export function explainRecord(r: Explainable): Explanation {
  const s: Sentence[] = [];
  s.push({
    text: `Record ${r.seq} of the execution chain (${r.id}) was accepted by the suite at ${r.timestamp}. It says that the subject ${q(r.subject)} performed the action ${q(r.action)} in the module ${q(r.module)}, with the outcome ${q(r.outcome)}; these are the recorder's claims.`,
    fields: ['seq', 'id', 'timestamp', 'subject', 'action', 'module', 'outcome'],
  });
  s.push(
    r.scope.length
      ? { text: `It claims the action was taken under the scope${r.scope.length > 1 ? 's' : ''} ${quoted(r.scope)}.`, fields: ['scope'] }
      : { text: 'It claims no scope for the action.', fields: ['scope'] },
  );
  s.push(recordedBy(r.attested));
  s.push(
    r.outputHash === null
      ? { text: `The input is kept only as its SHA-256 hash ${r.inputHash}; no output was recorded.`, fields: ['inputHash', 'outputHash'] }
      : {
          text: `The input and output are kept only as their SHA-256 hashes: input ${r.inputHash}, output ${r.outputHash}.`,
          fields: ['inputHash', 'outputHash'],
        },
  );
  s.push(costSentence(obj(r.cost)));
  s.push(governanceSentence(obj(r.governance)));
  s.push({
    text: `It follows the record whose hash is ${r.prevHash} and is signed with the key ${q(r.keyId)}.`,
    fields: ['prevHash', 'keyId'],
  });
  return { sentences: s, basis: EXPLANATION_BASIS };
}

function recordedBy(attested: unknown): Sentence {
  const a = obj(attested) ?? {};
  const scope = strings(a.scope);
  const proof = a.proven === true ? "issued with proof of the enrolled identity's private key" : "not issued with proof of an enrolled identity's key";
  const tenant = typeof a.tenantId === 'string' ? `, under the tenant ${q(a.tenantId)}` : '';
  const jti = typeof a.jti === 'string' ? ` ${q(a.jti)}` : '';
  return {
    text: `It was recorded with the token${jti} of the subject ${q(typeof a.sub === 'string' ? a.sub : '')}, carrying ${scope.length ? `the scopes ${quoted(scope)}` : 'no scopes'}, ${proof}${tenant}; the suite attests this from the verified token.`,
    fields: ['attested.jti', 'attested.sub', 'attested.scope', 'attested.proven', 'attested.tenantId'],
  };
}

function costSentence(cost: Record<string, unknown> | undefined): Sentence {
  if (!cost) return { text: 'It carries no cost claim.', fields: ['cost'] };
  const measure = typeof cost.unit === 'string' ? ` for ${String(cost.quantity)} ${q(cost.unit)}` : '';
  return {
    text: `It claims a cost of ${String(cost.amount)} minor units of ${q(cost.currency)}${measure}, according to the source ${q(cost.source)}; the suite records the claim and does not measure cost.`,
    fields: ['cost.amount', 'cost.currency', ...(measure ? ['cost.quantity', 'cost.unit'] : []), 'cost.source'],
  };
}

function governanceSentence(g: Record<string, unknown> | undefined): Sentence {
  if (!g) return { text: 'It records no governance decision.', fields: ['governance'] };
  const fields: string[] = [];
  const parts: string[] = [];
  if (typeof g.policyRef === 'string') {
    fields.push('governance.policyRef');
    parts.push(`the policy ${q(g.policyRef)}`);
    if (typeof g.policyVersion === 'string') {
      fields.push('governance.policyVersion');
      parts.push(`version ${q(g.policyVersion)}`);
    }
  }
  const policy = parts.length ? parts.join(' ') : 'an unnamed policy';
  const by = typeof g.evaluatedBy === 'string' ? `, as evaluated by ${q(g.evaluatedBy)}` : '';
  if (by) fields.push('governance.evaluatedBy');
  const decision = typeof g.decision === 'string' ? `decided ${q(g.decision)}` : 'was recorded without a decision';
  fields.push('governance.decision');
  const evidence = strings(g.evidence);
  fields.push('governance.evidence');
  const cited = evidence.length
    ? `, citing ${evidence.length} piece${evidence.length > 1 ? 's' : ''} of evidence (${quoted(evidence)})`
    : ', citing no evidence';
  return {
    text: `It records that ${policy}${by} ${decision}${cited}; the decision was made elsewhere and the suite never asserts it was correct.`,
    fields,
  };
}
