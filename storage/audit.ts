import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';
import { insertMovingHead, readChainHead, type HeadMove } from './chains.ts';
import { auditCanonicalJson, type AuditRecord } from '../core/chain/index.ts';

/** The audit chain's table (migration 001). */

/** An entry as the writer inserts it: the record and, when the writer has it, the canonical JSON it hashed. */
export type NewAuditEntry = AuditRecord & { canonical?: string };

/**
 * The insert of a group commit (storage/chains.ts insertMovingHead): the batch arrives as ONE json
 * parameter, an array of the entries' canonical JSON objects (the bytes that were hashed,
 * `auditCanonicalJson`) with `hash` added, so Node serialises nothing twice.
 */
const insertStatement = (batch: string) => sql.fragment`
  insert into audit_entries (seq, id, ts, subject, action, resource, result, reason, tenant_id, prev_hash, hash)
  select seq, id, "timestamp", subject, action, resource, result, reason, "tenantId", "prevHash", hash
  from json_to_recordset(${batch}::json) as r(seq int8, id text, "timestamp" text, subject text, action text,
    resource text, result text, reason text, "tenantId" text, "prevHash" text, hash text)`;

/** Answers the rows inserted: none when `move` could not move the head. */
export async function insertAuditEntries(db: CommonQueryMethods, records: readonly NewAuditEntry[], move?: HeadMove): Promise<number> {
  if (records.length === 0) return 0;
  let batch = '[';
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as NewAuditEntry;
    batch += `${i === 0 ? '' : ','}{"hash":${JSON.stringify(r.hash)},${(r.canonical ?? auditCanonicalJson(r)).slice(1)}`;
  }
  return insertMovingHead(db, 'suite_insert_audit', insertStatement(`${batch}]`), move);
}

export interface AuditFilter {
  limit: number;
  offset: number;
  subject?: string;
  result?: 'allow' | 'deny';
  /** ISO-8601 UTC, inclusive. */
  from?: string;
  /** ISO-8601 UTC, inclusive. */
  to?: string;
  /** When set, only this tenant's entries (a tenant never reads another's). */
  tenantId?: string;
}

// Column aliases give rows the record's own field names, so a row is an AuditRecord as it stands.
const COLUMNS = sql.fragment`seq, id, ts as timestamp, subject, action, resource, result, reason,
  tenant_id as "tenantId", prev_hash as "prevHash", hash`;

const AuditRow = rowSchema(
  Type.Object({
    seq: Type.Number(),
    id: Type.String(),
    timestamp: Type.String(),
    subject: Type.String(),
    action: Type.String(),
    resource: Type.String(),
    result: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
    reason: Type.String(),
    tenantId: Type.Union([Type.String(), Type.Null()]),
    prevHash: Type.String(),
    hash: Type.String(),
  }),
);
const CountRow = rowSchema(Type.Object({ n: Type.Number() }));

/** Newest first, with the total count of entries matching the filter. */
export async function listAuditEntries(db: CommonQueryMethods, f: AuditFilter): Promise<{ entries: AuditRecord[]; total: number }> {
  const conditions = [
    f.subject !== undefined ? sql.fragment`subject = ${f.subject}` : null,
    f.result !== undefined ? sql.fragment`result = ${f.result}` : null,
    f.from !== undefined ? sql.fragment`ts >= ${f.from}` : null,
    f.to !== undefined ? sql.fragment`ts <= ${f.to}` : null,
    f.tenantId !== undefined ? sql.fragment`tenant_id = ${f.tenantId}` : null,
  ].filter((c) => c !== null);
  const where = conditions.length ? sql.fragment`where ${sql.join(conditions, sql.fragment` and `)}` : sql.fragment``;
  const entries = await db.any(sql.type(AuditRow)`
    select ${COLUMNS} from audit_entries ${where} order by seq desc limit ${f.limit} offset ${f.offset}`);
  const total =
    conditions.length === 0 ? await auditChainLength(db) : await db.oneFirst(sql.type(CountRow)`select count(*)::int8 as n from audit_entries ${where}`);
  return { entries: [...entries], total };
}

/**
 * How many entries the audit chain holds: its head's sequence number, less the entries pruned under
 * retention (migration 012). Entries are appended with gapless sequence numbers from 1, the head
 * moving in the same statement, and deleted only by the pruner, which leaves a tombstone for each:
 * so this is the count of rows, read without `count(*)` over every entry, on every page an auditor
 * turns (a chain grows by an entry per decision); only the tombstones are counted.
 */
async function auditChainLength(db: CommonQueryMethods): Promise<number> {
  const head = (await readChainHead(db, 'audit'))?.seq ?? 0;
  return head === 0 ? 0 : head - (await db.oneFirst(sql.type(CountRow)`select count(*)::int8 as n from audit_pruned`));
}

/** One page of the chain in sequence order, for streaming verification. */
export async function auditPageAfter(db: CommonQueryMethods, afterSeq: number, limit: number): Promise<AuditRecord[]> {
  const rows = await db.any(sql.type(AuditRow)`
    select ${COLUMNS} from audit_entries where seq > ${afterSeq} order by seq asc limit ${limit}`);
  return [...rows];
}

const IdRow = rowSchema(Type.Object({ id: Type.String(), seq: Type.Number(), hash: Type.String() }));

/** Entries already in the chain among these ids (a retried append must not write them again). */
export async function findAuditIds(db: CommonQueryMethods, ids: readonly string[]): Promise<Map<string, { id: string; seq: number; hash: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await db.any(sql.type(IdRow)`select id, seq, hash from audit_entries where id = any(${sql.array([...ids], 'text')})`);
  return new Map(rows.map((r) => [r.id, r]));
}

const OutboxRow = rowSchema(Type.Object({ entry: Type.Unknown() }));

/**
 * The audit outbox (migration 013) swept by the audit chain's leader: rows older than `olderThanMs`
 * whose entry the chain has are deleted (an edge sent it, the usual case), and the entries of the
 * others, oldest first (at most `limit`), are answered for the chain to append: their edge committed
 * the record and died before sending them. One statement: a sweep of an empty outbox writes nothing.
 */
export async function sweepAuditOutbox(db: CommonQueryMethods, olderThanMs: number, limit: number): Promise<unknown[]> {
  const rows = await db.any(sql.type(OutboxRow)`
    with old as (select id, entry from audit_outbox where created_at < now() - make_interval(secs => ${olderThanMs / 1000})),
    delivered as (delete from audit_outbox o using old where o.id = old.id and exists (select 1 from audit_entries a where a.id = old.id))
    select entry from old where not exists (select 1 from audit_entries a where a.id = old.id)
    order by entry ->> 'timestamp' limit ${limit}`);
  return rows.map((r) => r.entry);
}

/** Outbox rows whose entries the chain now has (appended by a sweep). */
export async function deleteAuditOutbox(db: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`delete from audit_outbox where id = any(${sql.array([...ids], 'text')})`);
}
