import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { LocalServer } from './bench-service-servers.ts';

/**
 * The most requests per second one runner drives against a no-op server, beside autocannon
 * (docs/PERFORMANCE.md, "Benchmark service"), measured as the accuracy is: both tools against the
 * same server (in its own process), one after the other, round after round, the order swapped every
 * round, so a noisy moment of a shared machine falls on either; compared: the median rate over the
 * rounds, with its range.
 *
 * Each run: the same warm-up (a count of calls at the same concurrency, discarded), then the same
 * count of calls. Rate = calls / wall time, each tool on this process's clock:
 * - runner: the measured phase's wall time as a job records it (services/bench/measure.ts);
 * - autocannon: from starting it to its last response (its own `start`/`finish` are read on a one-second
 *   ticker when it runs by count, so its wall time would come out in whole seconds). This span also
 *   holds autocannon opening its connections (the runner's are open from the warm-up): a few ms of a
 *   run of one second or more.
 * Each run also records, over the measured calls, this process's CPU time per request (user, system)
 * and the server process's (from /proc, Linux), and how busy each was (CPU time over the measured
 * wall time, in cores): the side near 1.0 is the one that bounds the rate. (autocannon's promise
 * settles on its next one-second tick, after its last response: both processes idle by then.)
 */
/** `measuredStart` is called as the warm-up ends and the measured calls begin. */
export type RunnerRate = (
  url: string,
  calls: number,
  warmup: number,
  concurrency: number,
  measuredStart: () => void,
) => Promise<{ wallMs: number; failed: number }>;

type Cannon = (o: Record<string, unknown>) => Promise<{ errors: number; non2xx: number }> & NodeJS.EventEmitter;
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Cannon;

export interface RateRun {
  tool: 'autocannon' | 'runner';
  concurrency: number;
  round: number;
  calls: number;
  failed: number;
  reqPerSec: number;
  /** This process's CPU per measured request, µs. */
  userUsPerReq: number;
  systemUsPerReq: number;
  /** The server process's CPU per request (user + system), µs; null where /proc is not there. */
  serverUsPerReq: number | null;
  /** CPU time over the measured wall time, in cores. */
  clientBusy: number;
  serverBusy: number | null;
  load1: number;
}

async function cannonWall(url: string, calls: number, warmup: number, c: number, measuredStart: () => void): Promise<{ wallMs: number; failed: number }> {
  await autocannon({ url, connections: c, amount: warmup }); // warm-up, discarded
  measuredStart();
  const start = performance.now();
  let last = start;
  const instance = autocannon({ url, connections: c, amount: calls });
  instance.on('response', () => {
    last = performance.now();
  });
  const r = await instance;
  return { wallMs: last - start, failed: r.errors + r.non2xx };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r1 = (x: number) => Math.round(x * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;

/** A process's user + system CPU time so far, µs, from /proc/<pid>/stat (fields 14 and 15, in clock ticks: 100 a second on Linux). */
function processCpuUs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

export async function rate(o: {
  server: LocalServer;
  runner: RunnerRate;
  levels: readonly number[];
  rounds: number;
  calls: number;
  warmup: number;
  log(line: string): void;
}) {
  const runs: RateRun[] = [];
  for (const c of o.levels) {
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? (['autocannon', 'runner'] as const) : (['runner', 'autocannon'] as const);
      for (const tool of order) {
        const load1 = Math.round(loadavg()[0]! * 100) / 100;
        const { url, pid } = o.server;
        // CPU of the measured calls only: taken as the warm-up ends.
        let cpu0 = process.cpuUsage();
        let server0 = processCpuUs(pid);
        const measuredStart = (): void => {
          cpu0 = process.cpuUsage();
          server0 = processCpuUs(pid);
        };
        const measured =
          tool === 'autocannon' ? await cannonWall(url, o.calls, o.warmup, c, measuredStart) : await o.runner(url, o.calls, o.warmup, c, measuredStart);
        const [cpu, server1, elapsedUs] = [process.cpuUsage(cpu0), processCpuUs(pid), measured.wallMs * 1000];
        const serverUs = server0 !== null && server1 !== null ? server1 - server0 : null;
        const run: RateRun = {
          tool,
          concurrency: c,
          round,
          calls: o.calls,
          failed: measured.failed,
          reqPerSec: Math.round((o.calls / measured.wallMs) * 1000),
          userUsPerReq: r1(cpu.user / o.calls),
          systemUsPerReq: r1(cpu.system / o.calls),
          serverUsPerReq: serverUs === null ? null : r1(serverUs / o.calls),
          clientBusy: r2((cpu.user + cpu.system) / elapsedUs),
          serverBusy: serverUs === null ? null : r2(serverUs / elapsedUs),
          load1,
        };
        runs.push(run);
        o.log(JSON.stringify(run));
      }
    }
  }
  return { runs, summary: summarize(runs, o.levels) };
}

/**
 * Per concurrency and tool: median req/s over the rounds, its range, the medians of the CPU figures;
 * runner / autocannon of the medians, and (a check) the median and range of each round's own ratio,
 * whose two runs sit next to each other in time.
 */
function summarize(runs: readonly RateRun[], levels: readonly number[]) {
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return levels.map((c) => {
    const of = (tool: RateRun['tool']) => runs.filter((r) => r.concurrency === c && r.tool === tool);
    const med = (xs: readonly (number | null)[]) => (xs.includes(null) ? null : median(xs as number[]));
    const stats = (tool: RateRun['tool']) => {
      const rates = of(tool).map((r) => r.reqPerSec);
      return {
        reqPerSec: { median: median(rates), min: Math.min(...rates), max: Math.max(...rates) },
        clientUsPerReq: { user: med(of(tool).map((r) => r.userUsPerReq)), system: med(of(tool).map((r) => r.systemUsPerReq)) },
        serverUsPerReq: med(of(tool).map((r) => r.serverUsPerReq)),
        busy: { client: med(of(tool).map((r) => r.clientBusy)), server: med(of(tool).map((r) => r.serverBusy)) },
        failed: of(tool).reduce((n, r) => n + r.failed, 0),
      };
    };
    const a = stats('autocannon');
    const r = stats('runner');
    const paired = of('runner').map((x) => x.reqPerSec / of('autocannon').find((y) => y.round === x.round)!.reqPerSec);
    return {
      concurrency: c,
      autocannon: a,
      runner: r,
      runnerOverAutocannon: r3(r.reqPerSec.median / a.reqPerSec.median),
      perRoundRatio: { median: r3(median(paired)), min: r3(Math.min(...paired)), max: r3(Math.max(...paired)) },
    };
  });
}
