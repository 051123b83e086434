import { detached, linkFromTraceParent } from '../../observability/index.ts';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { SuiteError } from '../../bus/index.ts';
import type { Storage } from '../../storage/index.ts';
import type { BenchSettings } from './config.ts';
import type { OutboundGuard } from '../../actors/outbound/index.ts';
import type { JobStatus } from './subjects.ts';
import { claimJob, failAbandonedJobs, finishJob, releaseJob, renewJob, type ClaimedJob } from './store.ts';
import { targetOf } from './targets.ts';
import { measure, resultOf, TargetRefusedError } from './measure.ts';
import { thisMachine } from './machine.ts';
import type { BenchMetrics } from './metrics.ts';

export interface JobPumpOptions {
  storage: Storage;
  logger: Logger;
  /** This process's name in job claims. */
  holder: string;
  settings: BenchSettings;
  guard: OutboundGuard;
  metrics: BenchMetrics | undefined;
  /** Tell watchers how a job is going (the runner publishes it on the bus). */
  publish(jobId: string, status: JobStatus, done: number, total: number, tenantId?: string | null): void;
}

/** Claims a job may take before it is failed: the first runner, and one more if that one died. */
export const MAX_ATTEMPTS = 2;
const PROGRESS_EVERY_MS = 250;
// Taken per use, not at load: the process registers its tracer provider after modules load.
const tracer = () => trace.getTracer('suite.bench');

/**
 * A bench runner's jobs: claims the next job (a row lock and a lease, storage/row-lease.ts), measures
 * it while renewing the lease, and records how it ended; one job at a time, until none is waiting.
 * A job whose runner died is taken again from the start (once) or failed (docs/BENCHMARK.md, "States").
 */
export class JobPump {
  readonly #o: JobPumpOptions;
  #pumping: Promise<void> | undefined;
  #current: { id: string; abort: AbortController } | undefined;
  #stopping = false;

  constructor(o: JobPumpOptions) {
    this.#o = o;
  }

  /** True while a job is being measured. */
  get busy(): boolean {
    return this.#current !== undefined;
  }

  /** Stop taking jobs, abort the one being measured (it is given back), and wait for the pump. */
  stop(): Promise<void> {
    this.#stopping = true;
    this.#current?.abort.abort(new Error('the runner is stopping'));
    return this.#pumping ?? Promise.resolve();
  }

