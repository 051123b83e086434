import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';
import type { AttentionKind } from '../core/assessment/index.ts';
import { conditionSql, type GovernanceWords } from './execution-conditions.ts';
// The record's own columns and row check (cost, governance and attested stay unknown, so an edited
// row is still answered, not refused).
import { asRecord, EXECUTION_COLUMNS, ExecutionRow } from './executions.ts';
import type { ExecutionRecord } from '../core/chain/index.ts';

/**
 * Read models of the execution chain (migration 002, indexes of 004): pages of records newest
 * first, records needing attention, and lineage steps. Pages are bounded by `seq` (a cursor is a
 * sequence number), so records appended while a client pages never shift or repeat a page.
 * Every function takes an optional `tenantId`: when given, only that tenant's records are read.
 */

export interface ExecutionFilter {
  tenantId?: string;
  subject?: string;
  outcome?: string;
  module?: string;
  action?: string;
  /** ISO-8601 UTC as the suite writes it (text order is time order), inclusive. */
  from?: string;
  /** ISO-8601 UTC, inclusive. */
  to?: string;
}

/** Conditions of a filter, to be joined with `and` (empty: every record). */
export function filterConditions(f: ExecutionFilter): FragmentSqlToken[] {
  return [
    f.tenantId !== undefined ? sql.fragment`tenant_id = ${f.tenantId}` : null,
    f.subject !== undefined ? sql.fragment`subject = ${f.subject}` : null,
    f.outcome !== undefined ? sql.fragment`outcome = ${f.outcome}` : null,
    f.module !== undefined ? sql.fragment`module = ${f.module}` : null,
    f.action !== undefined ? sql.fragment`action = ${f.action}` : null,
    f.from !== undefined ? sql.fragment`ts >= ${f.from}` : null,
    f.to !== undefined ? sql.fragment`ts <= ${f.to}` : null,
  ].filter((c) => c !== null);
}

export function whereAll(conditions: readonly FragmentSqlToken[]): FragmentSqlToken {
  return conditions.length ? sql.fragment`where ${sql.join(conditions, sql.fragment` and `)}` : sql.fragment``;
}

/** One record by id, only if it belongs to `tenantId` when one is given. */
export async function getExecutionOf(db: CommonQueryMethods, id: string, tenantId?: string): Promise<ExecutionRecord | null> {
  const row = await db.maybeOne(sql.type(ExecutionRow)`
    select ${EXECUTION_COLUMNS} from executions ${whereAll([sql.fragment`id = ${id}`, ...filterConditions({ ...(tenantId !== undefined ? { tenantId } : {}) })])}`);
  return row && asRecord(row);
}

export interface Page {
  /** Only records with a smaller sequence number (the cursor); undefined: from the head. */
  beforeSeq?: number;
  limit: number;
}

/** Records matching the filter, newest first. */
export async function listExecutions(db: CommonQueryMethods, f: ExecutionFilter & Page): Promise<ExecutionRecord[]> {
  const conditions = [...filterConditions(f), ...(f.beforeSeq !== undefined ? [sql.fragment`seq < ${f.beforeSeq}`] : [])];
  const rows = await db.any(sql.type(ExecutionRow)`
    select ${EXECUTION_COLUMNS} from executions ${whereAll(conditions)} order by seq desc limit ${f.limit}`);
  return rows.map(asRecord);
}

/** Why a record may need attention on its face (docs/EXECUTION-READS.md). */

/**
 * Records that are failed (outcome other than `success`), unproven (Identity not DEMONSTRATED),
 * unauthorised on their face (Capability FAILED) or refused (Governance FAILED), newest first;
 * `kinds` narrows which of these count.
 */
export async function listAttention(
  db: CommonQueryMethods,
  words: GovernanceWords,
  f: { tenantId?: string; kinds: readonly AttentionKind[] } & Page,
): Promise<ExecutionRecord[]> {
  const c = conditionSql(words);
  const reasons: Record<AttentionKind, FragmentSqlToken> = {
    // A literal, not a parameter: the planner can then use the partial index executions_not_success.
    outcome: sql.fragment`outcome <> 'success'`,
    identity: sql.fragment`(${c.identity}) <> 'DEMONSTRATED'`,
    capability: sql.fragment`(${c.capability}) = 'FAILED'`,
    governance: sql.fragment`(${c.governance}) = 'FAILED'`,
  };
  const any = sql.fragment`(${sql.join(
    f.kinds.map((k) => reasons[k]),
    sql.fragment` or `,
  )})`;
  const conditions = [
    ...filterConditions(f.tenantId !== undefined ? { tenantId: f.tenantId } : {}),
    ...(f.beforeSeq !== undefined ? [sql.fragment`seq < ${f.beforeSeq}`] : []),
    any,
  ];
  const rows = await db.any(sql.type(ExecutionRow)`
    select ${EXECUTION_COLUMNS} from executions ${whereAll(conditions)} order by seq desc limit ${f.limit}`);
  return rows.map(asRecord);
}

/** A record as lineage needs it: who, what came of it, and the hashes that link it. */
export interface LineageNode {
  seq: number;
  id: string;
  subject: string;
  outcome: string;
  timestamp: string;
  inputHash: string;
  outputHash: string | null;
}
const LineageRow = rowSchema(
  Type.Object({
    seq: Type.Number(),
    id: Type.String(),
    subject: Type.String(),
    outcome: Type.String(),
    timestamp: Type.String(),
    inputHash: Type.String(),
    outputHash: Type.Union([Type.String(), Type.Null()]),
  }),
);

/**
 * One step of lineage (spec, "Lineage response"): an edge runs from producer to consumer when the
 * consumer's inputHash equals the producer's outputHash and the consumer started no earlier.
 * `downstream`: the consumers of `from` (hash = their outputHash, timestamp = theirs);
 * `upstream`: the producers of `from` (hash = their inputHash). Records in `exclude` are skipped
 * (already reached), at most `limit` are answered, in sequence order. Uses the indexes
 * executions_input_hash and executions_output_hash.
 */
export async function lineageStep(
  db: CommonQueryMethods,
  o: {
    direction: 'upstream' | 'downstream';
    from: readonly { hash: string; timestamp: string }[];
    exclude: readonly string[];
    limit: number;
    tenantId?: string;
  },
): Promise<LineageNode[]> {
  if (o.from.length === 0 || o.limit <= 0) return [];
  const hashes = sql.array(
    o.from.map((f) => f.hash),
    'text',
  );
  const times = sql.array(
    o.from.map((f) => f.timestamp),
    'text',
  );
  const edge = o.direction === 'downstream' ? sql.fragment`e.input_hash = f.h and e.ts >= f.t` : sql.fragment`e.output_hash = f.h and e.ts <= f.t`;
  const tenant = o.tenantId !== undefined ? sql.fragment`and e.tenant_id = ${o.tenantId}` : sql.fragment``;
  const rows = await db.any(sql.type(LineageRow)`
    select distinct e.seq, e.id, e.subject, e.outcome, e.ts as timestamp, e.input_hash as "inputHash", e.output_hash as "outputHash"
    from unnest(${hashes}, ${times}) as f(h, t)
    join executions e on ${edge}
    where not (e.id = any(${sql.array([...o.exclude], 'text')})) ${tenant}
    order by e.seq limit ${o.limit}`);
  return [...rows];
}
