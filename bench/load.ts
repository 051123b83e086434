/**
 * autocannon, driven programmatically: a warm-up run (discarded), then the measured run. autocannon
 * ships no TypeScript types, so the few fields used here are declared below.
 */
import { createRequire } from 'node:module';
import { observeCpu, waitForQuiet } from './cpu.ts';

interface AutocannonOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  pipelining: number;
  duration: number;
}

interface Histogram {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

interface AutocannonResult {
  requests: Histogram & { total: number; sent: number };
  latency: Histogram;
  errors: number;
  timeouts: number;
  non2xx: number;
  resets: number;
  statusCodeStats: Record<string, { count: number }>;
  duration: number;
}

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as (o: AutocannonOptions) => Promise<AutocannonResult>;

export interface LoadTarget {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadSettings {
  connections: number;
  pipelining: number;
  warmupSeconds: number;
  seconds: number;
  /** Runs at most this many times while other processes load the machine (a shared machine). */
  attempts: number;
  /** A run during which other processes used more than this (% of one core) is tried again. */
  foreignLimitPct: number;
}

export interface LoadResult {
  name: string;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU used by processes other than the load generator and the server during the run, % of a core. */
  foreignCorePct: number;
  /** CPU of the load generator (autocannon runs in this process) during the run, % of a core. */
  loadGeneratorCorePct: number;
  /** The server's CPU during the run per thread name (and child process), % of one core. */
  serverThreads: Record<string, number>;
  /** Other processes' CPU during the attempts discarded before this one (empty: first try). */
  discarded: number[];
}

/**
 * Warm up, then measure; `serverPid` is the process under test (its CPU is watched, with its
 * children). A run disturbed by other processes is run again, up to `attempts` times in all; the
 * least disturbed one is kept, and the others are listed in `discarded`.
 */
export async function measure(target: LoadTarget, s: LoadSettings, serverPid: number): Promise<LoadResult> {
  const runs: LoadResult[] = [];
  const attempts = Number.isInteger(s.attempts) && s.attempts > 1 ? s.attempts : 1;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await waitForQuiet(serverPid, s.foreignLimitPct, 30_000);
    const run = await measureOnce(target, s, serverPid);
    runs.push(run);
    if (run.foreignCorePct <= s.foreignLimitPct) break;
  }
  const kept = runs.reduce((a, b) => (b.foreignCorePct < a.foreignCorePct ? b : a));
  return { ...kept, discarded: runs.filter((r) => r !== kept).map((r) => r.foreignCorePct) };
}

async function measureOnce(target: LoadTarget, s: LoadSettings, serverPid: number): Promise<LoadResult> {
  const base = {
    url: target.url,
    method: target.method,
    connections: s.connections,
    pipelining: s.pipelining,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body !== undefined ? { body: target.body } : {}),
  };
  if (s.warmupSeconds > 0) await autocannon({ ...base, duration: s.warmupSeconds });
  const { result: r, foreignCorePct, server, selfCorePct } = await observeCpu(serverPid, () => autocannon({ ...base, duration: s.seconds }));
  return {
    name: target.name,
    reqPerSec: r.requests.mean,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    maxMs: r.latency.max,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    foreignCorePct,
    loadGeneratorCorePct: selfCorePct,
    serverThreads: server,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, v]) => [code, v.count])),
    discarded: [],
  };
}
