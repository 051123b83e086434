import { randomBytes } from 'node:crypto';
import { activeTraceParent, detached, linkFromTraceParent } from '../../observability/index.ts';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Bus, Caller, RequestOf, Subscription } from '../../bus/index.ts';
import { SuiteError } from '../../bus/index.ts';
import type { Storage } from '../../storage/index.ts';
import type { BenchSettings } from '../../config/index.ts';
import type { OutboundGuard } from '../../actors/outbound/index.ts';
import { BusActor, replyOf } from '../../actors/base/index.ts';
import { compareLatencies, estimateDurationSeconds, formatDuration } from '../../core/bench/index.ts';
import { benchSubjects, type JobStatus, type JobViewData } from './subjects.ts';
import {
  claimJob, failAbandonedJobs, finishJob, getJob, insertCoreRun, insertJob, latestCoreRuns, latestJobNamed, listJobs, releaseJob, renewJob,
  type ClaimedJob, type JobScope,
} from './store.ts';
import { checkedUrl, shownUrl, targetOf, targetUrlOf } from './targets.ts';
import { measure, resultOf, TargetRefusedError } from './measure.ts';
import { machineKey, thisMachine } from './machine.ts';
import { benchMetrics, type BenchMetrics } from './metrics.ts';
import type { Registry } from 'prom-client';
import { runCoreBench } from './core-ops.ts';

export interface BenchRunnerOptions {
  bus: Bus;
  storage: Storage;
  logger: Logger;
  /** This process's name in job claims. */
  holder: string;
  settings: BenchSettings;
  guard: OutboundGuard;
  /** Where its metrics go; none when the process has no registry (tests). */
  registry?: Registry;
}

/** Claims a job may take before it is failed: the first runner, and one more if that one died. */
export const MAX_ATTEMPTS = 2;
const PROGRESS_EVERY_MS = 250;
const JOB_ID = /^bench_[0-9a-f]{32}$/;
// Taken per use, not at load: the process registers its tracer provider after modules load.
const tracer = () => trace.getTracer('suite.bench');

/** Which jobs a caller sees: the admin all, a tenant its own, anyone else the untenanted ones. */
export function scopeOf(caller: Caller): JobScope {
  return caller.kind === 'admin' ? { all: true } : { all: false, tenantId: caller.tenantId ?? null };
}

/**
 * The bench runner: takes jobs (POST /run), measures them one at a time, and answers reads. Any
 * number of runners share the jobs through the database: a claim is a row lock and a lease the
 * runner renews while it measures, so a job runs once; a runner that dies leaves its lease to run
 * out, and the job is taken again from the start (once) or failed (docs/BENCHMARK.md, "States").
 */
export class BenchRunnerActor extends BusActor {
  readonly #o: BenchRunnerOptions;
  #pumping: Promise<void> | undefined;
  #current: { id: string; abort: AbortController } | undefined;
  #stopping = false;
  #core: { abort: AbortController; done: Promise<void> } | undefined;

  readonly #metrics: BenchMetrics | undefined;

  constructor(o: BenchRunnerOptions) {
    super();
    this.#o = o;
    this.#metrics = o.registry ? benchMetrics(o.registry) : undefined;
  }

