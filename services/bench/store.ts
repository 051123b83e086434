import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowLease, rowSchema } from '../../storage/index.ts';
import type { JobStatus, JobViewData, ProviderName } from './subjects.ts';

/** The benchmark service's tables (migrations/001). One function per query; parameters bound. */

/** A runner's claim on a job (storage/row-lease.ts). */
const lease = rowLease('claimed_by');

/** Who may see which jobs: a tenant its own, an untenanted caller the untenanted ones, the admin all. */
export type JobScope = { readonly all: true } | { readonly all: false; readonly tenantId: string | null };

/** What a runner needs to call the target; stored with the job, never shown by a read. */
export interface JobRequest {
  url: string | null;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  prompt?: string;
  maxTokens?: number;
}

export interface JobSettings {
  testRuns: number;
  warmupRuns: number;
  concurrency: number;
}

export interface NewJob {
  id: string;
  tenantId: string | null;
  createdBy: string;
  name: string | null;
  provider: ProviderName;
  model: string | null;
  target: string | null;
  request: JobRequest;
  settings: JobSettings;
  /** The submitting request's span as a W3C traceparent, for the run's link; absent when not traced. */
  traceParent?: string | undefined;
}

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const ViewRow = rowSchema(
  Type.Object({
    jobId: Type.String(),
    name: Nullable(Type.String()),
    provider: Type.String(),
    model: Nullable(Type.String()),
    target: Nullable(Type.String()),
    status: Type.String(),
    progressDone: Type.Number(),
    progressTotal: Type.Number(),
    settings: Type.Object({ testRuns: Type.Number(), warmupRuns: Type.Number(), concurrency: Type.Number() }),
    attempts: Type.Number(),
    createdAt: Type.String(),
    startedAt: Nullable(Type.String()),
    finishedAt: Nullable(Type.String()),
    result: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
    tenantId: Nullable(Type.String()),
  }),
);
interface ViewRowShape {
  jobId: string;
  name: string | null;
  provider: string;
  model: string | null;
  target: string | null;
  status: string;
  progressDone: number;
  progressTotal: number;
  settings: JobSettings;
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  tenantId: string | null;
}
const VIEW = sql.fragment`id as "jobId", name, provider, model, target, status, progress_done as "progressDone",
  progress_total as "progressTotal", settings, attempts, to_json(created_at)#>>'{}' as "createdAt",
  to_json(started_at)#>>'{}' as "startedAt", to_json(finished_at)#>>'{}' as "finishedAt", result, error,
  tenant_id as "tenantId"`;

export function viewOf(row: ViewRowShape): JobViewData & { tenantId: string | null } {
  return {
    jobId: row.jobId,
    name: row.name,
    provider: row.provider as ProviderName,
    model: row.model,
    target: row.target,
    status: row.status as JobStatus,
    progress: { done: row.progressDone, total: row.progressTotal },
    settings: row.settings,
    attempts: row.attempts,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    result: row.result,
    error: row.error,
    tenantId: row.tenantId,
  };
}

const scopeSql = (scope: JobScope) =>
  scope.all ? sql.fragment`true` : scope.tenantId === null ? sql.fragment`tenant_id is null` : sql.fragment`tenant_id = ${scope.tenantId}`;

export async function insertJob(db: CommonQueryMethods, job: NewJob): Promise<void> {
  const total = job.settings.warmupRuns + job.settings.testRuns;
  await db.query(sql.unsafe`
    insert into bench_jobs (id, tenant_id, created_by, name, provider, model, target, request, settings, status, progress_total, trace_parent)
    values (${job.id}, ${job.tenantId}, ${job.createdBy}, ${job.name}, ${job.provider}, ${job.model}, ${job.target},
      ${sql.jsonb({ ...job.request } as never)}, ${sql.jsonb({ ...job.settings })}, 'queued', ${total}, ${job.traceParent ?? null})`);
}

export async function getJob(db: CommonQueryMethods, id: string, scope: JobScope) {
  const row = await db.maybeOne(sql.type(ViewRow)`select ${VIEW} from bench_jobs where id = ${id} and ${scopeSql(scope)}`);
  return row === null ? null : viewOf(row);
}

/** The newest job of a name (any state: the caller is told when it has not finished). */
export async function latestJobNamed(db: CommonQueryMethods, name: string, scope: JobScope) {
  const row = await db.maybeOne(sql.type(ViewRow)`
    select ${VIEW} from bench_jobs where name = ${name} and ${scopeSql(scope)} order by created_at desc, id desc limit 1`);
  return row === null ? null : viewOf(row);
}

export interface HistoryFilter {
  name?: string;
  provider?: string;
  model?: string;
}

export async function listJobs(db: CommonQueryMethods, scope: JobScope, filter: HistoryFilter, limit: number, offset: number) {
  const where = sql.join(
    [
      scopeSql(scope),
      ...(filter.name !== undefined ? [sql.fragment`name = ${filter.name}`] : []),
      ...(filter.provider !== undefined ? [sql.fragment`provider = ${filter.provider}`] : []),
      ...(filter.model !== undefined ? [sql.fragment`model = ${filter.model}`] : []),
    ],
    sql.fragment` and `,
  );
  const rows = await db.any(sql.type(ViewRow)`
    select ${VIEW} from bench_jobs where ${where} order by created_at desc, id desc limit ${limit} offset ${offset}`);
  const total = await db.oneFirst(sql.type(rowSchema(Type.Object({ total: Type.Number() })))`
    select count(*)::int8 as total from bench_jobs where ${where}`);
  return { runs: rows.map(viewOf), total };
}

