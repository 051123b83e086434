import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Bus, RequestOf, Subscription } from '../../bus/index.ts';
import { SuiteError } from '../../bus/index.ts';
import { BusActor } from '../../actors/base/index.ts';
import { replyOf } from '../../actors/base/index.ts';
import { OutboundRefusedError, type OutboundGuard } from '../../actors/outbound/index.ts';
import { checkCron, nextRunAfter, taskProblem } from '../../core/scheduling/index.ts';
import type { Storage } from '../../storage/index.ts';
import type { AttemptResult } from './attempt.ts';
import { HostBreakers, type BreakerSettings } from './breakers.ts';
import { runHttpAttempt } from './http-runner.ts';
import type { ScriptRunner } from './script-runner.ts';
import { schedulerSubjects as subjects } from './subjects.ts';
import type { Owner, Task } from './schemas.ts';
import { deleteSchedule, getSchedule, insertSchedule, listSchedules, lockSchedule, setScheduleState, type ScheduleRowValue } from './schedule-store.ts';
import { dropPendingFirings, listTasks, getTask, queueDepth } from './task-store.ts';
import { EnqueueBatcher } from './enqueue-batch.ts';
import { insertEvents, listEvents, type NewEvent } from './event-store.ts';
import { listAttempts } from './attempt-store.ts';
import { publishEvents } from './event-feed.ts';
import { ScheduleTicker } from './ticker.ts';
import { WorkerPool } from './workers.ts';
import { activeTraceParent } from '../../observability/index.ts';

export interface SchedulerSettings {
  readonly workers: number;
  readonly queueMax: number;
  /** Unfinished tasks one tenant (namespace) may hold: no tenant can fill the queue for the others. */
  readonly queueTenantMax: number;
  readonly leaseMarginMs: number;
  readonly pollMs: number;
  readonly tickMaxSleepMs: number;
  readonly retryAfterSeconds: number;
}

export interface SchedulerActorOptions {
  readonly bus: Bus;
  readonly storage: Storage;
  readonly logger: Logger;
  readonly holder: string;
  readonly guard: OutboundGuard;
  /** Whether storage survives a restart (a Postgres URL or a PGlite folder): `durable` in replies. */
  readonly durable: boolean;
  readonly settings: SchedulerSettings;
  readonly breaker?: BreakerSettings;
  /** Script tasks; undefined = off (SCHEDULER_SCRIPT_ROOT unset). */
  readonly scripts?: ScriptRunner;
  readonly random?: () => number;
  readonly onFired?: (latenessMs: readonly number[]) => void;
  readonly onAttempt?: (result: AttemptResult, waitedMs: number) => void;
}

const DEFAULT_RETRY = { maxAttempts: 3, backoff: 'exponential', baseDelay: 1000 } as const;
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The scheduler actor (issue 14): schedules and the shared queue over the bus, the cron clock and
 * the workers of this replica. Any number run side by side on one database.
 */
export class SchedulerActor extends BusActor {
  readonly #o: SchedulerActorOptions;
  readonly #breakers: HostBreakers;
  readonly #ticker: ScheduleTicker;
  readonly #workers: WorkerPool;
  readonly #enqueues: EnqueueBatcher;

