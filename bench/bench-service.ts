/**
 * The benchmark service's own measurement against autocannon (docs/PERFORMANCE.md, "Benchmark
 * service"): on one local server in a child process,
 *
 * 1. accuracy: a server with a known delay, measured by the runner's measurement loop
 *    (services/bench: the same lanes, guard and HDR histogram a job uses) and by autocannon, at the
 *    same concurrency and request count, alternately, twice each: p50 and p99 side by side;
 * 2. the most requests per second one runner drives against a no-op server (50000 calls), beside
 *    autocannon's rate over 5 s at the same concurrency.
 *
 * autocannon reports latency in whole milliseconds, hence a delay of 20 ms (its rounding is then 2.5%).
 *
 *   node bench/bench-service.ts [--delay-ms 20] [--calls 300] [--rate-calls 20000] [--concurrency 1,8,32]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { createOutboundGuard, outboundPolicy } from '../actors/outbound/index.ts';
import { httpTarget } from '../services/bench/providers/http.ts';
import { measure, resultOf } from '../services/bench/measure.ts';

const { values } = parseArgs({ options: {
  'delay-ms': { type: 'string', default: '20' }, calls: { type: 'string', default: '300' },
  'rate-calls': { type: 'string', default: '50000' }, concurrency: { type: 'string', default: '1,8,32' },
} });
const DELAY = Number(values['delay-ms']);
const CALLS = Number(values.calls);
const RATE_CALLS = Number(values['rate-calls']);
const LEVELS = String(values.concurrency).split(',').map(Number);

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as (o: Record<string, unknown>) => Promise<{ latency: { p50: number; p99: number }; requests: { average: number; total: number }; duration: number; start: Date; finish: Date; errors: number; non2xx: number }>;

const SERVER = `
const http = require('node:http');
const delay = Number(process.argv[1]);
const s = http.createServer((req, res) => { req.resume(); const end = () => res.end('ok'); delay > 0 ? setTimeout(end, delay) : end(); });
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;

async function server(delayMs: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', SERVER, String(delayMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
  return { url: `http://127.0.0.1:${port}/`, child };
}

// The embedded default (loopback allowed), as a job measuring a local server runs.
const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: false, production: false }) });

async function runner(url: string, calls: number, concurrency: number) {
  const target = httpTarget({ url: new URL(url), method: 'GET', headers: {}, body: undefined, dispatcher: guard.dispatcher, timeoutMs: 60_000 });
  const measured = await measure(target, { settings: { testRuns: calls, warmupRuns: Math.min(50, calls), concurrency }, signal: new AbortController().signal, onProgress() {} });
  const r = resultOf(measured) as { latency: { p50Ms: number; p99Ms: number }; throughputPerSecond: number; failed: number };
  return { p50Ms: r.latency.p50Ms, p99Ms: r.latency.p99Ms, reqPerSec: r.throughputPerSecond, failed: r.failed };
}

async function cannon(url: string, o: { amount?: number; duration?: number }, connections: number) {
  await autocannon({ url, connections, amount: Math.min(50 * connections, 500) }); // warm-up, discarded
  const r = await autocannon({ url, connections, ...o });
  // `duration` is whole seconds; start and finish give the wall time.
  const seconds = (new Date(r.finish).getTime() - new Date(r.start).getTime()) / 1000;
  return { p50Ms: r.latency.p50, p99Ms: r.latency.p99, reqPerSec: Math.round(r.requests.total / seconds), failed: r.errors + r.non2xx };
}

const out: Record<string, unknown> = { node: process.version, delayMs: DELAY, calls: CALLS };
const delayed = await server(DELAY);
const accuracy: unknown[] = [];
for (const c of [1, 8]) {
  for (let round = 0; round < 2; round++) {
    accuracy.push({ concurrency: c, round, tool: 'autocannon', ...await cannon(delayed.url, { amount: CALLS }, c) });
    accuracy.push({ concurrency: c, round, tool: 'runner', ...await runner(delayed.url, CALLS, c) });
  }
}
out.accuracy = accuracy;
// The same comparison with both tools running at once, each against its own copy of the server: a
// busy machine's interference then falls on both alike, instead of on whichever ran at a bad moment.
const twin = await server(DELAY);
const together: unknown[] = [];
for (const c of [1, 8]) {
  const [a, r] = await Promise.all([cannon(delayed.url, { amount: CALLS }, c), runner(twin.url, CALLS, c)]);
  together.push({ concurrency: c, tool: 'autocannon', ...a }, { concurrency: c, tool: 'runner', ...r });
}
out.together = together;
twin.child.kill();
delayed.child.kill();
const noop = await server(0);
const rate: unknown[] = [];
for (const c of LEVELS) {
  // By duration: with `amount` autocannon ends on its one-second ticker, so its wall time (and rate)
  // is quantised to whole seconds.
  rate.push({ concurrency: c, tool: 'autocannon', ...await cannon(noop.url, { duration: 5 }, c) });
  rate.push({ concurrency: c, tool: 'runner', ...await runner(noop.url, RATE_CALLS, c) });
}
out.rate = rate;
noop.child.kill();
await guard.close();
console.log(JSON.stringify(out, null, 1));
