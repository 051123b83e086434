import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Bus } from '../../bus/index.ts';
import { callerOf, sendError, sendResult, type EdgeRoutes } from '../../edge-http/index.ts';
import { answer, errorsOf, operation } from '../../edge-http/index.ts';
import { latencyBuckets, markdownReport } from '../../core/bench/index.ts';
import { benchSubjects, CompareQuery, CoreBody, HistoryQuery, JobId, RunBody, type RunSettings } from './subjects.ts';
import { reportInputOf } from './report.ts';
import { providerRuleBroken } from './run-rules.ts';
import type { ProviderInfo } from './providers-table.ts';

export interface BenchRouteOptions {
  /** The outbound guard's URL rules (scheme, credentials, literal addresses): a message when refused. */
  refuseUrl(provider: RunSettings['provider'], url: string | undefined): string | undefined;
  providers: readonly ProviderInfo[];
}

/** The path of GET /run/{jobId} (its MCP tool takes the same field). */
export const JobParams = Type.Object({ jobId: JobId });

const Latency = Type.Object({
  count: Type.Integer(),
  meanMs: Type.Number(),
  stddevMs: Type.Number(),
  minMs: Type.Number(),
  p50Ms: Type.Number(),
  p90Ms: Type.Number(),
  p95Ms: Type.Number(),
  p99Ms: Type.Number(),
  p999Ms: Type.Number(),
  maxMs: Type.Number(),
});
const Counts = Type.Record(Type.String(), Type.Integer());
/** A succeeded job's report (docs/BENCHMARK.md, "Report"), as JSON; `Accept: text/markdown` gives it in words. */
const Report = Type.Object({
  jobId: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  provider: Type.String(),
  model: Type.Union([Type.String(), Type.Null()]),
  target: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
  settings: Type.Object({ testRuns: Type.Integer(), warmupRuns: Type.Integer(), concurrency: Type.Integer() }),
  machine: Type.Optional(Type.Object({ cpuModel: Type.String(), cores: Type.Integer(), node: Type.String(), platform: Type.String() })),
  startedAt: Type.Union([Type.String(), Type.Null()]),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Number(),
  throughputPerSecond: Type.Number(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  errorsByKind: Counts,
  statusCodes: Type.Optional(Counts),
  latency: Type.Optional(Latency),
  latencyCorrected: Type.Optional(Latency),
  ttft: Type.Optional(Latency),
  interTokenLatency: Type.Optional(Latency),
  outputTokensPerSecond: Type.Optional(Type.Number()),
  histogram: Type.Array(Type.Object({ fromMs: Type.Number(), toMs: Type.Number(), count: Type.Integer() })),
});
const Providers = Type.Object(
  {
    providers: Type.Array(Type.Object({ name: Type.String(), configured: Type.Boolean(), protocol: Type.String(), measures: Type.Array(Type.String()) })),
  },
  { description: 'The four providers, whether each is configured, and what each measures' },
);

/** The benchmark service's routes (spec, "Benchmark service"; docs/BENCHMARK.md). */
export function benchRoutes(bus: Bus, o: BenchRouteOptions): EdgeRoutes {
  return (app) => {
    app.post(
      '/run',
      {
        config: { authority: { kind: 'scope', scope: 'bench:run' }, meter: 'benchmarkRuns' },
        schema: {
          ...operation('benchmarks', 'startBenchmarkRun', 'Start a benchmark run'),
          body: RunBody,
          response: { 202: answer(benchSubjects.submit.reply, 'Accepted: the job id to poll, and an estimate of its duration') },
        },
        // Runs before metering (plugins/metering.ts appends its hook after the route's own).
        preHandler: (request: FastifyRequest<{ Body: RunSettings }>, reply: FastifyReply, done: (err?: Error) => void) => {
          const broken = providerRuleBroken(request.body) ?? o.refuseUrl(request.body.provider, request.body.url);
          if (broken !== undefined) {
            sendError(reply, { code: 'INVALID_REQUEST', message: broken });
            return;
          }
          done();
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(benchSubjects.submit, { ...request.body, caller: callerOf(request) }), 202),
    );

    app.get(
      '/run/:jobId',
      {
        config: { authority: { kind: 'scope', scope: 'bench:read' } },
        schema: {
          ...operation('benchmarks', 'getBenchmarkRun', 'Read a benchmark job: its state, progress and, once succeeded, its measurements'),
          params: JobParams,
          response: { 200: answer(benchSubjects.get.reply, 'The job'), ...errorsOf(404) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(benchSubjects.get, { jobId: request.params.jobId, caller: callerOf(request) })),
    );

    app.get(
      '/run/:jobId/report',
      {
        config: { authority: { kind: 'scope', scope: 'bench:read' } },
        schema: {
          ...operation('benchmarks', 'getBenchmarkReport', 'The report of a succeeded job, as JSON or Markdown'),
          params: JobParams,
          response: {
            200: {
              description: 'The report: JSON with a latency histogram, or Markdown when `Accept` asks for text/markdown',
              content: { 'application/json': { schema: Report }, 'text/markdown': { schema: Type.String() } },
            },
            ...errorsOf(404, 409),
          },
        },
      },
      async (request, reply) => {
        const got = await bus.request(benchSubjects.get, { jobId: request.params.jobId, caller: callerOf(request) });
        if (!got.ok) return sendResult(reply, got);
        const job = got.value;
        if (job.status !== 'succeeded') {
          const why =
            job.status === 'failed'
              ? `failed (${job.error?.code ?? 'unknown'}: ${job.error?.message ?? ''})`
              : `${job.status} (${job.progress.done}/${job.progress.total})`;
          return sendError(reply, { code: 'CONFLICT', message: `job ${job.jobId} is ${why}; a report is made of a succeeded job` });
        }
        const input = reportInputOf(job);
        if ((request.headers.accept ?? '').includes('text/markdown')) {
          return reply.type('text/markdown; charset=utf-8').send(markdownReport(input));
        }
        const { samplesMs, ...rest } = input;
        return reply.send({ ...rest, histogram: latencyBuckets(samplesMs, 10) });
      },
    );

    app.get(
      '/history',
      {
        config: { authority: { kind: 'scope', scope: 'bench:read' } },
        schema: {
          ...operation('benchmarks', 'listBenchmarkRuns', 'List benchmark runs, newest first'),
          querystring: HistoryQuery,
          response: { 200: answer(benchSubjects.history.reply, 'A page of runs and their total') },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(benchSubjects.history, { ...request.query, caller: callerOf(request) })),
    );

    app.get(
      '/compare',
      {
        config: { authority: { kind: 'scope', scope: 'bench:read' } },
        schema: {
          ...operation('benchmarks', 'compareBenchmarkRuns', "Compare two runs (Welch's t-test): regression, improvement or no significant change"),
          querystring: CompareQuery,
          response: { 200: answer(benchSubjects.compare.reply, 'The verdict, with the statistics it rests on'), ...errorsOf(404, 409) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(benchSubjects.compare, { ...request.query, caller: callerOf(request) })),
    );

    app.get(
      '/providers',
      {
        config: { authority: { kind: 'public' } },
        schema: { ...operation('benchmarks', 'listBenchmarkProviders', 'The providers a run can measure'), response: { 200: Providers } },
      },
      async () => ({ providers: o.providers.map((p) => ({ ...p, measures: [...p.measures] })) }),
    );

    // The suite's own core operations (docs/BENCHMARK.md, "Core benchmark").
    app.post(
      '/bench/core',
      {
        config: { authority: { kind: 'scope', scope: 'bench:run' } },
        schema: {
          ...operation('core-benchmark', 'startCoreBenchmark', "Measure the suite's own core operations on this machine"),
          body: CoreBody,
          response: { 202: answer(benchSubjects.coreRun.reply, 'Started: read GET /bench/core when it ends'), ...errorsOf(409) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(benchSubjects.coreRun, { ...request.body, caller: callerOf(request) }), 202),
    );

    app.get(
      '/bench/core',
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('core-benchmark', 'getCoreBenchmark', 'The latest core benchmark of this machine'),
          response: { 200: answer(benchSubjects.coreLatest.reply, 'The latest run and its results'), ...errorsOf(404, 503) },
        },
      },
      async (_request, reply) => sendResult(reply, await bus.request(benchSubjects.coreLatest, {})),
    );

    app.get(
      '/bench/core/regression',
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('core-benchmark', 'getCoreBenchmarkRegression', 'The latest core run compared with the previous one on the same machine'),
          response: { 200: answer(benchSubjects.coreRegression.reply, 'The verdict per operation'), ...errorsOf(404, 503) },
        },
      },
      async (_request, reply) => sendResult(reply, await bus.request(benchSubjects.coreRegression, {})),
    );
  };
}
