import type { CommonQueryMethods } from 'slonik';
import { SuiteError } from '../../../../bus/index.ts';
import type { RequestOf } from '../../../../bus/index.ts';
import type { subjects } from '../../../../bus/index.ts';
import { getExecutionOf, listAttention, listExecutions, type ExecutionFilter } from '../../../../storage/index.ts';
import type { ExecutionRecord } from '../../../../core/chain/index.ts';
import { attentionReasons } from '../../../../core/assessment/index.ts';
import { assessConditions, CONDITION_RULES } from '../../../../core/assessment/index.ts';
import { encodeCursor, seqCursor } from './cursor.ts';
import { explainRecord } from '../../../../core/assessment/index.ts';
import { LINEAGE_MEANING, walkLineage } from './lineage.ts';

/** Reads of records (lists, and one record's read models); each throws SuiteError data on refusal. */

/**
 * A page answer stays well under a bus message's size (NATS allows 1 MB by default) whatever the
 * records hold: a page ends early, with a cursor, once its records pass this many bytes of JSON.
 */
const PAGE_BYTES = 256 * 1024;

const tenantOf = (d: { tenantId?: string | undefined }) => (d.tenantId !== undefined ? { tenantId: d.tenantId } : {});

/** Newest first; `limit + 1` read to know whether a next page exists. */
function paged<T extends { seq: number }>(rows: readonly T[], limit: number, route: 'list' | 'attention') {
  const page: T[] = [];
  let bytes = 0;
  for (const r of rows.slice(0, limit)) {
    bytes += Buffer.byteLength(JSON.stringify(r));
    if (page.length > 0 && bytes > PAGE_BYTES) break;
    page.push(r);
  }
  const more = rows.length > page.length;
  return { page, nextCursor: more ? encodeCursor(route, (page[page.length - 1] as T).seq) : null };
}

export async function listRecords(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsList>) {
  const f: ExecutionFilter = { ...tenantOf(d) };
  for (const k of ['subject', 'outcome', 'module', 'action', 'from', 'to'] as const) if (d[k] !== undefined) f[k] = d[k];
  const before = seqCursor('list', d.cursor);
  const rows = await listExecutions(db, { ...f, limit: d.limit + 1, ...(before !== undefined ? { beforeSeq: before } : {}) });
  const { page, nextCursor } = paged(rows, d.limit, 'list');
  return { records: page, nextCursor };
}

export async function listNeedingAttention(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsAttention>) {
  const before = seqCursor('attention', d.cursor);
  const rows = await listAttention(db, CONDITION_RULES, {
    ...tenantOf(d),
    kinds: d.kinds,
    limit: d.limit + 1,
    ...(before !== undefined ? { beforeSeq: before } : {}),
  });
  const items = rows.map((r) => ({
    id: r.id,
    seq: r.seq,
    timestamp: r.timestamp,
    subject: r.subject,
    module: r.module,
    action: r.action,
    outcome: r.outcome,
    reasons: attentionReasons(r, d.kinds),
  }));
  const { page, nextCursor } = paged(items, d.limit, 'attention');
  return { records: page, nextCursor };
}

async function recordOf(db: CommonQueryMethods, d: { id: string; tenantId?: string | undefined }): Promise<ExecutionRecord> {
  // Another tenant's record answers as an unknown one: its existence is not disclosed.
  const r = await getExecutionOf(db, d.id, d.tenantId);
  if (!r) throw new SuiteError('NOT_FOUND', 'no execution with this id');
  return r;
}

export async function conditionsOf(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsConditions>) {
  const r = await recordOf(db, d);
  return { id: r.id, seq: r.seq, ...assessConditions(r) };
}

export async function explanationOf(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsExplain>) {
  const r = await recordOf(db, d);
  return { id: r.id, seq: r.seq, ...explainRecord(r) };
}

export const REPLAY_METHOD =
  'SHA-256 (lowercase hex) of the RFC 8785 canonical JSON of the value, exactly as POST /executions hashed ' +
  'input and output. POST {"input": ..., "output": ...} (either or both) to this route to compare a candidate: it is hashed on ' +
  'arrival and dropped, never stored or logged. Or compute the hash yourself (docs/TRACE-FORMAT.md) and compare it with inputHash and outputHash.';

export async function replayOf(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsReplay>) {
  const r = await recordOf(db, d);
  const inputMatches = d.candidateInputHash === undefined ? null : d.candidateInputHash === r.inputHash;
  const outputMatches = d.candidateOutputHash === undefined || r.outputHash === null ? null : d.candidateOutputHash === r.outputHash;
  const said = (what: string, matches: boolean | null, given: boolean, stored: boolean) => {
    if (!given) return `No candidate ${what} was given.`;
    if (!stored) return `The record has no ${what} hash to compare with.`;
    return matches
      ? `The candidate ${what} is the recorded ${what}: its hash matches.`
      : `The candidate ${what} is not the recorded ${what}: its hash differs.`;
  };
  return {
    id: r.id,
    inputHash: r.inputHash,
    outputHash: r.outputHash,
    candidateInputHash: d.candidateInputHash ?? null,
    candidateOutputHash: d.candidateOutputHash ?? null,
    inputMatches,
    outputMatches,
    method: REPLAY_METHOD,
    conclusion: `${said('input', inputMatches, d.candidateInputHash !== undefined, true)} ${said('output', outputMatches, d.candidateOutputHash !== undefined, r.outputHash !== null)}`,
  };
}

export async function lineageOf(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsLineage>) {
  const r = await recordOf(db, d);
  const o = { depth: d.depth, limit: d.limit, ...tenantOf(d) };
  const upstream = await walkLineage(db, r, { ...o, direction: 'upstream' });
  const downstream = await walkLineage(db, r, { ...o, direction: 'downstream' });
  return {
    id: r.id,
    inheritedFailures: upstream.records.filter((u) => u.outcome !== 'success'),
    upstream: { count: upstream.count, maxDepth: upstream.maxDepth, truncated: upstream.truncated },
    blastRadius: downstream,
    meaning: LINEAGE_MEANING,
  };
}
