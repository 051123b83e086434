/**
 * HTTP throughput of the token edge against a bare Fastify route on the same machine and Node.
 *
 *   node bench/http.ts [--seconds 10] [--warmup 3] [--connections 50] [--protected-path /capabilities]
 *                      [--no-pin] [--cpu-prof DIR] [--attempts 3] [--foreign-limit 15]
 *
 * Each server runs in its own child process; the load generator (autocannon, in this process) and
 * the server under test each get one core. The embedded suite runs with the rate limit raised out of
 * the way (SUITE_RATE_LIMIT_MAX=100000000): the limiter still runs, it just never says no.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callJson, mint } from './api.ts';
import { cleanEnv, pinLoadGenerator, spawnNode, unpinLoadGenerator, type Child, type Pinning } from './child.ts';
import { waitIdle } from './cpu.ts';
import { measure, type LoadResult, type LoadSettings, type LoadTarget } from './load.ts';
import { describeMachine, machineMarkdown } from './machine.ts';

export const TARGET_RATIO = 0.6;
const RATE_LIMIT_MAX = '100000000';
const SERVER_CPU = 1;

export interface HttpBenchOptions extends LoadSettings {
  protectedPath?: string | undefined;
  pin: boolean;
  cpuProfDir?: string | undefined;
}

export interface HttpBenchResult {
  settings: LoadSettings;
  pinning: Pinning;
  protectedPath: string;
  notes: string[];
  bare: LoadResult;
  /** Diagnostic: GET /health on the edge app (request id, metrics, error shape; no auth, no rate limit, no bus). */
  healthGet: LoadResult;
  validate: LoadResult;
  protectedGet: LoadResult;
  failures: string[];
}

const SUITE_PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];

async function withChild<T>(child: Child, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    await child.stop();
  }
}

async function benchBare(o: HttpBenchOptions, cpu: number | undefined): Promise<LoadResult> {
  const child = spawnNode('bench/bare-server.ts', [], { env: cleanEnv({}), pinCpu: cpu });
  return withChild(child, async () => {
    const port = (await child.waitFor(/listening (\d+)/, 30_000))[1];
    return measure({ name: 'bare Fastify GET /', url: `http://127.0.0.1:${port}/`, method: 'GET' }, o, child.proc.pid ?? 0);
  });
}

/** The protected GET: `/capabilities` when the edge has it, else `GET /audit?limit=1` (noted). */
async function chooseProtectedPath(base: string, token: string, asked: string | undefined, notes: string[]): Promise<string> {
  const auth = { authorization: `Bearer ${token}` };
  if (asked !== undefined) return asked;
  const caps = await callJson(`${base}/capabilities`, { headers: auth });
  if (caps.status === 200) return '/capabilities';
  notes.push(
    `GET /capabilities answered ${caps.status} (not built yet?): the protected GET used GET /audit?limit=1, which also reads the database through the bus.`,
  );
  return '/audit?limit=1';
}

interface SuiteRuns {
  healthGet: LoadResult;
  protectedGet: LoadResult;
  validate: LoadResult;
  path: string;
}

