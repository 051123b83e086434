import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { rowSchema } from '../../../storage/index.ts';
import { AppealSchema, EventSchema, type Appeal, type TrustEvent } from '../schemas.ts';
import { Type } from 'typebox';
import { newId, tenantAnd } from './common.ts';

/** Trust events, the subjects they name, and appeals (migration 001). */

const EventRow = rowSchema(EventSchema);
const EVENT = sql.fragment`id, subject_id as "subjectId", subject_type as "subjectType", kind, summary, proof,
  recorded_by as "recordedBy", recorded_at as "recordedAt"`;
const AppealRow = rowSchema(AppealSchema);
const APPEAL = sql.fragment`id, event_id as "eventId", reason, appellant, state, created_at as "createdAt",
  decided_at as "decidedAt", decided_by as "decidedBy", decision_reason as "decisionReason"`;
const TypeRow = rowSchema(Type.Object({ subjectType: Type.String() }));

export interface NewEvent {
  tenantId: string | null;
  subjectId: string;
  subjectType: string;
  kind: string;
  summary: string | null;
  proof: Record<string, string>;
  recordedBy: string;
}

/**
 * Record an event, and its subject's type on first sight. Null when the subject is already recorded
 * as another type (a subject has one type; the caller is told which).
 */
export async function insertEvent(pool: DatabasePool, e: NewEvent): Promise<{ event: TrustEvent } | { conflict: string }> {
  return pool.transaction(async (tx) => {
    const key = e.tenantId ?? '';
    await tx.query(sql.unsafe`insert into trust_subjects (tenant_key, subject_id, subject_type) values (${key}, ${e.subjectId}, ${e.subjectType})
      on conflict (tenant_key, subject_id) do nothing`);
    const known = await tx.oneFirst(
      sql.type(TypeRow)`select subject_type as "subjectType" from trust_subjects where tenant_key = ${key} and subject_id = ${e.subjectId}`,
    );
    if (known !== e.subjectType) return { conflict: known };
    const event = await tx.one(sql.type(EventRow)`
      insert into trust_events (id, tenant_id, subject_id, subject_type, kind, summary, proof, recorded_by)
      values (${newId('evt')}, ${e.tenantId}, ${e.subjectId}, ${e.subjectType}, ${e.kind}, ${e.summary}, ${sql.jsonb(e.proof)}, ${e.recordedBy})
      returning ${EVENT}`);
    return { event };
  });
}

/** The type a subject was first recorded as, for this tenant (any tenant's, for a caller without one). */
export async function subjectType(db: CommonQueryMethods, subjectId: string, tenantId: string | undefined): Promise<string | null> {
  const tenant = tenantId === undefined ? sql.fragment`` : sql.fragment`and tenant_key = ${tenantId}`;
  return db.maybeOneFirst(sql.type(TypeRow)`select subject_type as "subjectType" from trust_subjects where subject_id = ${subjectId} ${tenant}
    order by first_seen_at limit 1`);
}

export async function eventsOf(db: CommonQueryMethods, subjectId: string, tenantId: string | undefined, limit: number): Promise<TrustEvent[]> {
  return [
    ...(await db.any(sql.type(EventRow)`select ${EVENT} from trust_events where subject_id = ${subjectId} ${tenantAnd(tenantId)}
    order by recorded_at, id limit ${limit}`)),
  ];
}

export async function getEvent(db: CommonQueryMethods, id: string, tenantId: string | undefined): Promise<TrustEvent | null> {
  return db.maybeOne(sql.type(EventRow)`select ${EVENT} from trust_events where id = ${id} ${tenantAnd(tenantId)}`);
}

/** Null when the event already has a pending appeal (one at a time). */
export async function insertAppeal(
  db: CommonQueryMethods,
  a: { eventId: string; tenantId: string | null; reason: string; appellant: string },
): Promise<Appeal | null> {
  return db.maybeOne(sql.type(AppealRow)`
    insert into trust_appeals (id, event_id, tenant_id, reason, appellant) values (${newId('apl')}, ${a.eventId}, ${a.tenantId}, ${a.reason}, ${a.appellant})
    on conflict (event_id) where state = 'pending' do nothing
    returning ${APPEAL}`);
}

export async function appealsOf(db: CommonQueryMethods, eventIds: readonly string[]): Promise<Appeal[]> {
  if (eventIds.length === 0) return [];
  return [
    ...(await db.any(sql.type(AppealRow)`select ${APPEAL} from trust_appeals where event_id = any(${sql.array([...eventIds], 'text')})
    order by created_at, id`)),
  ];
}

export async function getAppeal(db: CommonQueryMethods, id: string, tenantId: string | undefined): Promise<Appeal | null> {
  return db.maybeOne(sql.type(AppealRow)`select ${APPEAL} from trust_appeals where id = ${id} ${tenantAnd(tenantId)}`);
}

/** Decide a pending appeal; null when it is no longer pending (someone decided it first). */
export async function decideAppeal(db: CommonQueryMethods, d: { id: string; decision: string; reason: string; by: string }): Promise<Appeal | null> {
  return db.maybeOne(sql.type(AppealRow)`
    update trust_appeals set state = ${d.decision}, decided_at = now(), decided_by = ${d.by}, decision_reason = ${d.reason}
    where id = ${d.id} and state = 'pending' returning ${APPEAL}`);
}

const SubjectRow = rowSchema(Type.Object({ subjectId: Type.String() }));
/** Agents with at least one event, by name, after `after` (keyset page). */
export async function agentsPage(db: CommonQueryMethods, tenantId: string | undefined, limit: number): Promise<string[]> {
  const tenant = tenantId === undefined ? sql.fragment`` : sql.fragment`and tenant_key = ${tenantId}`;
  const rows = await db.any(sql.type(SubjectRow)`select distinct subject_id as "subjectId" from trust_subjects where subject_type = 'agent' ${tenant}
    order by subject_id limit ${limit}`);
  return rows.map((r) => r.subjectId);
}

const ExistsRow = rowSchema(Type.Object({ id: Type.String() }));
/** Whether an audit entry exists on the spine's audit chain, within the caller's tenant when it has one. */
export async function auditEntryExists(db: CommonQueryMethods, id: string, tenantId: string | undefined): Promise<boolean> {
  const row = await db.maybeOne(sql.type(ExistsRow)`select id from audit_entries where id = ${id} ${tenantAnd(tenantId)}`);
  return row !== null;
}

/** The events of a subject with the appeals that were upheld against them, for scoring (at most `limit`). */
export async function upheldEventIds(db: CommonQueryMethods, eventIds: readonly string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const rows = await db.any(sql.type(rowSchema(Type.Object({ eventId: Type.String() })))`select distinct event_id as "eventId" from trust_appeals
    where state = 'upheld' and event_id = any(${sql.array([...eventIds], 'text')})`);
  return new Set(rows.map((r) => r.eventId));
}
