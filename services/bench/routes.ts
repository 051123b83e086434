import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Bus } from '../../bus/index.ts';
import { callerOf, sendError, sendResult, type EdgeRoutes } from '../../edge-http/index.ts';
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

/** The benchmark service's routes (spec, "Benchmark service"; docs/BENCHMARK.md). */
export function benchRoutes(bus: Bus, o: BenchRouteOptions): EdgeRoutes {
  return (app) => {
    app.post('/run', {
      config: { authority: { kind: 'scope', scope: 'bench:run' }, meter: 'benchmarkRuns' },
      schema: { body: RunBody },
      // Runs before metering (plugins/metering.ts appends its hook after the route's own).
      preHandler: (request: FastifyRequest<{ Body: RunSettings }>, reply: FastifyReply, done: (err?: Error) => void) => {
        const broken = providerRuleBroken(request.body) ?? o.refuseUrl(request.body.provider, request.body.url);
        if (broken !== undefined) {
          sendError(reply, { code: 'INVALID_REQUEST', message: broken });
          return;
        }
        done();
      },
    }, async (request, reply) => sendResult(reply, await bus.request(benchSubjects.submit, { ...request.body, caller: callerOf(request) }), 202));

    app.get('/run/:jobId', {
      config: { authority: { kind: 'scope', scope: 'bench:read' } },
      schema: { params: JobParams },
    }, async (request, reply) => sendResult(reply, await bus.request(benchSubjects.get, { jobId: request.params.jobId, caller: callerOf(request) })));

    app.get('/run/:jobId/report', {
      config: { authority: { kind: 'scope', scope: 'bench:read' } },
      schema: { params: JobParams },
    }, async (request, reply) => {
      const got = await bus.request(benchSubjects.get, { jobId: request.params.jobId, caller: callerOf(request) });
      if (!got.ok) return sendResult(reply, got);
      const job = got.value;
      if (job.status !== 'succeeded') {
        const why = job.status === 'failed' ? `failed (${job.error?.code ?? 'unknown'}: ${job.error?.message ?? ''})` : `${job.status} (${job.progress.done}/${job.progress.total})`;
        return sendError(reply, { code: 'CONFLICT', message: `job ${job.jobId} is ${why}; a report is made of a succeeded job` });
      }
      const input = reportInputOf(job);
      if ((request.headers.accept ?? '').includes('text/markdown')) {
        return reply.type('text/markdown; charset=utf-8').send(markdownReport(input));
      }
      const { samplesMs, ...rest } = input;
      return reply.send({ ...rest, histogram: latencyBuckets(samplesMs, 10) });
    });

    app.get('/history', {
      config: { authority: { kind: 'scope', scope: 'bench:read' } },
      schema: { querystring: HistoryQuery },
    }, async (request, reply) => sendResult(reply, await bus.request(benchSubjects.history, { ...request.query, caller: callerOf(request) })));

    app.get('/compare', {
      config: { authority: { kind: 'scope', scope: 'bench:read' } },
      schema: { querystring: CompareQuery },
    }, async (request, reply) => sendResult(reply, await bus.request(benchSubjects.compare, { ...request.query, caller: callerOf(request) })));

    app.get('/providers', { config: { authority: { kind: 'public' } } }, async () => ({ providers: o.providers }));

    // The suite's own core operations (docs/BENCHMARK.md, "Core benchmark").
    app.post('/bench/core', {
      config: { authority: { kind: 'scope', scope: 'bench:run' } },
      schema: { body: CoreBody },
    }, async (request, reply) => sendResult(reply, await bus.request(benchSubjects.coreRun, { ...request.body, caller: callerOf(request) }), 202));

    app.get('/bench/core', { config: { authority: { kind: 'public' } } },
      async (_request, reply) => sendResult(reply, await bus.request(benchSubjects.coreLatest, {})));

    app.get('/bench/core/regression', { config: { authority: { kind: 'public' } } },
      async (_request, reply) => sendResult(reply, await bus.request(benchSubjects.coreRegression, {})));
  };
}