async function benchSuite(o: HttpBenchOptions, cpu: number | undefined, notes: string[]): Promise<SuiteRuns> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-bench-'));
  const env = cleanEnv({
    SUITE_LOG_LEVEL: 'warn',
    SUITE_RATE_LIMIT_MAX: RATE_LIMIT_MAX,
    SUITE_HOST: '127.0.0.1',
    ...Object.fromEntries(SUITE_PORTS.map((p) => [p, '0'])),
  });
  const nodeArgs = o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [];
  const child = spawnNode('cli/suite.ts', ['start', '--data-dir', join(dir, 'data')], { env, pinCpu: cpu, nodeArgs });
  try {
    return await withChild(child, async () => {
      const port = (await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 60_000))[1];
      const base = `http://127.0.0.1:${port}`;
      const { adminKey } = JSON.parse(await readFile(join(dir, 'data', 'secrets.json'), 'utf8')) as { adminKey: string };
      const { token } = await mint(base, adminKey, 'bench-agent', ['auth:token:validate', 'audit:read']);
      const auth = { authorization: `Bearer ${token}` };

      const validateTarget: LoadTarget = {
        name: 'POST /auth/token/validate (requiredScope)',
        url: `${base}/auth/token/validate`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ token, requiredScope: 'audit:read' }),
      };
      const check = await callJson(validateTarget.url, { headers: auth, body: { token, requiredScope: 'audit:read' } });
      if (check.status !== 200 || check.body.valid !== true) throw new Error(`validate check failed: ${check.status} ${JSON.stringify(check.body)}`);

      const path = await chooseProtectedPath(base, token, o.protectedPath, notes);
      const got = await callJson(`${base}${path}`, { headers: auth });
      if (got.status !== 200) throw new Error(`GET ${path} check failed: ${got.status} ${JSON.stringify(got.body)}`);

      // Each run starts on an idle server: work queued by the previous one (audit entries still
      // being committed) must not be charged to the next. The protected GET goes before validate:
      // when it is GET /audit, its count(*) would otherwise scan every row validate left behind.
      const pid = child.proc.pid ?? 0;
      const settle = async (after: string) => {
        const waited = await waitIdle(pid, 60_000);
        if (waited > 1500)
          notes.push(`after ${after} the suite stayed busy for ${(waited / 1000).toFixed(1)} s (audit entries queued during the run being committed).`);
      };
      await settle('start-up');
      const healthGet = await measure({ name: 'GET /health (edge app, no auth; diagnostic)', url: `${base}/health`, method: 'GET' }, o, pid);
      await settle('GET /health');
      const protectedGet = await measure({ name: `GET ${path}`, url: `${base}${path}`, method: 'GET', headers: auth }, o, pid);
      await settle(`GET ${path}`);
      const validate = await measure(validateTarget, o, pid);
      await settle('the validate run');
      return { healthGet, protectedGet, validate, path };
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function failuresOf(r: LoadResult): string[] {
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad === 0 && r.total > 0) return [];
  return [`${r.name}: ${r.total} completed, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts; status codes ${JSON.stringify(r.statusCodes)}`];
}