  protected subscriptions(): Subscription[] {
    const { bus, logger } = this.#o;
    const queue = { queue: 'bench' };
    const unexpected = (err: unknown) => logger.error({ err }, 'bench request failed');
    this.every(this.#o.settings.pollMs, () => this.#wake(), 'bench.poll');
    return [
      bus.serve(benchSubjects.submit, ({ data }) => replyOf(() => this.#submit(data), unexpected), queue),
      bus.serve(benchSubjects.get, ({ data }) => replyOf(() => this.#get(data.jobId, data.caller), unexpected), queue),
      bus.serve(benchSubjects.history, ({ data }) => replyOf(() => this.#history(data), unexpected), queue),
      bus.serve(benchSubjects.compare, ({ data }) => replyOf(() => this.#compare(data), unexpected), queue),
      bus.serve(benchSubjects.coreRun, ({ data }) => replyOf(() => this.#coreRun(data), unexpected), queue),
      bus.serve(benchSubjects.coreLatest, () => replyOf(() => this.#coreLatest(), unexpected), queue),
      bus.serve(benchSubjects.coreRegression, () => replyOf(() => this.#coreRegression(), unexpected), queue),
    ];
  }

  protected override async stopped(): Promise<void> {
    this.#stopping = true;
    this.#current?.abort.abort(new Error('the runner is stopping'));
    this.#core?.abort.abort(new Error('the runner is stopping'));
    await Promise.all([this.#pumping, this.#core?.done]);
  }

  /** One core run at a time per runner, in the background; its result is stored when it ends. */
  async #coreRun(req: RequestOf<typeof benchSubjects.coreRun>) {
    if (this.#core !== undefined) throw new SuiteError('CONFLICT', 'a core benchmark is already running on this runner; read GET /bench/core when it ends');
    const runId = `core_${randomBytes(16).toString('hex')}`;
    const abort = new AbortController();
    const busy = this.#current !== undefined;
    const done = runCoreBench({ iterations: req.iterations, chainLength: req.chainLength }, abort.signal).then(async (operations) => {
      const machine = thisMachine();
      await insertCoreRun(this.#o.storage.pool, {
        id: runId, machineKey: machineKey(machine), machine, createdBy: req.caller.sub,
        result: { settings: { iterations: req.iterations, chainLength: req.chainLength }, beside: busy ? 'a job was being measured' : null, operations },
      });
    }).catch((err: unknown) => {
      if (!abort.signal.aborted) this.#o.logger.error({ err }, 'a core benchmark failed');
    }).finally(() => {
      this.#core = undefined;
    });
    this.#core = { abort, done };
    return { runId, status: 'running' as const, estimatedDuration: formatDuration(Math.max(1, Math.ceil((req.iterations * 6 * 0.3 + req.chainLength * 2) / 1000))) };
  }

  async #coreLatest() {
    const [latest] = await latestCoreRuns(this.#o.storage.pool, 1);
    if (latest === undefined) throw new SuiteError('NOT_FOUND', 'no core benchmark has run yet (POST /bench/core)');
    return { ...latest, result: withoutCoreSamples(latest.result) };
  }

  async #coreRegression() {
    const { pool } = this.#o.storage;
    const [latest] = await latestCoreRuns(pool, 1);
    if (latest === undefined) throw new SuiteError('NOT_FOUND', 'no core benchmark has run yet (POST /bench/core)');
    const previous = (await latestCoreRuns(pool, 2, latest.machineKey))[1];
    if (previous === undefined) throw new SuiteError('NOT_FOUND', 'the latest core run has no previous run on the same machine to compare with');
    const ops = (r: typeof latest) => (r.result.operations ?? {}) as Record<string, { samplesMs: number[] }>;
    const operations: Record<string, Record<string, unknown>> = {};
    for (const [name, op] of Object.entries(ops(latest))) {
      const before = ops(previous)[name];
      if (before === undefined || before.samplesMs.length < 2 || op.samplesMs.length < 2) continue;
      operations[name] = { ...compareLatencies(before.samplesMs, op.samplesMs) };
    }
    const verdicts = Object.values(operations).map((c) => c.verdict);
    const verdict = verdicts.includes('regression') ? 'regression' as const : verdicts.includes('improvement') ? 'improvement' as const : 'no significant change' as const;
    return { verdict, machineKey: latest.machineKey, latest: latest.runId, previous: previous.runId, operations };
  }

  /** Look for work now (after a submit, on the poll timer); one pump at a time. */
  #wake(): void {
    if (this.#pumping !== undefined || this.#stopping) return;
    // Detached: woken by a request (a job created), the pump and its runs must not join its trace.
    this.#pumping = detached(() => this.#pump().finally(() => {
      this.#pumping = undefined;
    }));
  }

  async #pump(): Promise<void> {
    const { storage, settings, holder, logger } = this.#o;
    try {
      while (!this.#stopping) {
        for (const id of await failAbandonedJobs(storage.pool, MAX_ATTEMPTS)) this.#publish(id, 'failed', 0, 0);
        const job = await claimJob(storage.pool, holder, settings.leaseMs, MAX_ATTEMPTS);
        if (job === null) return;
        // One span per measured job: its settings, and how it ended (bench.outcome).
        // A root: a run is a trace of its own (its outbound calls are client spans within it).
        const submittedBy = linkFromTraceParent(job.traceParent);
        // Linked to the span of the request that submitted the job (issue 36, item 4).
        await tracer().startActiveSpan('bench.run', { root: true, ...(submittedBy !== undefined ? { links: [submittedBy] } : {}), attributes: {
          'bench.job_id': job.id, 'bench.provider': job.provider, 'bench.test_runs': job.settings.testRuns,
          'bench.warmup_runs': job.settings.warmupRuns, 'bench.concurrency': job.settings.concurrency, 'bench.attempt': job.attempts,
        } }, async (span) => {
          this.#metrics?.running.inc();
          try {
            const outcome = await this.#run(job);
            this.#metrics?.jobs.inc({ provider: job.provider, outcome });
            span.setAttribute('bench.outcome', outcome);
            if (outcome === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
          } finally {
            this.#metrics?.running.dec();
            span.end();
          }
        });
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
    this.#publish(job.id, 'running', 0, total, job.tenantId);
    const renew = detached(() => setInterval(() => {
      renewJob(storage.pool, job.id, holder, settings.leaseMs, done).then((ours) => {
        if (!ours && !abort.signal.aborted) {
          lost = true;
          abort.abort(new Error('the job is no longer this runner\'s'));
        }
      }, (err: unknown) => logger.warn({ err, jobId: job.id }, 'could not renew a bench job\'s lease'));
    }, Math.max(100, Math.floor(settings.leaseMs / 3))));
    renew.unref();
    try {
      const target = targetOf(job.provider, job.model, job.request, { guard, settings });
      const measured = await measure(target, {
        settings: job.settings, signal: abort.signal,
        onCall: (ok) => this.#metrics?.calls.inc({ provider: job.provider, result: ok ? 'ok' : 'error' }),
        onProgress: (d) => {
          done = d;
          const now = Date.now();
          if (now - lastPublished >= PROGRESS_EVERY_MS) {
            lastPublished = now;
            this.#publish(job.id, 'running', d, total, job.tenantId);
          }
        },
      });
      const result: Record<string, unknown> = { ...resultOf(measured), machine: thisMachine(), settings: job.settings, target: target.shown };
      if ((result.succeeded as number) === 0) {
        const kinds = Object.entries(result.errorsByKind as Record<string, number>).map(([k, n]) => `${k}: ${n}`).join(', ');
        await this.#finish(job, { status: 'failed', done: total, error: { code: 'NO_SUCCESSFUL_CALL', message: `no call succeeded (${kinds || 'no calls'})` } });
        return 'failed';
      }
      await this.#finish(job, { status: 'succeeded', done: total, result });
      return 'succeeded';
    } catch (err) {
      if (lost) return 'lost';
      if (this.#stopping) {
        // Stopping on purpose: give the job back so another runner starts it again at once.
        await releaseJob(storage.pool, job.id, holder);
        this.#publish(job.id, 'queued', 0, total, job.tenantId);
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
    if (await finishJob(this.#o.storage.pool, job.id, this.#o.holder, outcome)) this.#publish(job.id, outcome.status, outcome.done, total, job.tenantId);
  }

  #publish(jobId: string, status: JobStatus, done: number, total: number, tenantId?: string | null): void {
    try {
      this.#o.bus.publish(benchSubjects.progress, { jobId, status, done, total, ...(tenantId ? { tenantId } : {}) });
    } catch (err) {
      this.#o.logger.warn({ err, jobId }, 'could not publish a bench job\'s progress');
    }
  }

  async #submit(req: RequestOf<typeof benchSubjects.submit>) {
    const { settings, guard, storage } = this.#o;
    const url = checkedUrl(guard, targetUrlOf(req.provider, req.url, settings));
    const id = `bench_${randomBytes(16).toString('hex')}`;
    const settingsOf = { testRuns: req.testRuns, warmupRuns: req.warmupRuns, concurrency: req.concurrency };
    await insertJob(storage.pool, {
      id, tenantId: req.caller.tenantId ?? null, createdBy: req.caller.sub, name: req.name ?? null, provider: req.provider,
      model: req.model ?? null, target: shownUrl(url), settings: settingsOf, traceParent: activeTraceParent(),
      request: {
        url: req.url ?? null,
        ...(req.method !== undefined ? { method: req.method } : {}),
        ...(req.headers !== undefined ? { headers: { ...req.headers } } : {}),
        ...(req.body !== undefined ? { body: req.body } : {}),
        ...(req.prompt !== undefined ? { prompt: req.prompt } : {}),
        ...(req.maxTokens !== undefined ? { maxTokens: req.maxTokens } : {}),
      },
    });
    this.#publish(id, 'queued', 0, req.testRuns + req.warmupRuns, req.caller.tenantId);
    setImmediate(() => this.#wake());
    const seconds = estimateDurationSeconds(req.provider, req.testRuns + req.warmupRuns, req.concurrency);
    return { jobId: id, status: 'queued' as const, estimatedDuration: formatDuration(seconds) };
  }

  async #get(jobId: string, caller: Caller): Promise<JobViewData> {
    const job = await getJob(this.#o.storage.pool, jobId, scopeOf(caller));
    if (job === null) throw new SuiteError('NOT_FOUND', `no benchmark job ${jobId}`);
    const { tenantId: _, ...view } = job;
    return view;
  }

  async #history(req: RequestOf<typeof benchSubjects.history>) {
    const { runs, total } = await listJobs(this.#o.storage.pool, scopeOf(req.caller), {
      ...(req.name !== undefined ? { name: req.name } : {}),
      ...(req.provider !== undefined ? { provider: req.provider } : {}),
      ...(req.model !== undefined ? { model: req.model } : {}),
    }, req.limit, req.offset);
    // History lists runs; their raw samples stay on GET /run/{jobId}.
    const light = runs.map(({ tenantId: _, ...run }) => ({ ...run, result: run.result === null ? null : withoutSamples(run.result) }));
    return { runs: light, total, limit: req.limit, offset: req.offset };
  }

  async #resolve(ref: string, caller: Caller, role: string) {
    const { pool } = this.#o.storage;
    const scope = scopeOf(caller);
    const job = JOB_ID.test(ref) ? await getJob(pool, ref, scope) : await latestJobNamed(pool, ref, scope);
    if (job === null) throw new SuiteError('NOT_FOUND', `${role}: no benchmark job or run named "${ref}"`);
    if (job.status !== 'succeeded') {
      throw new SuiteError('CONFLICT', `${role}: job ${job.jobId} is ${job.status} (${job.progress.done}/${job.progress.total}); only a succeeded job can be compared`);
    }
    const samples = (job.result?.samplesMs ?? []) as number[];
    if (samples.length < 2) throw new SuiteError('CONFLICT', `${role}: job ${job.jobId} has ${samples.length} successful call(s); a comparison needs at least 2`);
    return { job, samples };
  }

  async #compare(req: RequestOf<typeof benchSubjects.compare>) {
    const a = await this.#resolve(req.baseline, req.caller, 'baseline');
    const b = await this.#resolve(req.candidate, req.caller, 'candidate');
    const c = compareLatencies(a.samples, b.samples);
    return {
      ...c,
      baseline: { jobId: a.job.jobId, name: a.job.name, ...c.baseline },
      candidate: { jobId: b.job.jobId, name: b.job.name, ...c.candidate },
    };
  }
}

function withoutCoreSamples(result: Record<string, unknown>): Record<string, unknown> {
  const operations = Object.fromEntries(Object.entries((result.operations ?? {}) as Record<string, Record<string, unknown>>)
    .map(([name, { samplesMs: _, ...rest }]) => [name, rest]));
  return { ...result, operations };
}

function withoutSamples(result: Record<string, unknown>): Record<string, unknown> {
  const { samplesMs: _, ...rest } = result;
  return rest;
}

function failureOf(err: unknown): { code: string; message: string } {
  if (err instanceof TargetRefusedError) return { code: 'OUTBOUND_REFUSED', message: err.message };
  if (err instanceof SuiteError) return { code: err.code, message: err.message };
  return { code: 'INTERNAL_ERROR', message: 'the run failed unexpectedly' };
}
