import { randomBytes } from 'node:crypto';
import { activeTraceParent } from '../../observability/index.ts';
import type { Logger } from 'pino';
import type { Bus, Caller, RequestOf, Subscription } from '../../bus/index.ts';
import { SuiteError } from '../../bus/index.ts';
import type { Storage } from '../../storage/index.ts';
import type { BenchSettings } from './config.ts';
import type { OutboundGuard } from '../../actors/outbound/index.ts';
import { BusActor, replyOf } from '../../actors/base/index.ts';
import { compareLatencies, estimateDurationSeconds, formatDuration } from '../../core/bench/index.ts';
import { benchSubjects, type JobStatus, type JobViewData } from './subjects.ts';
import { getJob, insertCoreRun, insertJob, latestCoreRuns, latestJobNamed, listJobs, type JobScope } from './store.ts';
import { checkedUrl, shownUrl, targetUrlOf } from './targets.ts';
import { machineKey, thisMachine } from './machine.ts';
import { benchMetrics } from './metrics.ts';
import { JobPump } from './job-pump.ts';
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

const JOB_ID = /^bench_[0-9a-f]{32}$/;

/** Which jobs a caller sees: the admin all, a tenant its own, anyone else the untenanted ones. */
export function scopeOf(caller: Caller): JobScope {
  return caller.kind === 'admin' ? { all: true } : { all: false, tenantId: caller.tenantId ?? null };
}

/**
 * The bench runner: takes jobs (POST /run), has its JobPump (job-pump.ts) measure them one at a
 * time, and answers reads. Any number of runners share the jobs through the database: a claim is a
 * row lock and a lease the runner renews while it measures, so a job runs once; a runner that dies leaves its lease to run
 * out, and the job is taken again from the start (once) or failed (docs/BENCHMARK.md, "States").
 */
export class BenchRunnerActor extends BusActor {
  readonly #o: BenchRunnerOptions;
  readonly #jobs: JobPump;
  #core: { abort: AbortController; done: Promise<void> } | undefined;

  constructor(o: BenchRunnerOptions) {
    super();
    this.#o = o;
    const metrics = o.registry ? benchMetrics(o.registry) : undefined;
    this.#jobs = new JobPump({ ...o, metrics, publish: (jobId, status, done, total, tenantId) => this.#publish(jobId, status, done, total, tenantId) });
  }

  protected subscriptions(): Subscription[] {
    const { bus, logger } = this.#o;
    const queue = { queue: 'bench' };
    const unexpected = (err: unknown) => logger.error({ err }, 'bench request failed');
    this.every(this.#o.settings.pollMs, () => this.#jobs.wake(), 'bench.poll');
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
    const pumped = this.#jobs.stop();
    this.#core?.abort.abort(new Error('the runner is stopping'));
    await Promise.all([pumped, this.#core?.done]);
  }

  /** One core run at a time per runner, in the background; its result is stored when it ends. */
  async #coreRun(req: RequestOf<typeof benchSubjects.coreRun>) {
    if (this.#core !== undefined) throw new SuiteError('CONFLICT', 'a core benchmark is already running on this runner; read GET /bench/core when it ends');
    const runId = `core_${randomBytes(16).toString('hex')}`;
    const abort = new AbortController();
    const busy = this.#jobs.busy;
    const done = runCoreBench({ iterations: req.iterations, chainLength: req.chainLength }, abort.signal)
      .then(async (operations) => {
        const machine = thisMachine();
        await insertCoreRun(this.#o.storage.pool, {
          id: runId,
          machineKey: machineKey(machine),
          machine,
          createdBy: req.caller.sub,
          result: { settings: { iterations: req.iterations, chainLength: req.chainLength }, beside: busy ? 'a job was being measured' : null, operations },
        });
      })
      .catch((err: unknown) => {
        if (!abort.signal.aborted) this.#o.logger.error({ err }, 'a core benchmark failed');
      })
      .finally(() => {
        this.#core = undefined;
      });
    this.#core = { abort, done };
    return {
      runId,
      status: 'running' as const,
      estimatedDuration: formatDuration(Math.max(1, Math.ceil((req.iterations * 6 * 0.3 + req.chainLength * 2) / 1000))),
    };
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
    const verdict = verdicts.includes('regression')
      ? ('regression' as const)
      : verdicts.includes('improvement')
        ? ('improvement' as const)
        : ('no significant change' as const);
    return { verdict, machineKey: latest.machineKey, latest: latest.runId, previous: previous.runId, operations };
  }

  #publish(jobId: string, status: JobStatus, done: number, total: number, tenantId?: string | null): void {
    try {
      this.#o.bus.publish(benchSubjects.progress, { jobId, status, done, total, ...(tenantId ? { tenantId } : {}) });
    } catch (err) {
      this.#o.logger.warn({ err, jobId }, "could not publish a bench job's progress");
    }
  }

  async #submit(req: RequestOf<typeof benchSubjects.submit>) {
    const { settings, guard, storage } = this.#o;
    const url = checkedUrl(guard, targetUrlOf(req.provider, req.url, settings));
    const id = `bench_${randomBytes(16).toString('hex')}`;
    const settingsOf = { testRuns: req.testRuns, warmupRuns: req.warmupRuns, concurrency: req.concurrency };
    await insertJob(storage.pool, {
      id,
      tenantId: req.caller.tenantId ?? null,
      createdBy: req.caller.sub,
      name: req.name ?? null,
      provider: req.provider,
      model: req.model ?? null,
      target: shownUrl(url),
      settings: settingsOf,
      traceParent: activeTraceParent(),
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
    setImmediate(() => this.#jobs.wake());
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
    const { runs, total } = await listJobs(
      this.#o.storage.pool,
      scopeOf(req.caller),
      {
        ...(req.name !== undefined ? { name: req.name } : {}),
        ...(req.provider !== undefined ? { provider: req.provider } : {}),
        ...(req.model !== undefined ? { model: req.model } : {}),
      },
      req.limit,
      req.offset,
    );
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
      throw new SuiteError(
        'CONFLICT',
        `${role}: job ${job.jobId} is ${job.status} (${job.progress.done}/${job.progress.total}); only a succeeded job can be compared`,
      );
    }
    const samples = (job.result?.samplesMs ?? []) as number[];
    if (samples.length < 2)
      throw new SuiteError('CONFLICT', `${role}: job ${job.jobId} has ${samples.length} successful call(s); a comparison needs at least 2`);
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
  const operations = Object.fromEntries(
    Object.entries((result.operations ?? {}) as Record<string, Record<string, unknown>>).map(([name, { samplesMs: _, ...rest }]) => [name, rest]),
  );
  return { ...result, operations };
}

function withoutSamples(result: Record<string, unknown>): Record<string, unknown> {
  const { samplesMs: _, ...rest } = result;
  return rest;
}
