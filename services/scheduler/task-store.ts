import { sql, type CommonQueryMethods } from 'slonik';
import { Type, type Static } from 'typebox';
import { rowLease, rowSchema } from '../../storage/index.ts';
import type { Owner, PriorityName } from './schemas.ts';

/** The shared task queue (migration 001). One function per query; parameters bound. */

/** A worker's lease on a task (storage/row-lease.ts). */
const lease = rowLease('leased_by');

export const PRIORITY_RANK: Readonly<Record<PriorityName, number>> = { high: 0, normal: 1, low: 2 };
const PRIORITY_NAME = ['high', 'normal', 'low'] as const;

export interface NewTask {
  namespace: string;
  id: string;
  priority: PriorityName;
  task: unknown;
  retry: { maxAttempts: number; backoff: 'fixed' | 'exponential'; baseDelay: number };
  timeoutMs: number;
  owner: Owner;
  delayMs: number;
  /** The queuing request's span as a W3C traceparent, for the attempts' links; absent when not traced. */
  traceParent?: string | undefined;
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const TaskRowSchema = Type.Object({
  id: Type.String(),
  state: Type.String(),
  priority: Type.Number(),
  attempts: Type.Number(),
  retry: Type.Unknown(),
  lastError: Nullable(Type.String()),
  lastStatus: Nullable(Type.Number()),
  scheduleId: Nullable(Type.String()),
  dueAt: Nullable(Type.String()),
  createdAt: Type.String(),
  runAfter: Type.String(),
  startedAt: Nullable(Type.String()),
  finishedAt: Nullable(Type.String()),
  updatedAt: Type.String(),
});
type TaskRowValue = Static<typeof TaskRowSchema>;
const TaskRow = rowSchema(TaskRowSchema);
const TASK = sql.fragment`id, state, priority, attempts, retry, last_error as "lastError", last_status as "lastStatus",
  schedule_id as "scheduleId", due_at as "dueAt", created_at as "createdAt", run_after as "runAfter", started_at as "startedAt",
  finished_at as "finishedAt", updated_at as "updatedAt"`;

/** A task as `GET /queue/{id}/status` shows it. */
export function taskView(row: TaskRowValue) {
  const { retry, priority, ...rest } = row;
  return { ...rest, priority: PRIORITY_NAME[priority] ?? 'normal', maxAttempts: (retry as { maxAttempts: number }).maxAttempts };
}
export type TaskViewValue = ReturnType<typeof taskView>;

const OneRow = rowSchema(Type.Object({ one: Type.Number() }));

export interface Firing {
  namespace: string;
  scheduleId: string;
  dueAt: string;
  task: unknown;
  retry: unknown;
  timeoutMs: number;
  owner: unknown;
}

/**
 * One task per firing, runnable at its due time (a firing claimed ahead waits for it);
 * `(namespace, schedule_id, due_at)` is unique, so a firing enqueued twice runs once.
 */
export async function insertFirings(tx: CommonQueryMethods, firings: readonly Firing[]): Promise<number> {
  if (firings.length === 0) return 0;
  const col = <T>(f: (x: Firing) => T) => firings.map(f);
  const result = await tx.query(sql.unsafe`
    insert into scheduler_tasks (namespace, id, priority, task, retry, timeout_ms, owner, schedule_id, due_at, state, run_after)
    select f.namespace, f.schedule_id || '@' || f.due_at, 1, f.task::jsonb, f.retry::jsonb, f.timeout_ms, f.owner::jsonb,
      f.schedule_id, f.due_at::timestamptz, 'queued', greatest(now(), f.due_at::timestamptz)
    from unnest(${sql.array(
      col((x) => x.namespace),
      'text',
    )}, ${sql.array(
      col((x) => x.scheduleId),
      'text',
    )},
      ${sql.array(
        col((x) => x.dueAt),
        'text',
      )}, ${sql.array(
        col((x) => JSON.stringify(x.task)),
        'text',
      )},
      ${sql.array(
        col((x) => JSON.stringify(x.retry)),
        'text',
      )}, ${sql.array(
        col((x) => x.timeoutMs),
        'int4',
      )},
      ${sql.array(
        col((x) => JSON.stringify(x.owner)),
        'text',
      )}) as f(namespace, schedule_id, due_at, task, retry, timeout_ms, owner)
    on conflict do nothing`);
  return result.rowCount;
}

const ClaimedRowSchema = Type.Object({
  namespace: Type.String(),
  id: Type.String(),
  attempts: Type.Number(),
  task: Type.Unknown(),
  retry: Type.Unknown(),
  timeoutMs: Type.Number(),
  owner: Type.Unknown(),
  scheduleId: Nullable(Type.String()),
  dueAt: Nullable(Type.String()),
  waitedMs: Type.Number(),
  traceParent: Nullable(Type.String()),
});
export type ClaimedTask = Static<typeof ClaimedRowSchema>;
const ClaimedRow = rowSchema(ClaimedRowSchema);

/**
 * Take up to `limit` runnable tasks, highest priority first, then oldest runnable first. Locked rows
 * are skipped, so concurrent workers never take the same task; the lease lasts the task's timeout
 * plus `leaseMarginMs`, after which another replica may take it back (the worker is presumed dead).
 */
export async function claimTasks(db: CommonQueryMethods, holder: string, limit: number, leaseMarginMs: number): Promise<ClaimedTask[]> {
  const rows = await db.any(sql.type(ClaimedRow)`
    with picked as (
      select namespace, id from scheduler_tasks
      where state in ('queued', 'retrying') and run_after <= now()
      order by priority, run_after, created_at
      limit ${limit}
      for update skip locked
    )
    update scheduler_tasks t set state = 'running', attempts = t.attempts + 1,
      ${lease.take(holder, sql.fragment`(t.timeout_ms + ${leaseMarginMs}) / 1000.0`)},
      started_at = coalesce(t.started_at, now()), updated_at = now()
    from picked where t.namespace = picked.namespace and t.id = picked.id
    returning t.namespace, t.id, t.attempts, t.task, t.retry, t.timeout_ms as "timeoutMs", t.owner, t.schedule_id as "scheduleId",
      t.due_at as "dueAt", (extract(epoch from (now() - t.run_after)) * 1000)::float8 as "waitedMs", t.trace_parent as "traceParent"`);
  return [...rows];
}

export interface AttemptEnd {
  namespace: string;
  id: string;
  attempt: number;
  holder: string;
  state: 'succeeded' | 'failed' | 'retrying';
  retryInMs?: number;
  lastError: string | null;
  lastStatus: number | null;
}

/**
 * Record how an attempt ended. Fenced by holder and attempt number: a worker whose lease was taken
 * back (it was too slow, or presumed dead) cannot overwrite what the next attempt did. False then.
 */
export async function endAttempt(db: CommonQueryMethods, e: AttemptEnd): Promise<boolean> {
  const finished = e.state === 'retrying' ? sql.fragment`null` : sql.fragment`now()`;
  const row = await db.maybeOne(sql.type(OneRow)`
    update scheduler_tasks set state = ${e.state}, last_error = ${e.lastError}, last_status = ${e.lastStatus},
      run_after = now() + make_interval(secs => ${(e.retryInMs ?? 0) / 1000}), ${lease.cleared},
      finished_at = ${finished}, updated_at = now()
    where namespace = ${e.namespace} and id = ${e.id} and state = 'running' and ${lease.heldBy(e.holder)} and attempts = ${e.attempt}
    returning 1 as one`);
  return row !== null;
}

/** Firings of a schedule enqueued ahead of their due time and not yet run (on pause or delete). */
export async function dropPendingFirings(db: CommonQueryMethods, namespace: string, scheduleId: string): Promise<void> {
  await db.query(sql.unsafe`
    delete from scheduler_tasks where namespace = ${namespace} and schedule_id = ${scheduleId} and state = 'queued' and run_after > now()`);
}

const ReclaimedRow = rowSchema(Type.Object({ namespace: Type.String(), id: Type.String(), state: Type.String(), attempts: Type.Number() }));

/**
 * Tasks whose worker held them past the lease (it died, or its process was killed): back to
 * `retrying`, runnable now, or `dead` when that was the last attempt the retry policy allows.
 */
export async function reclaimExpiredLeases(db: CommonQueryMethods) {
  return db.any(sql.type(ReclaimedRow)`
    with expired as (
      select namespace, id from scheduler_tasks where state = 'running' and ${lease.runOut} for update skip locked
    )
    update scheduler_tasks t set
      state = case when t.attempts >= coalesce((t.retry ->> 'maxAttempts')::int, 3) then 'dead' else 'retrying' end,
      finished_at = case when t.attempts >= coalesce((t.retry ->> 'maxAttempts')::int, 3) then now() else null end,
      last_error = 'the worker running attempt ' || t.attempts || ' stopped answering (lease expired)',
      ${lease.cleared}, run_after = now(), updated_at = now()
    from expired where t.namespace = expired.namespace and t.id = expired.id
    returning t.namespace, t.id, t.state, t.attempts`);
}

export async function getTask(db: CommonQueryMethods, namespace: string, id: string) {
  const row = await db.maybeOne(sql.type(TaskRow)`select ${TASK} from scheduler_tasks where namespace = ${namespace} and id = ${id}`);
  return row === null ? null : taskView(row);
}

const CountRow = rowSchema(Type.Object({ total: Type.Number() }));

export async function listTasks(db: CommonQueryMethods, namespace: string, o: { limit: number; offset: number; state?: string; scheduleId?: string }) {
  const byState = o.state !== undefined ? sql.fragment`and state = ${o.state}` : sql.fragment``;
  // A schedule's firings: the page of one schedule (its own page on the dashboard).
  const state = o.scheduleId !== undefined ? sql.fragment`${byState} and schedule_id = ${o.scheduleId}` : byState;
  const rows = await db.any(sql.type(TaskRow)`
    select ${TASK} from scheduler_tasks where namespace = ${namespace} ${state}
    order by created_at desc, id desc limit ${o.limit} offset ${o.offset}`);
  const total = await db.oneFirst(sql.type(CountRow)`select count(*)::int as total from scheduler_tasks where namespace = ${namespace} ${state}`);
  return { tasks: rows.map(taskView), total };
}

const DepthRow = rowSchema(
  Type.Object({
    high: Type.Number(),
    normal: Type.Number(),
    low: Type.Number(),
    running: Type.Number(),
    oldestWaitingMs: Nullable(Type.Number()),
    holders: Type.Number(),
  }),
);

/** Queue depth by priority (runnable now or later), running tasks, the oldest runnable task's wait. */
export async function queueDepth(db: CommonQueryMethods) {
  return db.one(sql.type(DepthRow)`
    select
      count(*) filter (where state in ('queued', 'retrying') and priority = 0)::int as high,
      count(*) filter (where state in ('queued', 'retrying') and priority = 1)::int as normal,
      count(*) filter (where state in ('queued', 'retrying') and priority = 2)::int as low,
      count(*) filter (where state = 'running')::int as running,
      (extract(epoch from (now() - min(run_after) filter (where state in ('queued', 'retrying') and run_after <= now()))) * 1000)::float8 as "oldestWaitingMs",
      count(distinct leased_by)::int as holders
    from scheduler_tasks where state in ('queued', 'retrying', 'running')`);
}
