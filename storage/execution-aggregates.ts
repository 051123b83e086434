import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';
import { conditionSql, PRICED, type GovernanceWords } from './execution-conditions.ts';
import { filterConditions, whereAll, type ExecutionFilter } from './execution-reads.ts';

/**
 * Aggregates over the execution chain, computed in SQL (the table may hold millions of rows; none
 * of these reads it into memory). Every function honours `tenantId` in the filter.
 */

const TotalsRow = rowSchema(
  Type.Object({
    records: Type.Number(),
    priced: Type.Number(),
    withoutOutput: Type.Number(),
    subjects: Type.Number(),
    firstTimestamp: Type.Union([Type.String(), Type.Null()]),
    lastTimestamp: Type.Union([Type.String(), Type.Null()]),
  }),
);

export async function executionTotals(db: CommonQueryMethods, f: ExecutionFilter) {
  return db.one(sql.type(TotalsRow)`
    select count(*)::int8 as records, count(*) filter (where ${PRICED})::int8 as priced,
      count(*) filter (where output_hash is null)::int8 as "withoutOutput", count(distinct subject)::int8 as subjects,
      min(ts) as "firstTimestamp", max(ts) as "lastTimestamp"
    from executions ${whereAll(filterConditions(f))}`);
}

const StatesRow = rowSchema(
  Type.Object({
    identity: Type.String(),
    capability: Type.String(),
    evidence: Type.String(),
    governance: Type.String(),
    time: Type.String(),
    n: Type.Number(),
  }),
);

/** How many records are in each combination of the five condition states (at most 216 rows). */
export async function conditionCounts(db: CommonQueryMethods, words: GovernanceWords, f: ExecutionFilter) {
  const c = conditionSql(words);
  const rows = await db.any(sql.type(StatesRow)`
    select identity, capability, evidence, governance, time, count(*)::int8 as n from (
      select ${c.identity} as identity, ${c.capability} as capability, ${c.evidence} as evidence,
        ${c.governance} as governance, ${c.time} as time
      from executions ${whereAll(filterConditions(f))}) s
    group by identity, capability, evidence, governance, time`);
  return [...rows];
}

const ValueCountRow = rowSchema(Type.Object({ value: Type.String(), count: Type.Number(), distinct: Type.Number() }));

/** The `limit` most frequent values of a column, and how many distinct values there are. */
export async function countsBy(db: CommonQueryMethods, column: 'outcome' | 'module', f: ExecutionFilter, limit: number) {
  const col = sql.identifier([column]);
  const rows = await db.any(sql.type(ValueCountRow)`
    select value, count, distinct_values as distinct from (
      select ${col} as value, count(*)::int8 as count, (count(*) over ())::int8 as distinct_values
      from executions ${whereAll(filterConditions(f))} group by ${col}) v
    order by count desc, value limit ${limit}`);
  return { counts: rows.map(({ value, count }) => ({ value, count })), distinct: rows[0]?.distinct ?? 0 };
}

const SubjectRow = rowSchema(
  Type.Object({
    subject: Type.String(),
    records: Type.Number(),
    priced: Type.Number(),
    firstSeen: Type.String(),
    lastSeen: Type.String(),
  }),
);

/** One page of subjects in subject order (a cursor is the last subject of the previous page). */
export async function subjectsPage(db: CommonQueryMethods, f: ExecutionFilter & { afterSubject?: string; limit: number }) {
  const conditions = [...filterConditions(f), ...(f.afterSubject !== undefined ? [sql.fragment`subject > ${f.afterSubject}`] : [])];
  const rows = await db.any(sql.type(SubjectRow)`
    select subject, count(*)::int8 as records, count(*) filter (where ${PRICED})::int8 as priced,
      min(ts) as "firstSeen", max(ts) as "lastSeen"
    from executions ${whereAll(conditions)} group by subject order by subject limit ${f.limit}`);
  return [...rows];
}

export type SubjectDimension = 'scope' | 'module' | 'action' | 'outcome' | 'capability';
const BreakdownRow = rowSchema(
  Type.Object({
    subject: Type.String(),
    value: Type.String(),
    module: Type.Union([Type.String(), Type.Null()]),
    count: Type.Number(),
  }),
);

/**
 * Per subject of `subjects`, the `perSubject` most frequent values of one dimension: claimed scope
 * entries, modules, (module, action) pairs, outcomes, or Capability states.
 */
export async function subjectBreakdown(
  db: CommonQueryMethods,
  words: GovernanceWords,
  dimension: SubjectDimension,
  subjects: readonly string[],
  f: ExecutionFilter,
  perSubject: number,
) {
  if (subjects.length === 0) return [];
  const value: Record<SubjectDimension, { value: FragmentSqlToken; module: FragmentSqlToken; from: FragmentSqlToken }> = {
    scope: { value: sql.fragment`c.s`, module: sql.fragment`null::text`, from: sql.fragment`executions cross join lateral unnest(scope) as c(s)` },
    module: { value: sql.fragment`module`, module: sql.fragment`null::text`, from: sql.fragment`executions` },
    action: { value: sql.fragment`action`, module: sql.fragment`module`, from: sql.fragment`executions` },
    outcome: { value: sql.fragment`outcome`, module: sql.fragment`null::text`, from: sql.fragment`executions` },
    capability: { value: conditionSql(words).capability, module: sql.fragment`null::text`, from: sql.fragment`executions` },
  };
  const d = value[dimension];
  const conditions = [...filterConditions(f), sql.fragment`subject = any(${sql.array([...subjects], 'text')})`];
  const rows = await db.any(sql.type(BreakdownRow)`
    select subject, value, module, count from (
      select subject, value, module, count, row_number() over (partition by subject order by count desc, value, module) as rank
      from (select subject, ${d.value} as value, ${d.module} as module, count(*)::int8 as count
        from ${d.from} ${whereAll(conditions)} group by 1, 2, 3) g) r
    where rank <= ${perSubject} order by subject, rank`);
  return [...rows];
}

const CostRow = rowSchema(Type.Object({ subject: Type.Union([Type.String(), Type.Null()]), currency: Type.String(), amount: Type.String() }));

/**
 * Sums of the claimed amounts per currency (never across currencies), over all records matching
 * the filter or, with `subjects`, per subject of that list. Exact: numeric, answered as digits.
 */
export async function costTotals(db: CommonQueryMethods, f: ExecutionFilter, subjects?: readonly string[]) {
  const conditions = [
    ...filterConditions(f),
    PRICED,
    sql.fragment`jsonb_typeof(cost -> 'currency') = 'string'`,
    ...(subjects ? [sql.fragment`subject = any(${sql.array([...subjects], 'text')})`] : []),
  ];
  const by = subjects ? sql.fragment`subject` : sql.fragment`null::text`;
  const rows = await db.any(sql.type(CostRow)`
    select ${by} as subject, cost ->> 'currency' as currency,
      coalesce(sum(case when jsonb_typeof(cost -> 'amount') = 'number' then (cost ->> 'amount')::numeric end), 0)::text as amount
    from executions ${whereAll(conditions)} group by 1, 2 order by 1, 2`);
  return [...rows];
}
