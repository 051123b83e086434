import { sql, type FragmentSqlToken } from 'slonik';

/**
 * The five conditions of an execution record as SQL expressions over one `executions` row, for
 * counts and filters over the whole chain without reading it into memory. They mirror
 * services/spine/executions/read-models/conditions.ts rule for rule (storage/execution-reads.test.ts checks
 * that both give the same state for arbitrary records, on both storage kinds). Scope matching is
 * the function `execution_scope_granted` of migration 004.
 */

/** The governance words the rules recognise; passed in by the actor that owns the rules. */
export interface GovernanceWords {
  readonly permitted: string;
  readonly refusals: readonly string[];
}

export interface ConditionSql {
  identity: FragmentSqlToken;
  capability: FragmentSqlToken;
  evidence: FragmentSqlToken;
  governance: FragmentSqlToken;
  time: FragmentSqlToken;
}

const PROVEN = sql.fragment`(attested -> 'proven' = 'true'::jsonb)`;
const SAME_SUBJECT = sql.fragment`(attested ->> 'sub' = subject)`;

export function conditionSql(words: GovernanceWords): ConditionSql {
  return {
    identity: sql.fragment`case when ${PROVEN} and ${SAME_SUBJECT} then 'DEMONSTRATED' when ${PROVEN} then 'FAILED' else 'UNKNOWN' end`,
    capability: sql.fragment`case when cardinality(scope) = 0 then 'ABSENT'
      when (attested ->> 'sub') is distinct from subject then 'UNKNOWN'
      when not exists (select 1 from unnest(scope) as c(s) where not execution_scope_granted(attested -> 'scope', c.s)) then 'DEMONSTRATED'
      else 'FAILED' end`,
    evidence: sql.fragment`case when jsonb_typeof(governance -> 'evidence') = 'array' and jsonb_array_length(governance -> 'evidence') > 0 then 'DEMONSTRATED'
      when jsonb_typeof(governance -> 'decision') = 'string' then 'UNKNOWN' else 'ABSENT' end`,
    governance: sql.fragment`case when governance is null or jsonb_typeof(governance) <> 'object' then 'ABSENT'
      when jsonb_typeof(governance -> 'decision') = 'string' and governance ->> 'decision' = ${words.permitted} then 'DEMONSTRATED'
      when jsonb_typeof(governance -> 'decision') = 'string' and governance ->> 'decision' = any(${sql.array([...words.refusals], 'text')}) then 'FAILED'
      else 'UNKNOWN' end`,
    time: sql.fragment`case when ts ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?Z$' then 'DEMONSTRATED' else 'FAILED' end`,
  };
}

/** A cost claim is counted when it is an object (the writer stores SQL NULL for none). */
export const PRICED = sql.fragment`(jsonb_typeof(cost) = 'object')`;
