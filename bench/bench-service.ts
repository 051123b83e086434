/**
 * The benchmark service's own measurement against autocannon (docs/PERFORMANCE.md, "Benchmark
 * service"), on local servers in child processes:
 *
 * 1. accuracy (bench/bench-service-accuracy.ts): a server answering after a fixed timer, measured
 *    by the runner's measurement loop (services/bench: the same lanes, guard and HDR histogram a job
 *    uses) and by autocannon, alternately over several rounds at the same concurrency and request
 *    count; p50 and p99 as medians over the rounds, beside the server's own times;
 * 2. rate (bench/bench-service-rate.ts): the most requests per second one runner drives against a
 *    no-op server, beside autocannon at the same concurrency, alternately over the same rounds, each
 *    run the same warm-up and count of calls; the median rate over the rounds and its range.
 *
 *   node bench/bench-service.ts [--rounds 5] [--delay-ms 20] [--calls-per-lane 600] [--accuracy-concurrency 1,8]
 *                               [--rate-calls 30000] [--rate-warmup 3000] [--concurrency 1,8,32] [--skip-rate] [--skip-accuracy]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createOutboundGuard, outboundPolicy } from '../actors/outbound/index.ts';
import { httpTarget } from '../services/bench/providers/http.ts';
import { measure, resultOf } from '../services/bench/measure.ts';
import { accuracy } from './bench-service-accuracy.ts';
import { rate } from './bench-service-rate.ts';
import { startServer } from './bench-service-servers.ts';

const { values } = parseArgs({
  options: {
    'delay-ms': { type: 'string', default: '20' },
    rounds: { type: 'string', default: '5' },
    'calls-per-lane': { type: 'string', default: '600' },
    'accuracy-concurrency': { type: 'string', default: '1,8' },
    'rate-calls': { type: 'string', default: '30000' },
    'rate-warmup': { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '1,8,32' },
    'skip-rate': { type: 'boolean', default: false },
    'skip-accuracy': { type: 'boolean', default: false },
  },
});
const list = (s: unknown) => String(s).split(',').map(Number);

// The embedded default (loopback allowed), as a job measuring a local server runs.
const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: false, production: false }) });

async function measured(url: string, calls: number, warmup: number, concurrency: number, onProgress: (done: number) => void = () => {}) {
  const target = httpTarget({ url: new URL(url), method: 'GET', headers: {}, body: undefined, dispatcher: guard.dispatcher, timeoutMs: 60_000 });
  return measure(target, { settings: { testRuns: calls, warmupRuns: warmup, concurrency }, signal: new AbortController().signal, onProgress });
}
async function runner(url: string, calls: number, warmup: number, concurrency: number) {
  return resultOf(await measured(url, calls, warmup, concurrency)) as { samplesMs: number[]; failed: number };
}
/** The rate as a job records it: calls over the measured phase's wall time (resultOf's throughput). */
async function runnerWall(url: string, calls: number, warmup: number, concurrency: number, measuredStart: () => void) {
  if (warmup === 0) measuredStart();
  const m = await measured(url, calls, warmup, concurrency, (done) => {
    if (done === warmup) measuredStart(); // the last warm-up call: the measured calls start next
  });
  return { wallMs: m.wallMs, failed: m.results.filter((r) => !r.ok || (r.status ?? 0) >= 400).length };
}

const load = () => loadavg().map((x) => Math.round(x * 100) / 100);
const out: Record<string, unknown> = { node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, loadAtStart: load() };
const log = (line: string) => process.stderr.write(`${line}\n`);

if (!values['skip-accuracy']) {
  const delayed = await startServer(Number(values['delay-ms']), { record: true });
  out.accuracy = {
    delayMs: Number(values['delay-ms']),
    rounds: Number(values.rounds),
    callsPerLane: Number(values['calls-per-lane']),
    ...(await accuracy({
      server: delayed,
      levels: list(values['accuracy-concurrency']),
      rounds: Number(values.rounds),
      callsPerLane: Number(values['calls-per-lane']),
      log,
      runner: async (url, calls, warmup, c) => runner(url, calls, warmup, c),
    })),
  };
  delayed.close();
}
if (!values['skip-rate']) {
  const noop = await startServer(0, { record: false });
  out.rate = {
    rounds: Number(values.rounds),
    calls: Number(values['rate-calls']),
    warmup: Number(values['rate-warmup']),
    ...(await rate({
      server: noop,
      levels: list(values.concurrency),
      rounds: Number(values.rounds),
      calls: Number(values['rate-calls']),
      warmup: Number(values['rate-warmup']),
      log,
      runner: runnerWall,
    })),
  };
  noop.close();
}
out.loadAtEnd = load();
await guard.close();
console.log(JSON.stringify(out, null, 1));