  constructor(o: SchedulerActorOptions) {
    super();
    this.#o = o;
    this.#breakers = new HostBreakers(o.breaker);
    this.#enqueues = new EnqueueBatcher(o.storage.pool, () => ({ total: o.settings.queueMax, perTenant: o.settings.queueTenantMax }));
    this.#ticker = new ScheduleTicker({
      storage: o.storage,
      logger: o.logger,
      maxSleepMs: o.settings.tickMaxSleepMs,
      onEvents: this.#publish,
      onFired: ({ dueAt, latenessMs }) => {
        o.onFired?.(latenessMs);
        for (const at of new Set(dueAt)) this.#workers.wakeAt(at);
      },
    });
    this.#workers = new WorkerPool({
      bus: o.bus,
      storage: o.storage,
      logger: o.logger,
      holder: o.holder,
      slots: o.settings.workers,
      pollMs: o.settings.pollMs,
      leaseMarginMs: o.settings.leaseMarginMs,
      random: o.random ?? Math.random,
      run: (task, timeoutMs) => this.#run(task, timeoutMs),
      ...(o.onAttempt ? { onAttempt: o.onAttempt } : {}),
      onEvents: this.#publish,
    });
  }

  override start(): void {
    super.start();
    this.#ticker.start();
    this.#workers.start();
    this.every(
      Math.max(250, Math.min(5_000, this.#o.settings.leaseMarginMs / 2)),
      () => {
        this.#workers.reclaim().catch((err: unknown) => this.#o.logger.error({ err }, 'reclaiming expired leases failed'));
      },
      'scheduler.reclaim',
    );
  }

  protected override async stopped(): Promise<void> {
    await this.#ticker.stop();
    await this.#workers.stop();
  }

  protected subscriptions(): Subscription[] {
    const { bus } = this.#o;
    const queue = { queue: 'scheduler' };
    const log = (err: unknown) => this.#o.logger.error({ err }, 'scheduler request failed');
    return [
      bus.serve(subjects.scheduleCreate, ({ data }) => replyOf(() => this.#create(data), log), queue),
      bus.serve(subjects.scheduleList, ({ data }) => replyOf(() => this.#list(data), log), queue),
      bus.serve(subjects.scheduleGet, ({ data }) => replyOf(() => this.#get(data), log), queue),
      bus.serve(subjects.scheduleDelete, ({ data }) => replyOf(() => this.#delete(data), log), queue),
      bus.serve(subjects.schedulePause, ({ data }) => replyOf(() => this.#setState(data, 'paused'), log), queue),
      bus.serve(subjects.scheduleResume, ({ data }) => replyOf(() => this.#setState(data, 'active'), log), queue),
      bus.serve(subjects.enqueue, ({ data }) => replyOf(() => this.#enqueue(data), log), queue),
      bus.serve(subjects.queueList, ({ data }) => replyOf(() => this.#queueList(data), log), queue),
      bus.serve(subjects.taskStatus, ({ data }) => replyOf(() => this.#status(data), log), queue),
      bus.serve(subjects.health, () => replyOf(() => this.#health(), log), queue),
      bus.serve(subjects.logs, ({ data }) => replyOf(() => listEvents(this.#o.storage.pool, data.namespace, data.limit, data.before), log), queue),
    ];
  }

  #run(task: Task, timeoutMs: number): Promise<AttemptResult> {
    if (task.type === 'http')
      return runHttpAttempt({ url: task.url ?? '', method: task.method, headers: task.headers, body: task.body }, timeoutMs, {
        guard: this.#o.guard,
        breakers: this.#breakers,
      });
    if (this.#o.scripts !== undefined) return this.#o.scripts.run(task, timeoutMs);
    return Promise.resolve({
      outcome: 'refused',
      retryable: false,
      status: null,
      durationMs: 0,
      error: 'script tasks are off on this deployment',
      output: { error: 'scripts-off' },
    });
  }

  /** The rules no schema can say; a problem is a 400 naming the field, and nothing is stored. */
  async #checkTask(task: Task): Promise<void> {
    const problem = taskProblem(task, { scriptsEnabled: this.#o.scripts !== undefined });
    if (problem !== undefined) throw new SuiteError('INVALID_REQUEST', problem);
    if (task.type === 'script') {
      const scriptProblem = await this.#o.scripts?.check(task.script ?? '');
      if (scriptProblem !== undefined) throw new SuiteError('INVALID_REQUEST', `task.${scriptProblem}`);
      return;
    }
    try {
      this.#o.guard.checkUrl(task.url ?? '');
    } catch (err) {
      if (err instanceof OutboundRefusedError) throw new SuiteError('INVALID_REQUEST', `task.url: ${err.message}`);
      throw err;
    }
  }

  async #create(req: RequestOf<typeof subjects.scheduleCreate>) {
    const cron = checkCron(req.cron, req.timezone);
    if (!cron.ok)
      throw new SuiteError('INVALID_REQUEST', req.timezone !== undefined && cron.message.startsWith('timezone') ? cron.message : `cron: ${cron.message}`);
    await this.#checkTask(req.task);
    const namespace = namespaceOf(req.owner);
    const next = nextRunAfter(req.cron, req.timezone, new Date());
    const inserted = await insertSchedule(this.#o.storage.pool, {
      namespace,
      id: req.id,
      cron: req.cron.trim(),
      timezone: req.timezone ?? null,
      task: req.task,
      retry: { ...DEFAULT_RETRY, ...req.retry },
      timeoutMs: req.timeout ?? DEFAULT_TIMEOUT_MS,
      owner: req.owner,
      nextRunAt: next?.toISOString() ?? null,
    });
    if (!inserted) throw new SuiteError('CONFLICT', `a schedule with id "${req.id}" exists; delete it first to replace it`);
    await this.#record([
      {
        namespace,
        kind: 'schedule-created',
        scheduleId: req.id,
        detail: `cron "${req.cron.trim()}"${req.timezone ? ` in ${req.timezone}` : ''} by ${req.owner.sub}`,
      },
    ]);
    this.#ticker.wake();
    return { id: req.id, nextRun: next?.toISOString() ?? null, durable: this.#o.durable };
  }

  async #list(req: RequestOf<typeof subjects.scheduleList>) {
    const { rows, total } = await listSchedules(this.#o.storage.pool, req.namespace, req.limit, req.offset);
    return { schedules: rows.map(scheduleView), total, limit: req.limit, offset: req.offset };
  }

  async #get(req: RequestOf<typeof subjects.scheduleGet>) {
    const row = await getSchedule(this.#o.storage.pool, req.namespace, req.id);
    if (row === null) throw new SuiteError('NOT_FOUND', `no schedule "${req.id}"`);
    return scheduleView(row);
  }

  async #delete(req: RequestOf<typeof subjects.scheduleDelete>) {
    if (!(await deleteSchedule(this.#o.storage.pool, req.namespace, req.id))) throw new SuiteError('NOT_FOUND', `no schedule "${req.id}"`);
    await dropPendingFirings(this.#o.storage.pool, req.namespace, req.id);
    await this.#record([{ namespace: req.namespace, kind: 'schedule-deleted', scheduleId: req.id, detail: `by ${req.actor}` }]);
    return { id: req.id, deleted: true as const };
  }

  /** Resuming starts from now: occurrences passed while paused are not fired (docs/SCHEDULER.md). */
  async #setState(req: RequestOf<typeof subjects.schedulePause>, state: 'active' | 'paused') {
    // Not found is answered after the transaction, not thrown inside it: a rolled-back transaction
    // makes slonik replace its connection, and PGlite's one session then sees a second pg client
    // re-prepare named statements it already holds ("prepared statement ... already exists").
    const event = {
      namespace: req.namespace,
      kind: state === 'active' ? 'schedule-resumed' : 'schedule-paused',
      scheduleId: req.id,
      detail: `by ${req.actor}`,
    };
    const row = await this.#o.storage.pool.transaction(async (tx) => {
      const current = await lockSchedule(tx, req.namespace, req.id);
      if (current === null) return null;
      const next = state === 'active' ? (nextRunAfter(current.cron, current.timezone ?? undefined, new Date())?.toISOString() ?? null) : null;
      const updated = await setScheduleState(tx, req.namespace, req.id, state, next);
      if (state === 'paused') await dropPendingFirings(tx, req.namespace, req.id);
      await insertEvents(tx, [event]);
      return updated;
    });
    if (row === null) throw new SuiteError('NOT_FOUND', `no schedule "${req.id}"`);
    this.#publish([event]);
    if (state === 'active') this.#ticker.wake();
    return scheduleView(row);
  }

  /** Commit events to the log, then tell live views. */
  async #record(events: NewEvent[]): Promise<void> {
    await insertEvents(this.#o.storage.pool, events);
    this.#publish(events);
  }

  readonly #publish = (events: readonly NewEvent[]): void => publishEvents(this.#o.bus, this.#o.logger, events);

  async #enqueue(req: RequestOf<typeof subjects.enqueue>) {
    await this.#checkTask(req.task);
    const namespace = namespaceOf(req.owner);
    const id = req.id ?? `task_${randomBytes(12).toString('hex')}`;
    const inserted = await this.#enqueues.enqueue({
      namespace,
      id,
      priority: req.priority ?? 'normal',
      task: req.task,
      retry: { ...DEFAULT_RETRY, ...req.retry },
      timeoutMs: req.timeout ?? DEFAULT_TIMEOUT_MS,
      owner: req.owner,
      delayMs: req.delay ?? 0,
      traceParent: activeTraceParent(),
    });
    if (inserted.outcome === 'full') {
      return {
        accepted: false as const,
        retryAfterSeconds: this.#o.settings.retryAfterSeconds,
        message: `the queue holds its maximum of ${this.#o.settings.queueMax} unfinished tasks`,
      };
    }
    if (inserted.outcome === 'tenant-full') {
      const whose = namespace === '' ? 'callers without a tenant hold' : `tenant ${namespace} holds`;
      return {
        accepted: false as const,
        retryAfterSeconds: this.#o.settings.retryAfterSeconds,
        message: `${whose} the maximum of ${this.#o.settings.queueTenantMax} unfinished tasks per tenant`,
      };
    }
    if (inserted.outcome === 'duplicate') throw new SuiteError('CONFLICT', `a task with id "${id}" exists`);
    if ((req.delay ?? 0) === 0) this.#workers.wake();
    // Not kept in the log (one more write per task); live views see it.
    this.#publish([
      { namespace, kind: 'task-queued', taskId: id, detail: `${req.priority ?? 'normal'} priority${req.delay ? `, due in ${req.delay} ms` : ''}` },
    ]);
    return { accepted: true as const, task: inserted.task };
  }

  async #queueList(req: RequestOf<typeof subjects.queueList>) {
    const { tasks, total } = await listTasks(this.#o.storage.pool, req.namespace, {
      limit: req.limit,
      offset: req.offset,
      ...(req.state ? { state: req.state } : {}),
      ...(req.scheduleId ? { scheduleId: req.scheduleId } : {}),
    });
    return { tasks, total, limit: req.limit, offset: req.offset };
  }

  async #status(req: RequestOf<typeof subjects.taskStatus>) {
    const task = await getTask(this.#o.storage.pool, req.namespace, req.id);
    if (task === null) throw new SuiteError('NOT_FOUND', `no task "${req.id}"`);
    return { ...task, history: await listAttempts(this.#o.storage.pool, req.namespace, req.id) };
  }

  async #health() {
    const d = await queueDepth(this.#o.storage.pool);
    const { guard, settings, holder } = this.#o;
    return {
      outboundPolicy: { source: guard.policy.source, allow: [...guard.policy.allow] },
      scripts: { enabled: this.#o.scripts !== undefined },
      workers: { replica: holder, slots: settings.workers, busy: this.#workers.busy, replicasWithLeases: d.holders },
      queue: {
        depth: { high: d.high, normal: d.normal, low: d.low },
        running: d.running,
        oldestWaitingMs: d.oldestWaitingMs === null ? null : Math.max(0, Math.round(d.oldestWaitingMs)),
        maxLength: settings.queueMax,
      },
      breakers: this.#breakers.states(),
    };
  }
}

/** Rows belong to the caller's tenant; calls without one share the '' namespace. */
export function namespaceOf(owner: Owner): string {
  return owner.tenantId ?? '';
}

/** Header values are not shown back: they may be credentials (names are). */
function scheduleView(row: ScheduleRowValue) {
  const task = row.task as Task;
  const headers = task.headers === undefined ? {} : { headers: Object.fromEntries(Object.keys(task.headers).map((h) => [h, '[redacted]'])) };
  return { ...row, task: { ...task, ...headers } };
}
