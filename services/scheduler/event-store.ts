import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from '../../storage/index.ts';

/** What the scheduler did (`GET /runtime/logs`). Details never hold bodies or header values. */

export interface NewEvent {
  namespace: string;
  kind: string;
  taskId?: string | null;
  scheduleId?: string | null;
  attempt?: number | null;
  detail: string;
}

export async function insertEvents(db: CommonQueryMethods, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const col = <T>(f: (e: NewEvent) => T) => events.map(f);
  await db.query(sql.unsafe`
    insert into scheduler_events (namespace, kind, task_id, schedule_id, attempt, detail)
    select * from unnest(${sql.array(
      col((e) => e.namespace),
      'text',
    )}, ${sql.array(
      col((e) => e.kind),
      'text',
    )},
      ${sql.array(
        col((e) => e.taskId ?? null),
        'text',
      )}, ${sql.array(
        col((e) => e.scheduleId ?? null),
        'text',
      )},
      ${sql.array(
        col((e) => e.attempt ?? null),
        'int4',
      )}, ${sql.array(
        col((e) => e.detail.slice(0, 1000)),
        'text',
      )})`);
}

const EventRow = rowSchema(
  Type.Object({
    seq: Type.Number(),
    at: Type.String(),
    kind: Type.String(),
    taskId: Type.Union([Type.String(), Type.Null()]),
    scheduleId: Type.Union([Type.String(), Type.Null()]),
    attempt: Type.Union([Type.Number(), Type.Null()]),
    detail: Type.String(),
  }),
);

/** Newest first; `before` pages back (the `next` of the previous page). */
export async function listEvents(db: CommonQueryMethods, namespace: string, limit: number, before?: number) {
  const page = before !== undefined ? sql.fragment`and seq < ${before}` : sql.fragment``;
  const rows = await db.any(sql.type(EventRow)`
    select seq, at, kind, task_id as "taskId", schedule_id as "scheduleId", attempt, detail
    from scheduler_events where namespace = ${namespace} ${page} order by seq desc limit ${limit}`);
  return { events: [...rows], next: rows.length === limit ? rows[rows.length - 1]!.seq : null };
}
