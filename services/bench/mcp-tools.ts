import { Type } from 'typebox';
import { callerOfPrincipal, defineTool, type McpTool } from '../../edge-mcp/index.ts';
import { benchSubjects as subjects, CompareQuery, HistoryQuery, RunBody } from './subjects.ts';
import { JobParams } from './routes.ts';
import { providerRuleBroken } from './run-rules.ts';

/** GET /run/{jobId}'s path as a tool's arguments: nothing else accepted. */
const JobArgs = Type.Object(JobParams.properties, { additionalProperties: false });

/**
 * The benchmark service's routes as MCP tools (docs/MCP.md): each its route's scope and schema, and
 * the bus request the route makes, with the caller as `callerOf` gives it on the route.
 */
export function benchTools(): McpTool[] {
  return [
    defineTool({
      name: 'run_benchmark',
      description: 'Start a latency benchmark of an HTTP endpoint or an LLM provider (runs, warm-up, concurrency); returns the job id to poll.',
      scope: 'bench:run',
      route: 'POST /run',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.submit.reply,
      input: RunBody,
      async run(args, caller, bus) {
        // The route's own pre-check (fields that depend on the provider); the runner checks the URL.
        const broken = providerRuleBroken(args);
        if (broken !== undefined) return { ok: false, error: { code: 'INVALID_REQUEST', message: broken } };
        return bus.request(subjects.submit, { ...args, caller: callerOfPrincipal(caller) });
      },
    }),
    defineTool({
      name: 'get_benchmark_run',
      description: 'Read a benchmark job (bench_...): its status, progress and, once succeeded, its latency percentiles.',
      scope: 'bench:read',
      route: 'GET /run/:jobId',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.get.reply,
      input: JobArgs,
      run: (args, caller, bus) => bus.request(subjects.get, { jobId: args.jobId, caller: callerOfPrincipal(caller) }),
    }),
    defineTool({
      name: 'compare_benchmarks',
      description: "Compare two succeeded benchmark runs (job ids or run names) with Welch's t-test: regression, improvement or no significant change.",
      scope: 'bench:read',
      route: 'GET /compare',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.compare.reply,
      input: CompareQuery,
      run: (args, caller, bus) => bus.request(subjects.compare, { ...args, caller: callerOfPrincipal(caller) }),
    }),
    defineTool({
      name: 'benchmark_history',
      description: 'List past benchmark runs, newest first, filtered by run name, provider or model.',
      scope: 'bench:read',
      route: 'GET /history',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.history.reply,
      input: HistoryQuery,
      run: (args, caller, bus) => bus.request(subjects.history, { ...args, caller: callerOfPrincipal(caller) }),
    }),
  ];
}
