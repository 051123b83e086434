/**
 * The benchmark service's own measurement against autocannon (docs/PERFORMANCE.md, "Benchmark
 * service"), on local servers in child processes:
 *
 * 1. accuracy (bench/bench-service-accuracy.ts): a server answering after a fixed timer, measured
 *    by the runner's measurement loop (services/bench: the same lanes, guard and HDR histogram a job
 *    uses) and by autocannon, alternately over several rounds at the same concurrency and request
 *    count; p50 and p99 as medians over the rounds, beside the server's own times;
 * 2. the most requests per second one runner drives against a no-op server, beside autocannon's
 *    rate over 5 s at the same concurrency.
 *
 *   node bench/bench-service.ts [--delay-ms 20] [--rounds 5] [--calls-per-lane 600] [--accuracy-concurrency 1,8]
 *                               [--rate-calls 50000] [--concurrency 1,8,32] [--skip-rate] [--skip-accuracy]
 */
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createOutboundGuard, outboundPolicy } from '../actors/outbound/index.ts';
import { httpTarget } from '../services/bench/providers/http.ts';
import { measure, resultOf } from '../services/bench/measure.ts';
import { accuracy } from './bench-service-accuracy.ts';
import { startServer } from './bench-service-servers.ts';

const { values } = parseArgs({ options: {
  'delay-ms': { type: 'string', default: '20' }, rounds: { type: 'string', default: '5' },
  'calls-per-lane': { type: 'string', default: '600' }, 'accuracy-concurrency': { type: 'string', default: '1,8' },
  'rate-calls': { type: 'string', default: '50000' }, concurrency: { type: 'string', default: '1,8,32' },
  'skip-rate': { type: 'boolean', default: false }, 'skip-accuracy': { type: 'boolean', default: false },
} });
const list = (s: unknown) => String(s).split(',').map(Number);

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as (o: Record<string, unknown>) => Promise<{ requests: { total: number }; start: Date; finish: Date; errors: number; non2xx: number }>;

// The embedded default (loopback allowed), as a job measuring a local server runs.
const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: false, production: false }) });

async function runner(url: string, calls: number, warmup: number, concurrency: number) {
  const target = httpTarget({ url: new URL(url), method: 'GET', headers: {}, body: undefined, dispatcher: guard.dispatcher, timeoutMs: 60_000 });
  const measured = await measure(target, { settings: { testRuns: calls, warmupRuns: warmup, concurrency }, signal: new AbortController().signal, onProgress() {} });
  return resultOf(measured) as { samplesMs: number[]; throughputPerSecond: number; failed: number };
}

async function cannonRate(url: string, seconds: number, connections: number) {
  await autocannon({ url, connections, amount: Math.min(50 * connections, 500) }); // warm-up, discarded
  const r = await autocannon({ url, connections, duration: seconds });
  // `duration` is whole seconds; start and finish give the wall time.
  const wall = (new Date(r.finish).getTime() - new Date(r.start).getTime()) / 1000;
  return { reqPerSec: Math.round(r.requests.total / wall), failed: r.errors + r.non2xx };
}

const load = () => loadavg().map((x) => Math.round(x * 100) / 100);
const out: Record<string, unknown> = { node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, loadAtStart: load() };
const log = (line: string) => process.stderr.write(`${line}\n`);

if (!values['skip-accuracy']) {
  const delayed = await startServer(Number(values['delay-ms']), { record: true });
  out.accuracy = {
    delayMs: Number(values['delay-ms']), rounds: Number(values.rounds), callsPerLane: Number(values['calls-per-lane']),
    ...await accuracy({
      server: delayed, levels: list(values['accuracy-concurrency']), rounds: Number(values.rounds), callsPerLane: Number(values['calls-per-lane']), log,
      runner: async (url, calls, warmup, c) => runner(url, calls, warmup, c),
    }),
  };
  delayed.close();
}
if (!values['skip-rate']) {
  const noop = await startServer(0, { record: false });
  const rate: unknown[] = [];
  for (const c of list(values.concurrency)) {
    // By duration: with `amount` autocannon ends on its one-second ticker, so its wall time (and rate)
    // is quantised to whole seconds.
    rate.push({ concurrency: c, tool: 'autocannon', ...await cannonRate(noop.url, 5, c) });
    const r = await runner(noop.url, Number(values['rate-calls']), Math.min(50 * c, 500), c);
    rate.push({ concurrency: c, tool: 'runner', reqPerSec: r.throughputPerSecond, failed: r.failed });
    log(JSON.stringify(rate.slice(-2)));
  }
  out.rate = rate;
  noop.close();
}
out.loadAtEnd = load();
await guard.close();
console.log(JSON.stringify(out, null, 1));
