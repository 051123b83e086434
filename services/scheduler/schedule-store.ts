import { sql, type CommonQueryMethods } from 'slonik';
import { Type, type Static } from 'typebox';
import { rowSchema } from '../../storage/index.ts';
import type { Owner } from './schemas.ts';

/** Schedules (migration 001). One function per query; parameters bound; the namespace scopes every read. */

export interface NewSchedule {
  namespace: string;
  id: string;
  cron: string;
  timezone: string | null;
  task: unknown;
  retry: { maxAttempts: number; backoff: 'fixed' | 'exponential'; baseDelay: number };
  timeoutMs: number;
  owner: Owner;
  nextRunAt: string | null;
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const ScheduleRowSchema = Type.Object({
  id: Type.String(),
  cron: Type.String(),
  timezone: Nullable(Type.String()),
  task: Type.Unknown(),
  retry: Type.Unknown(),
  timeout: Type.Number(),
  state: Type.Union([Type.Literal('active'), Type.Literal('paused')]),
  nextRun: Nullable(Type.String()),
  lastFiredAt: Nullable(Type.String()),
  firings: Type.Number(),
  createdAt: Type.String(),
});
export type ScheduleRowValue = Static<typeof ScheduleRowSchema>;
const ScheduleRow = rowSchema(ScheduleRowSchema);
const SCHEDULE = sql.fragment`id, cron, timezone, task, retry, timeout_ms as timeout, state, next_run_at as "nextRun",
  last_fired_at as "lastFiredAt", firings, created_at as "createdAt"`;
const CountRow = rowSchema(Type.Object({ total: Type.Number() }));

/** False when the id is taken in this namespace (the caller answers 409). */
export async function insertSchedule(db: CommonQueryMethods, s: NewSchedule): Promise<boolean> {
  const row = await db.maybeOne(sql.type(CountRow)`
    insert into scheduler_schedules (namespace, id, cron, timezone, task, retry, timeout_ms, owner, state, next_run_at)
    values (${s.namespace}, ${s.id}, ${s.cron}, ${s.timezone}, ${sql.jsonb(s.task as never)}, ${sql.jsonb(s.retry)},
      ${s.timeoutMs}, ${sql.jsonb(s.owner)}, 'active', ${s.nextRunAt})
    on conflict (namespace, id) do nothing
    returning 1 as total`);
  return row !== null;
}

export async function listSchedules(
  db: CommonQueryMethods,
  namespace: string,
  limit: number,
  offset: number,
): Promise<{ rows: ScheduleRowValue[]; total: number }> {
  const rows = await db.any(sql.type(ScheduleRow)`
    select ${SCHEDULE} from scheduler_schedules where namespace = ${namespace} order by created_at, id limit ${limit} offset ${offset}`);
  const total = await db.oneFirst(sql.type(CountRow)`select count(*)::int as total from scheduler_schedules where namespace = ${namespace}`);
  return { rows: [...rows], total };
}

export async function getSchedule(db: CommonQueryMethods, namespace: string, id: string): Promise<ScheduleRowValue | null> {
  return db.maybeOne(sql.type(ScheduleRow)`select ${SCHEDULE} from scheduler_schedules where namespace = ${namespace} and id = ${id}`);
}

export async function deleteSchedule(db: CommonQueryMethods, namespace: string, id: string): Promise<boolean> {
  const row = await db.maybeOne(sql.type(CountRow)`delete from scheduler_schedules where namespace = ${namespace} and id = ${id} returning 1 as total`);
  return row !== null;
}

export const ScheduleDefinitionRow = rowSchema(Type.Object({ cron: Type.String(), timezone: Nullable(Type.String()), state: Type.String() }));

/** The row locked for a state change (pause, resume), or null. */
export async function lockSchedule(db: CommonQueryMethods, namespace: string, id: string) {
  return db.maybeOne(sql.type(ScheduleDefinitionRow)`
    select cron, timezone, state from scheduler_schedules where namespace = ${namespace} and id = ${id} for update`);
}

export async function setScheduleState(
  db: CommonQueryMethods,
  namespace: string,
  id: string,
  state: 'active' | 'paused',
  nextRunAt: string | null,
): Promise<ScheduleRowValue | null> {
  return db.maybeOne(sql.type(ScheduleRow)`
    update scheduler_schedules set state = ${state}, next_run_at = ${nextRunAt}, updated_at = now()
    where namespace = ${namespace} and id = ${id} returning ${SCHEDULE}`);
}

const DueRowSchema = Type.Object({
  namespace: Type.String(),
  id: Type.String(),
  cron: Type.String(),
  timezone: Nullable(Type.String()),
  task: Type.Unknown(),
  retry: Type.Unknown(),
  timeoutMs: Type.Number(),
  owner: Type.Unknown(),
  dueAt: Type.String(),
  now: Type.String(),
  latenessMs: Type.Number(),
});
export type DueSchedule = Static<typeof DueRowSchema>;
const DueRow = rowSchema(DueRowSchema);

/**
 * Schedules due now or within `lookaheadMs`, locked for this transaction; rows another replica holds
 * are skipped, so each firing is claimed by exactly one replica (it advances `next_run_at` before it
 * commits). `latenessMs` is negative for a firing claimed ahead of its due time.
 */
export async function claimDueSchedules(tx: CommonQueryMethods, limit: number, lookaheadMs: number): Promise<DueSchedule[]> {
  const rows = await tx.any(sql.type(DueRow)`
    select namespace, id, cron, timezone, task, retry, timeout_ms as "timeoutMs", owner, next_run_at as "dueAt",
      now() as now, (extract(epoch from (clock_timestamp() - next_run_at)) * 1000)::float8 as "latenessMs"
    from scheduler_schedules
    where state = 'active' and next_run_at <= now() + make_interval(secs => ${lookaheadMs / 1000})
    order by next_run_at
    limit ${limit}
    for update skip locked`);
  return [...rows];
}

/** Move each claimed schedule to its next run (null: it never fires again) and count the firing. */
export async function advanceSchedules(tx: CommonQueryMethods, moves: readonly { namespace: string; id: string; next: string | null }[]): Promise<void> {
  if (moves.length === 0) return;
  await tx.query(sql.unsafe`
    update scheduler_schedules s set next_run_at = m.next::timestamptz, last_fired_at = now(), firings = s.firings + 1, updated_at = now()
    from unnest(${sql.array(
      moves.map((m) => m.namespace),
      'text',
    )}, ${sql.array(
      moves.map((m) => m.id),
      'text',
    )},
      ${sql.array(
        moves.map((m) => m.next),
        'text',
      )}) as m(namespace, id, next)
    where s.namespace = m.namespace and s.id = m.id`);
}

const NextRow = rowSchema(Type.Object({ next: Nullable(Type.String()) }));

/** The earliest run of any active schedule, so the ticker can sleep until then. */
export async function earliestNextRun(db: CommonQueryMethods): Promise<string | null> {
  return db.oneFirst(sql.type(NextRow)`select min(next_run_at) as next from scheduler_schedules where state = 'active'`);
}