const ClaimedRow = rowSchema(
  Type.Object({
    id: Type.String(),
    tenantId: Nullable(Type.String()),
    provider: Type.String(),
    model: Nullable(Type.String()),
    request: Type.Record(Type.String(), Type.Unknown()),
    settings: Type.Object({ testRuns: Type.Number(), warmupRuns: Type.Number(), concurrency: Type.Number() }),
    attempts: Type.Number(),
    traceParent: Nullable(Type.String()),
  }),
);

export interface ClaimedJob {
  id: string;
  tenantId: string | null;
  provider: ProviderName;
  model: string | null;
  request: JobRequest;
  settings: JobSettings;
  attempts: number;
  traceParent: string | null;
}

/**
 * Fail the jobs whose runner died on their last allowed attempt: a job is never left `running`
 * without a live runner. Returns the ids failed (for the progress event).
 */
export async function failAbandonedJobs(db: CommonQueryMethods, maxAttempts: number): Promise<string[]> {
  const rows = await db.anyFirst(sql.type(rowSchema(Type.Object({ id: Type.String() })))`
    update bench_jobs set status = 'failed', ${lease.cleared}, finished_at = now(),
      error = ${sql.jsonb({ code: 'RUNNER_LOST', message: `the runner measuring this job stopped answering ${maxAttempts} times; the job was not finished` })}
    where status = 'running' and ${lease.runOut} and attempts >= ${maxAttempts}
    returning id`);
  return [...rows];
}

/**
 * Claim the oldest job that is queued, or running under a lease that ran out (its runner died; it
 * starts again from the beginning). `for update skip locked`: two runners never claim the same job.
 */
export async function claimJob(db: CommonQueryMethods, holder: string, leaseMs: number, maxAttempts: number): Promise<ClaimedJob | null> {
  const row = await db.maybeOne(sql.type(ClaimedRow)`
    update bench_jobs set status = 'running', ${lease.take(holder, leaseMs / 1000)}, attempts = attempts + 1,
      started_at = now(), progress_done = 0
    where id = (
      select id from bench_jobs
      where status = 'queued' or (status = 'running' and ${lease.runOut} and attempts < ${maxAttempts})
      order by created_at limit 1 for update skip locked)
    returning id, tenant_id as "tenantId", provider, model, request, settings, attempts, trace_parent as "traceParent"`);
  if (row === null) return null;
  return { ...row, provider: row.provider as ProviderName, request: row.request as unknown as JobRequest };
}

/** Renew a claim and record progress; false when the job is no longer this runner's. */
export async function renewJob(db: CommonQueryMethods, id: string, holder: string, leaseMs: number, done: number): Promise<boolean> {
  const rows = await db.query(sql.unsafe`
    update bench_jobs set ${lease.renew(leaseMs / 1000)}, progress_done = ${done}
    where id = ${id} and ${lease.heldBy(holder)} and status = 'running'`);
  return rows.rowCount === 1;
}

export async function finishJob(
  db: CommonQueryMethods,
  id: string,
  holder: string,
  outcome:
    | { status: 'succeeded'; result: Record<string, unknown>; done: number }
    | { status: 'failed'; error: { code: string; message: string }; done: number },
): Promise<boolean> {
  const rows = await db.query(sql.unsafe`
    update bench_jobs set status = ${outcome.status}, progress_done = ${outcome.done}, finished_at = now(),
      ${lease.cleared},
      result = ${outcome.status === 'succeeded' ? sql.jsonb(outcome.result as never) : null},
      error = ${outcome.status === 'failed' ? sql.jsonb(outcome.error) : null}
    where id = ${id} and ${lease.heldBy(holder)} and status = 'running'`);
  return rows.rowCount === 1;
}

/** A runner stopping on purpose gives its job back: another runner starts it again at once. */
export async function releaseJob(db: CommonQueryMethods, id: string, holder: string): Promise<void> {
  await db.query(sql.unsafe`
    update bench_jobs set status = 'queued', ${lease.cleared}, attempts = greatest(0, attempts - 1), progress_done = 0
    where id = ${id} and ${lease.heldBy(holder)} and status = 'running'`);
}

const CoreRow = rowSchema(
  Type.Object({
    runId: Type.String(),
    machineKey: Type.String(),
    machine: Type.Record(Type.String(), Type.Unknown()),
    result: Type.Record(Type.String(), Type.Unknown()),
    createdBy: Type.String(),
    createdAt: Type.String(),
  }),
);
const CORE = sql.fragment`id as "runId", machine_key as "machineKey", machine, result, created_by as "createdBy",
  to_json(created_at)#>>'{}' as "createdAt"`;

export async function insertCoreRun(
  db: CommonQueryMethods,
  run: { id: string; machineKey: string; machine: object; result: object; createdBy: string },
): Promise<void> {
  await db.query(sql.unsafe`
    insert into bench_core_runs (id, machine_key, machine, result, created_by)
    values (${run.id}, ${run.machineKey}, ${sql.jsonb(run.machine as never)}, ${sql.jsonb(run.result as never)}, ${run.createdBy})`);
}

/** The newest core runs, of one machine when `machineKey` is given. */
export async function latestCoreRuns(db: CommonQueryMethods, limit: number, machineKey?: string) {
  const where = machineKey === undefined ? sql.fragment`true` : sql.fragment`machine_key = ${machineKey}`;
  return [...(await db.any(sql.type(CoreRow)`select ${CORE} from bench_core_runs where ${where} order by created_at desc, id desc limit ${limit}`))];
}
