import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from '../../storage/index.ts';

/** Ended attempts of tasks (migration 002), for a task's history. */

export interface EndedAttempt {
  namespace: string;
  taskId: string;
  attempt: number;
  startedAt: string;
  outcome: string;
  status: number | null;
  error: string | null;
  traceId: string | null;
}

/** In the transaction that ends the attempt: a retried commit of the same attempt changes nothing. */
export async function insertAttempt(db: CommonQueryMethods, a: EndedAttempt): Promise<void> {
  await db.query(sql.unsafe`
    insert into scheduler_attempts (namespace, task_id, attempt, started_at, outcome, status, error, trace_id)
    values (${a.namespace}, ${a.taskId}, ${a.attempt}, ${a.startedAt}, ${a.outcome}, ${a.status}, ${a.error}, ${a.traceId})
    on conflict do nothing`);
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const AttemptRow = rowSchema(
  Type.Object({
    attempt: Type.Number(),
    startedAt: Type.String(),
    endedAt: Type.String(),
    outcome: Type.String(),
    status: Nullable(Type.Number()),
    error: Nullable(Type.String()),
    traceId: Nullable(Type.String()),
  }),
);

/** A task's ended attempts, first to last. A task has at most its retry policy's attempts (at most 20). */
export async function listAttempts(db: CommonQueryMethods, namespace: string, taskId: string) {
  const rows = await db.any(sql.type(AttemptRow)`
    select attempt, started_at as "startedAt", ended_at as "endedAt", outcome, status, error, trace_id as "traceId"
    from scheduler_attempts where namespace = ${namespace} and task_id = ${taskId} order by attempt`);
  return [...rows];
}