export async function runHttpBench(o: HttpBenchOptions): Promise<HttpBenchResult> {
  const pinning = pinLoadGenerator(o.pin);
  const cpu = pinning.enabled ? SERVER_CPU : undefined;
  const notes: string[] = [];
  let bare: LoadResult, runs: SuiteRuns;
  try {
    bare = await benchBare(o, cpu);
    runs = await benchSuite(o, cpu, notes);
  } finally {
    unpinLoadGenerator(pinning);
  }
  const { healthGet, protectedGet, validate, path } = runs;
  const failures = [bare, healthGet, protectedGet, validate].flatMap(failuresOf);
  const { connections, pipelining, warmupSeconds, seconds, attempts, foreignLimitPct } = o;
  const settings = { connections, pipelining, warmupSeconds, seconds, attempts, foreignLimitPct };
  return { settings, pinning, protectedPath: path, notes, bare, healthGet, validate, protectedGet, failures };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function threadSplit(threads: Record<string, number>): string {
  const shown = Object.entries(threads)
    .filter(([, pct]) => pct > 0)
    .sort((a, b) => b[1] - a[1]);
  const total = shown.reduce((a, [, pct]) => a + pct, 0);
  return shown.length === 0 ? 'unknown' : `${shown.map(([name, pct]) => `${name} ${pct}%`).join(', ')} (total ${total}%)`;
}

export function httpMarkdown(r: HttpBenchResult): string {
  const s = r.settings;
  const row = (x: LoadResult) => {
    const ratio = x === r.bare ? '100%' : `${fmt((x.reqPerSec / r.bare.reqPerSec) * 100, 1)}%`;
    const serverCpu = Object.values(x.serverThreads).reduce((a, b) => a + b, 0);
    return `| ${x.name} | ${fmt(x.reqPerSec)} | ${x.p50Ms} | ${x.p99Ms} | ${x.maxMs} | ${fmt(x.total)} | ${x.non2xx} | ${x.errors + x.timeouts} | ${ratio} | ${serverCpu}% | ${x.foreignCorePct}% |`;
  };
  const verdict = (x: LoadResult, label: string) => {
    const ratio = x.reqPerSec / r.bare.reqPerSec;
    return `- ${label}/bare = ${fmt(ratio * 100, 1)}% (target >= ${TARGET_RATIO * 100}%): **${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}**`;
  };
  return [
    `autocannon: ${s.connections} connections, pipelining ${s.pipelining}, ${s.warmupSeconds} s warm-up (discarded) then ${s.seconds} s measured, per target; a run during which other processes used more than ${s.foreignLimitPct}% of a core is run again (${s.attempts} runs at most). ` +
      `Suite: embedded (\`suite start\`, memory bus, its own Postgres), SUITE_LOG_LEVEL=warn, **SUITE_RATE_LIMIT_MAX=${RATE_LIMIT_MAX}** (the limiter runs but never refuses). CPU: ${r.pinning.note}.`,
    '',
    "| target | req/s (mean) | p50 ms | p99 ms | max ms | requests | non-2xx | errors+timeouts | vs bare | server CPU | other processes' CPU |",
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    row(r.bare),
    row(r.healthGet),
    row(r.protectedGet),
    row(r.validate),
    '',
    verdict(r.validate, 'validate'),
    verdict(r.protectedGet, `protected GET (${r.protectedPath})`),
    '',
    "Where the server's CPU went during each measured run (% of one core, per thread of the server process, and its database processes as a whole; V8Worker = GC and compiler helper threads):",
    '',
    ...[r.bare, r.healthGet, r.protectedGet, r.validate].map((x) => `- ${x.name}: ${threadSplit(x.serverThreads)}`),
    '',
    ...r.notes.map((n) => `- note: ${n}`),
    ...[r.bare, r.healthGet, r.protectedGet, r.validate]
      .filter((x) => x.discarded.length > 0)
      .map(
        (x) =>
          `- ${x.name}: ${x.discarded.length} run(s) discarded for other processes' CPU above ${s.foreignLimitPct}% (${x.discarded.map((d) => `${d}%`).join(', ')}); the least disturbed run is shown.`,
      ),
    '- "server CPU": what the server (with its child processes) used during the run, in % of one core; near 100% means it was the bottleneck. "other processes\' CPU": what everything but the load generator and the server used meanwhile (near 0% means the figures were not disturbed by other work on the machine).',
    ...(r.failures.length === 0
      ? ['- every request of every run answered 2xx (no errors, no timeouts).']
      : ['- **INVALID RUN: some requests failed, so the figures above do not measure the path they name:**', ...r.failures.map((f) => `  - ${f}`)]),
  ].join('\n');
}

/** Command-line options of this benchmark (bench/run.ts accepts them too). */
export const HTTP_ARGS = {
  seconds: { type: 'string', default: '10' },
  warmup: { type: 'string', default: '3' },
  connections: { type: 'string', default: '50' },
  'protected-path': { type: 'string' },
  'no-pin': { type: 'boolean', default: false },
  'cpu-prof': { type: 'string' },
  attempts: { type: 'string', default: '3' },
  'foreign-limit': { type: 'string', default: '15' },
} as const;

type Values = Record<string, string | boolean | undefined>;
const text = (v: Values, k: string): string | undefined => (typeof v[k] === 'string' ? v[k] : undefined);

export function httpOptionsFrom(v: Values): HttpBenchOptions {
  const num = (k: string, fallback: number, min: number): number => {
    const n = Number(text(v, k) ?? fallback);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${k} must be a number >= ${min}`);
    return n;
  };
  return {
    seconds: num('seconds', 10, 1),
    warmupSeconds: num('warmup', 3, 0),
    connections: num('connections', 50, 1),
    pipelining: 1,
    attempts: Math.floor(num('attempts', 3, 1)),
    foreignLimitPct: num('foreign-limit', 15, 0),
    protectedPath: text(v, 'protected-path'),
    pin: v['no-pin'] !== true,
    cpuProfDir: text(v, 'cpu-prof'),
  };
}

if (import.meta.main) {
  const options = httpOptionsFrom(parseArgs({ args: process.argv.slice(2), options: HTTP_ARGS }).values);
  process.stdout.write(`${machineMarkdown(await describeMachine())}\n\n`);
  const result = await runHttpBench(options);
  process.stdout.write(`${httpMarkdown(result)}\n`);
  if (result.failures.length > 0) process.exitCode = 1;
}