  /** Look for work now (after a submit, on the poll timer); one pump at a time. */
  wake(): void {
    if (this.#pumping !== undefined || this.#stopping) return;
    // Detached: woken by a request (a job created), the pump and its runs must not join its trace.
    this.#pumping = detached(() =>
      this.#pump().finally(() => {
        this.#pumping = undefined;
      }),
    );
  }

  async #pump(): Promise<void> {
    const { storage, settings, holder, logger } = this.#o;
    try {
      while (!this.#stopping) {
        for (const id of await failAbandonedJobs(storage.pool, MAX_ATTEMPTS)) this.#o.publish(id, 'failed', 0, 0);
        const job = await claimJob(storage.pool, holder, settings.leaseMs, MAX_ATTEMPTS);
        if (job === null) return;
        // One span per measured job: its settings, and how it ended (bench.outcome).
        // A root: a run is a trace of its own (its outbound calls are client spans within it).
        const submittedBy = linkFromTraceParent(job.traceParent);
        // Linked to the span of the request that submitted the job (issue 36, item 4).
        await tracer().startActiveSpan(
          'bench.run',
          {
            root: true,
            ...(submittedBy !== undefined ? { links: [submittedBy] } : {}),
            attributes: {
              'bench.job_id': job.id,
              'bench.provider': job.provider,
              'bench.test_runs': job.settings.testRuns,
              'bench.warmup_runs': job.settings.warmupRuns,
              'bench.concurrency': job.settings.concurrency,
              'bench.attempt': job.attempts,
            },
          },
          async (span) => {
            this.#o.metrics?.running.inc();
            try {
              const outcome = await this.#run(job);
              this.#o.metrics?.jobs.inc({ provider: job.provider, outcome });
              span.setAttribute('bench.outcome', outcome);
              if (outcome === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
            } finally {
              this.#o.metrics?.running.dec();
              span.end();
            }
          },
        );
      }
    } catch (err) {
      logger.error({ err }, 'the bench runner could not take or finish a job');
    }
  }

  /** Measure a claimed job; says how it ended for this runner. */
  async #run(job: ClaimedJob): Promise<'succeeded' | 'failed' | 'released' | 'lost'> {
    const { storage, settings, holder, logger, guard } = this.#o;
    const total = job.settings.warmupRuns + job.settings.testRuns;
    const abort = new AbortController();
    this.#current = { id: job.id, abort };
    let done = 0;
    let lost = false;
    let lastPublished = 0;
    this.#o.publish(job.id, 'running', 0, total, job.tenantId);
    const renew = detached(() =>
      setInterval(
        () => {
          renewJob(storage.pool, job.id, holder, settings.leaseMs, done).then(
            (ours) => {
              if (!ours && !abort.signal.aborted) {
                lost = true;
                abort.abort(new Error("the job is no longer this runner's"));
              }
            },
            (err: unknown) => logger.warn({ err, jobId: job.id }, "could not renew a bench job's lease"),
          );
        },
        Math.max(100, Math.floor(settings.leaseMs / 3)),
      ),
    );
    renew.unref();
    try {
      const target = targetOf(job.provider, job.model, job.request, { guard, settings });
      const measured = await measure(target, {
        settings: job.settings,
        signal: abort.signal,
        onCall: (ok) => this.#o.metrics?.calls.inc({ provider: job.provider, result: ok ? 'ok' : 'error' }),
        onProgress: (d) => {
          done = d;
          const now = Date.now();
          if (now - lastPublished >= PROGRESS_EVERY_MS) {
            lastPublished = now;
            this.#o.publish(job.id, 'running', d, total, job.tenantId);
          }
        },
      });
      const result: Record<string, unknown> = { ...resultOf(measured), machine: thisMachine(), settings: job.settings, target: target.shown };
      if ((result.succeeded as number) === 0) {
        const kinds = Object.entries(result.errorsByKind as Record<string, number>)
          .map(([k, n]) => `${k}: ${n}`)
          .join(', ');
        await this.#finish(job, {
          status: 'failed',
          done: total,
          error: { code: 'NO_SUCCESSFUL_CALL', message: `no call succeeded (${kinds || 'no calls'})` },
        });
        return 'failed';
      }
      await this.#finish(job, { status: 'succeeded', done: total, result });
      return 'succeeded';
    } catch (err) {
      if (lost) return 'lost';
      if (this.#stopping) {
        // Stopping on purpose: give the job back so another runner starts it again at once.
        await releaseJob(storage.pool, job.id, holder);
        this.#o.publish(job.id, 'queued', 0, total, job.tenantId);
        return 'released';
      }
      await this.#finish(job, { status: 'failed', done, error: failureOf(err) });
      if (!(err instanceof SuiteError) && !(err instanceof TargetRefusedError)) logger.error({ err, jobId: job.id }, 'a bench job failed');
      return 'failed';
    } finally {
      clearInterval(renew);
      this.#current = undefined;
    }
  }

  async #finish(job: ClaimedJob, outcome: Parameters<typeof finishJob>[3]): Promise<void> {
    const total = job.settings.warmupRuns + job.settings.testRuns;
    if (await finishJob(this.#o.storage.pool, job.id, this.#o.holder, outcome)) this.#o.publish(job.id, outcome.status, outcome.done, total, job.tenantId);
  }
}

function failureOf(err: unknown): { code: string; message: string } {
  if (err instanceof TargetRefusedError) return { code: 'OUTBOUND_REFUSED', message: err.message };
  if (err instanceof SuiteError) return { code: err.code, message: err.message };
  return { code: 'INTERNAL_ERROR', message: 'the run failed unexpectedly' };
}
