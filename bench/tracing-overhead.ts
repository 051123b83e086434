/**
 * CPU of the tracing calls this suite adds per request when no exporter is configured (the
 * default): each append and audit decision takes a link to the active span (`linkToActive`), and
 * each group commit or audit batch starts a batch span (`batchSpan`) that the sampler drops. Run in
 * one process, timed by process CPU (not wall clock), so other load on a shared machine changes the
 * figures less than it changes a load test's rates (docs/OBSERVABILITY.md, "Cost").
 *
 *   node bench/tracing-overhead.ts [iterations=200000]
 */
import { loadavg } from 'node:os';
import { context, trace } from '@opentelemetry/api';
import { loadConfig } from '../config/index.ts';
import { batchSpan, detached, linkToActive, startTracing } from '../observability/index.ts';

const n = Number(process.argv[2] ?? 200_000);
const tracing = startTracing({ settings: loadConfig({}).tracing });
if (tracing.recording) throw new Error('this measures the default (no exporter): unset OTEL_EXPORTER_OTLP_ENDPOINT');

/** CPU microseconds per call of `fn`, best of 5 runs of n calls. */
async function cpuPerCall(fn: () => unknown | Promise<unknown>): Promise<number> {
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const v = fn();
      if (v instanceof Promise) await v;
    }
    const c = process.cpuUsage(c0);
    runs.push(((c.user + c.system) / n));
  }
  return Math.min(...runs);
}

// As an edge does for each request without an exporter: a non-recording span with fresh ids.
const span = trace.getTracer('bench').startSpan('POST /executions');
const inRequest = trace.setSpan(context.active(), span);
const empty = async () => {};
const links = Array.from({ length: 20 }, () => context.with(inRequest, linkToActive));

const baseline = await cpuPerCall(() => context.with(inRequest, empty));
const link = await cpuPerCall(() => context.with(inRequest, linkToActive));
const detach = await cpuPerCall(() => context.with(inRequest, () => detached(empty)));
const batch = await cpuPerCall(() => batchSpan('chain.commit executions', links, { 'suite.chain': 'executions' }, empty));
span.end();
await tracing.shutdown();

console.log(`| call (no exporter) | CPU per call |`);
console.log(`|---|---:|`);
console.log(`| baseline: an empty async function in the request's context | ${baseline.toFixed(2)} µs |`);
console.log(`| linkToActive (per append, per audit decision) | ${(link - baseline).toFixed(2)} µs above baseline |`);
console.log(`| detached (per batch or loop turn) | ${(detach - baseline).toFixed(2)} µs above baseline |`);
console.log(`| batchSpan with 20 links, dropped by the sampler (per commit) | ${batch.toFixed(2)} µs |`);
console.log(`\n${n} calls x 5 runs, best run; 1-minute load average ${loadavg()[0]?.toFixed(1)} (2 cores)`);
