import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from '../../storage/index.ts';
import { PRIORITY_RANK, taskView, type NewTask, type TaskViewValue } from './task-store.ts';

/** Caps on unfinished tasks (queued, retrying, running): in total, and per namespace (tenant). */
export interface QueueCaps {
  readonly total: number;
  readonly perTenant: number;
}

export type InsertOutcome = { outcome: 'inserted'; task: TaskViewValue } | { outcome: 'duplicate' } | { outcome: 'full' } | { outcome: 'tenant-full' };

/**
 * Serialises enqueues across every replica (an arbitrary constant naming this lock; no other lock
 * of the suite uses it). Held to the end of the enqueue's transaction.
 */
const ENQUEUE_LOCK = 7_305_041_900_117;

const CountRow = rowSchema(Type.Object({ namespace: Type.String(), n: Type.Number() }));
const AddedRow = rowSchema(Type.Object({ namespace: Type.String(), id: Type.String(), createdAt: Type.String(), runAfter: Type.String() }));

/**
 * Add tasks, in order, each unless the queue then holds `caps.total` unfinished tasks, or its
 * namespace (tenant) `caps.perTenant` (issue 25, finding 6: one tenant filled the shared queue and
 * blocked the others). Never overrun, also by replicas enqueueing at once: the transaction first
 * takes an advisory lock, then counts in a statement of its own (READ COMMITTED takes a snapshot per
 * statement, so this one, after the lock, sees every task committed before: counting in the
 * statement that takes the lock would not do, its snapshot predates the wait), admits tasks in
 * order against the counts, and inserts the admitted ones in one statement. The lock is held to the
 * commit, so enqueues are serialised, one commit at a time: callers batch what arrives together
 * (enqueue-batch.ts), one count, one insert and one WAL flush for all.
 *
 * An admitted task whose id is taken (`duplicate`) still counted against the caps of its batch:
 * at a cap's edge a later task of the same batch may be refused with room left; never admitted past it.
 */
export async function insertTasks(db: CommonQueryMethods, tasks: readonly NewTask[], caps: QueueCaps): Promise<InsertOutcome[]> {
  if (tasks.length === 0) return [];
  return db.transaction(async (tx) => {
    await tx.query(sql.unsafe`select pg_advisory_xact_lock(${ENQUEUE_LOCK})`);
    const counts = new Map<string, number>();
    let total = 0;
    for (const row of await tx.any(sql.type(CountRow)`
      select namespace, count(*)::int8 as n from scheduler_tasks
      where state in ('queued', 'retrying', 'running') group by namespace`)) {
      counts.set(row.namespace, row.n);
      total += row.n;
    }
    const verdicts = tasks.map((t): 'admitted' | 'full' | 'tenant-full' => {
      const mine = counts.get(t.namespace) ?? 0;
      if (mine >= caps.perTenant) return 'tenant-full';
      if (total >= caps.total) return 'full';
      counts.set(t.namespace, mine + 1);
      total++;
      return 'admitted';
    });
    const admitted = tasks.filter((_, i) => verdicts[i] === 'admitted');
    const added = new Map<string, { createdAt: string; runAfter: string }>();
    if (admitted.length > 0) {
      const col = <T>(f: (t: NewTask) => T) => admitted.map(f);
      for (const row of await tx.any(sql.type(AddedRow)`
        insert into scheduler_tasks (namespace, id, priority, task, retry, timeout_ms, owner, state, run_after, trace_parent)
        select t.namespace, t.id, t.priority, t.task::jsonb, t.retry::jsonb, t.timeout_ms, t.owner::jsonb, 'queued',
          now() + make_interval(secs => t.delay_s), t.trace_parent
        from unnest(${sql.array(
          col((t) => t.namespace),
          'text',
        )}, ${sql.array(
          col((t) => t.id),
          'text',
        )},
          ${sql.array(
            col((t) => PRIORITY_RANK[t.priority]),
            'int4',
          )}, ${sql.array(
            col((t) => JSON.stringify(t.task)),
            'text',
          )},
          ${sql.array(
            col((t) => JSON.stringify(t.retry)),
            'text',
          )}, ${sql.array(
            col((t) => t.timeoutMs),
            'int4',
          )},
          ${sql.array(
            col((t) => JSON.stringify(t.owner)),
            'text',
          )}, ${sql.array(
            col((t) => t.delayMs / 1000),
            'float8',
          )},
          ${sql.array(
            col((t) => t.traceParent ?? null),
            'text',
          )})
          as t(namespace, id, priority, task, retry, timeout_ms, owner, delay_s, trace_parent)
        on conflict (namespace, id) do nothing
        returning namespace, id, created_at as "createdAt", run_after as "runAfter"`)) {
        added.set(keyOf(row.namespace, row.id), { createdAt: row.createdAt, runAfter: row.runAfter });
      }
    }
    return tasks.map((t, i): InsertOutcome => {
      const verdict = verdicts[i];
      if (verdict === 'full' || verdict === 'tenant-full') return { outcome: verdict };
      const key = keyOf(t.namespace, t.id);
      const row = added.get(key);
      // The first task of a batch with this id took the row; a later one with the same id is a duplicate.
      if (row === undefined) return { outcome: 'duplicate' };
      added.delete(key);
      return { outcome: 'inserted', task: insertedView(t, row.createdAt, row.runAfter) };
    });
  });
}

/** One task, as `insertTasks` does it. */
export async function insertTask(db: CommonQueryMethods, t: NewTask, caps: QueueCaps): Promise<InsertOutcome> {
  return (await insertTasks(db, [t], caps))[0] as InsertOutcome;
}

const keyOf = (namespace: string, id: string) => `${namespace}\u0000${id}`;

/** The row as inserted (`queued`), before any worker could change it. */
function insertedView(t: NewTask, createdAt: string, runAfter: string): TaskViewValue {
  return taskView({
    id: t.id,
    state: 'queued',
    priority: PRIORITY_RANK[t.priority],
    attempts: 0,
    retry: t.retry,
    lastError: null,
    lastStatus: null,
    scheduleId: null,
    dueAt: null,
    createdAt,
    runAfter,
    startedAt: null,
    finishedAt: null,
    updatedAt: createdAt,
  });
}
