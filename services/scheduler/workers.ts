import { createHash } from 'node:crypto';
import { ROOT_CONTEXT, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { backgroundSpan, detached, linkFromTraceParent } from '../../observability/index.ts';
import type { Logger } from 'pino';
import type { Bus } from '../../bus/index.ts';
import { subjects } from '../../bus/index.ts';
import { hashCanonical } from '../../core/chain/index.ts';
import { hasAttemptLeft, retryDelay, type RetryPolicy } from '../../core/scheduling/index.ts';
import type { Storage } from '../../storage/index.ts';
import type { AttemptResult } from './attempt.ts';
import { claimTasks, endAttempt, reclaimExpiredLeases, type ClaimedTask } from './task-store.ts';
import { insertEvents, type NewEvent } from './event-store.ts';
import { insertAttempt } from './attempt-store.ts';
import type { Owner, Task } from './schemas.ts';

const tracer = trace.getTracer('suite.scheduler');

export interface WorkerPoolOptions {
  readonly bus: Bus;
  readonly storage: Storage;
  readonly logger: Logger;
  /** This replica's name in leases. */
  readonly holder: string;
  readonly slots: number;
  /** Idle look at the queue this often (other replicas' enqueues, delays and retries coming due). */
  readonly pollMs: number;
  /** Added to a task's timeout to make its lease: past it, the worker is presumed dead. */
  readonly leaseMarginMs: number;
  readonly run: (task: Task, timeoutMs: number) => Promise<AttemptResult>;
  readonly random: () => number;
  /** Told of each attempt's end, for metrics. */
  readonly onAttempt?: (result: AttemptResult, waitedMs: number) => void;
  /** The events it commits (for the live feed). */
  readonly onEvents?: (events: readonly NewEvent[]) => void;
}

/**
 * The workers of one replica: `slots` tasks at a time, claimed from the shared queue (highest
 * priority first; SKIP LOCKED, so no task runs twice at once). Each attempt is recorded as an
 * execution trace in the owner's name, then ended in the table (fenced by holder and attempt): a
 * retry is a row waiting for its `run_after`, so a restart loses none.
 */
export class WorkerPool {
  readonly #o: WorkerPoolOptions;
  #busy = 0;
  #pumping = false;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(o: WorkerPoolOptions) {
    this.#o = o;
  }

  get busy(): number {
    return this.#busy;
  }

  start(): void {
    this.wake();
  }

  /** Look at the queue now (work was just added here). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = true;
    // Detached: a wake from a request (a task enqueued) must not make every later poll, and every
    // attempt claimed by it, part of that request's trace. A poll is background work (sampled off
    // by default); each attempt is a trace of its own (#attempt).
    detached(
      () =>
        void backgroundSpan('scheduler.poll', () => this.#pump()).finally(() => {
          this.#pumping = false;
          if (this.#again) {
            this.#again = false;
            this.wake();
          }
        }),
    );
  }

  /** Look at the queue when `epochMs` comes (a firing enqueued ahead becomes runnable then). */
  wakeAt(epochMs: number): void {
    if (this.#stopped) return;
    const timer = detached(() => setTimeout(() => this.wake(), Math.max(0, epochMs - Date.now())));
    timer.unref();
  }

  /** Stop claiming; let attempts under way finish (their leases would hand them on otherwise). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Take back the tasks of workers that died (any replica may do it; rows are locked, so once). */
  async reclaim(): Promise<void> {
    const back = await reclaimExpiredLeases(this.#o.storage.pool);
    if (back.length === 0) return;
    const events = back.map((t) => ({
      namespace: t.namespace,
      kind: t.state === 'dead' ? 'task-dead' : 'task-reclaimed',
      taskId: t.id,
      attempt: t.attempts,
      detail: t.state === 'dead' ? 'its worker stopped answering on the last attempt allowed' : 'its worker stopped answering; queued for another attempt',
    }));
    await insertEvents(this.#o.storage.pool, events);
    this.#o.onEvents?.(events);
    this.wake();
  }

  async #pump(): Promise<void> {
    try {
      while (!this.#stopped) {
        const free = this.#o.slots - this.#busy;
        if (free <= 0) return;
        const claimed = await claimTasks(this.#o.storage.pool, this.#o.holder, free, this.#o.leaseMarginMs);
        for (const task of claimed) this.#launch(task);
        if (claimed.length < free) break;
      }
    } catch (err) {
      this.#o.logger.error({ err }, 'claiming tasks failed; trying again');
    }
    this.#poll();
  }

  #poll(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.wake(), this.#o.pollMs);
    this.#timer.unref();
  }

  #launch(task: ClaimedTask): void {
    this.#busy += 1;
    // The attempt is a root: it belongs to no poll, and its trace ends when it does.
    const done = detached(() => this.#attempt(task))
      .catch((err: unknown) => this.#o.logger.error({ err, task: task.id }, 'a task attempt failed to complete'))
      .finally(() => {
        this.#busy -= 1;
        this.#inFlight.delete(done);
        this.wake();
      });
    this.#inFlight.add(done);
  }

  async #attempt(t: ClaimedTask): Promise<void> {
    const task = t.task as Task;
    // One trace per attempt, rooted here (sampled as a request is): the outbound call (a client
    // span, by the undici instrumentation), its record on the execution chain and its end in the
    // table are its children, and nothing is added once it ended.
    const queuedBy = linkFromTraceParent(t.traceParent);
    await tracer.startActiveSpan(
      'scheduler.attempt',
      {
        root: true,
        // Linked to the span of the request that queued the task: the two traces join (issue 36, item 4).
        ...(queuedBy !== undefined ? { links: [queuedBy] } : {}),
        attributes: {
          'scheduler.task.id': t.id,
          'scheduler.task.type': task.type,
          'scheduler.attempt': t.attempts,
          ...(t.scheduleId ? { 'scheduler.schedule.id': t.scheduleId } : {}),
        },
      },
      ROOT_CONTEXT,
      async (span) => {
        try {
          await this.#attemptIn(t, task, span);
        } finally {
          span.end();
        }
      },
    );
  }

  async #attemptIn(t: ClaimedTask, task: Task, span: Span): Promise<void> {
    const startedAt = new Date().toISOString();
    const result = await this.#o.run(task, t.timeoutMs);
    span.setAttribute('scheduler.outcome', result.outcome);
    if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
    if (result.outcome !== 'success') span.setStatus({ code: SpanStatusCode.ERROR, message: result.outcome });
    this.#o.onAttempt?.(result, t.waitedMs);
    const traceId = await this.#trace(t, task, result, startedAt);
    const policy = t.retry as RetryPolicy;
    const again = result.outcome !== 'success' && result.retryable && hasAttemptLeft(policy, t.attempts);
    const state = result.outcome === 'success' ? 'succeeded' : again ? 'retrying' : 'failed';
    const retryInMs = again ? retryDelay(policy, t.attempts, this.#o.random) : 0;
    // The attempt's end and its log line commit together: one commit (one WAL sync) a task, not two.
    const events = await this.#o.storage.pool.transaction(async (tx) => {
      const ended = await endAttempt(tx, {
        namespace: t.namespace,
        id: t.id,
        attempt: t.attempts,
        holder: this.#o.holder,
        state,
        retryInMs,
        lastError: result.error,
        lastStatus: result.status,
      });
      const detail =
        `${result.outcome}${result.status !== null ? ` (HTTP ${result.status})` : ''} in ${result.durationMs} ms` +
        (ended ? `; ${state}${again ? ` in ${retryInMs} ms` : ''}` : '; its lease had passed to another attempt');
      const events = [{ namespace: t.namespace, kind: 'task-attempt', taskId: t.id, scheduleId: t.scheduleId, attempt: t.attempts, detail }];
      await insertEvents(tx, events);
      await insertAttempt(tx, {
        namespace: t.namespace,
        taskId: t.id,
        attempt: t.attempts,
        startedAt,
        outcome: result.outcome,
        status: result.status,
        error: result.error,
        traceId,
      });
      return events;
    });
    this.#o.onEvents?.(events);
  }

  /** The attempt on the execution chain, in the owner's name (issue 14: every attempt is signed). */
  async #trace(t: ClaimedTask, task: Task, result: AttemptResult, startedAt: string): Promise<string | null> {
    const owner = t.owner as Owner;
    const action = task.type === 'http' ? `http.${task.method ?? 'GET'}` : 'script';
    const input = { taskId: t.id, scheduleId: t.scheduleId, dueAt: t.dueAt, attempt: t.attempts, task };
    const output = { ...result.output, outcome: result.outcome, durationMs: result.durationMs, error: result.error };
    const key = createHash('sha256')
      .update(JSON.stringify([t.namespace, t.id, t.attempts]))
      .digest('hex');
    const reply = await this.#o.bus.request(subjects.executionsRecord, {
      claim: {
        subject: owner.sub,
        scope: owner.scope,
        module: 'scheduler',
        action,
        outcome: result.outcome,
        inputHash: hashCanonical(input),
        outputHash: hashCanonical(output),
        cost: null,
        governance: null,
      },
      attested: owner,
      timestamp: startedAt,
      idempotencyKey: `scheduler:${key}`,
    });
    if (!reply.ok)
      this.#o.logger.error({ code: reply.error.code, task: t.id, attempt: t.attempts }, 'the attempt could not be recorded on the execution chain');
    return reply.ok ? reply.value.record.id : null;
  }
}
