/**
 * The CPU ratios of issue 28 (validate / bare Fastify request, append / one Ed25519 signature) in
 * alternating rounds, for a shared machine: a bare Fastify server and one embedded suite stay up,
 * and each round measures a bare request, a validate, an append and a signature in turn, so that
 * every figure of a round sees about the same neighbours. Medians over the rounds are printed
 * beside every round's figures and the load average.
 *
 * With `--baseline DIR` (another checkout of the project, e.g. `git archive` of the commit before a
 * change, with its own `node_modules` link), a second suite runs from it beside this one, and each
 * round measures both, in alternating order: the before and after of a change in the same run.
 *
 *   node bench/cpu-ratio-rounds.ts [--rounds 5] [--seconds 5] [--connections 50] [--baseline DIR]
 *
 * Only 127.0.0.1; bounded (a watchdog ends the children after 10 minutes, 20 with a baseline).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callJson, mint } from './api.ts';
import { cleanEnv, killAllChildren, spawnNode, type Child } from './child.ts';
import { waitIdle } from './cpu.ts';
import { APPEND_TARGET_OF_SIGNATURE, VALIDATE_TARGET_OF_BARE, cpuPerAnsweredUs, loadNow, signatureCpuUs } from './cpu-ratios.ts';
import { APPEND_BODY } from './executions.ts';
import { measure, type LoadSettings, type LoadTarget } from './load.ts';

const SUITE_PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];

interface Round { bare: number; validate: number; append: number; signature: number; load: number }
/** A round with a baseline: the same figures of the baseline's suite, measured in the same round. */
type ComparedRound = Round & { baseline: { validate: number; append: number } };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface RunningSuite { child: Child; dir: string; validate: LoadTarget; append: LoadTarget }

/** Starts the embedded suite of the checkout `cwd` (undefined: this one) on a fresh data folder, with a token for both loads. */
async function startSuite(cwd: string | undefined): Promise<RunningSuite> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-ratio-'));
  const env = cleanEnv({ SUITE_LOG_LEVEL: 'warn', SUITE_RATE_LIMIT_MAX: '100000000', SUITE_HOST: '127.0.0.1', ...Object.fromEntries(SUITE_PORTS.map((p) => [p, '0'])) });
  const child = spawnNode('cli/suite.ts', ['start', '--data-dir', join(dir, 'data')], { env, ...(cwd !== undefined ? { cwd } : {}) });
  try {
    return await readySuite(child, dir);
  } catch (err) {
    await stopSuite({ child, dir });
    throw err;
  }
}

async function readySuite(child: Child, dir: string): Promise<RunningSuite> {
  const base = `http://127.0.0.1:${(await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1]}`;
  const { adminKey } = JSON.parse(await readFile(join(dir, 'data', 'secrets.json'), 'utf8')) as { adminKey: string };
  const { token } = await mint(base, adminKey, 'bench-agent', ['auth:token:validate', 'audit:read', 'execution:record']);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const validate: LoadTarget = { name: 'validate', url: `${base}/auth/token/validate`, method: 'POST', headers, body: JSON.stringify({ token, requiredScope: 'audit:read' }) };
  const append: LoadTarget = { name: 'append', url: `${base}/executions`, method: 'POST', headers, body: JSON.stringify(APPEND_BODY) };
  for (const t of [validate, append]) {
    // The execution chain's writer takes its lease after the listeners are up: a 503 (no
    // responders yet) is retried for a minute, anything else is a failed start.
    const until = Date.now() + 60_000;
    for (;;) {
      const r = await callJson(t.url, { headers, body: JSON.parse(t.body!) });
      if (r.status < 300) break;
      if (r.status !== 503 || Date.now() > until) throw new Error(`${t.name} check: ${r.status} ${JSON.stringify(r.body)}`);
      await new Promise((done) => setTimeout(done, 500));
    }
  }
  return { child, dir, validate, append };
}

async function stopSuite(s: Pick<RunningSuite, 'child' | 'dir'>): Promise<void> {
  await s.child.stop(30_000);
  await rm(s.dir, { recursive: true, force: true });
}

/** CPU per answered validate and append of one suite, each after its tree went idle. */
async function measureSuite(s: RunningSuite, settings: LoadSettings): Promise<{ validate: number; append: number }> {
  const pid = s.child.proc.pid ?? 0;
  await waitIdle(pid, 30_000);
  const v = await measure(s.validate, settings, pid);
  await waitIdle(pid, 30_000);
  const a = await measure(s.append, settings, pid);
  return { validate: cpuPerAnsweredUs(v), append: cpuPerAnsweredUs(a) };
}

async function main(rounds: number, settings: LoadSettings, baselineDir: string | undefined): Promise<ComparedRound[] | Round[]> {
  const bareChild = spawnNode('bench/bare-server.ts', [], { env: cleanEnv({}) });
  const started: RunningSuite[] = [];
  try {
    const barePort = (await bareChild.waitFor(/listening (\d+)/, 30_000))[1];
    const suite = await startSuite(undefined);
    started.push(suite);
    const baseline = baselineDir === undefined ? undefined : await startSuite(baselineDir);
    if (baseline !== undefined) started.push(baseline);
    const bare: LoadTarget = { name: 'bare', url: `http://127.0.0.1:${barePort}/`, method: 'GET' };
    const out: Array<Round | ComparedRound> = [];
    for (let i = 0; i < rounds; i++) {
      const b = await measure(bare, settings, bareChild.proc.pid ?? 0);
      // With a baseline, who goes first alternates: neither side always follows the same neighbour.
      const baseFirst = baseline !== undefined && i % 2 === 1;
      const before = baseFirst ? await measureSuite(baseline, settings) : undefined;
      const mine = await measureSuite(suite, settings);
      const after = baseline !== undefined && !baseFirst ? await measureSuite(baseline, settings) : before;
      const round: Round = { bare: cpuPerAnsweredUs(b), ...mine, signature: signatureCpuUs(10_000, 3), load: loadNow() };
      out.push(after === undefined ? round : { ...round, baseline: after });
      process.stderr.write(`cpu-ratio-rounds: round ${i + 1} of ${rounds} done\n`);
    }
    return out as ComparedRound[] | Round[];
  } finally {
    for (const s of started) await stopSuite(s);
    await bareChild.stop();
  }
}

const f = (n: number, d = 0) => n.toFixed(d);
const medianRound = (rs: Round[]): Round => ({ bare: median(rs.map((r) => r.bare)), validate: median(rs.map((r) => r.validate)), append: median(rs.map((r) => r.append)), signature: median(rs.map((r) => r.signature)), load: median(rs.map((r) => r.load)) });
const targets = `Targets: validate ≤ ${VALIDATE_TARGET_OF_BARE}× a bare request, append ≤ ${APPEND_TARGET_OF_SIGNATURE}× a signature. µs: CPU of the server's whole process tree per 2xx answer (bench/cpu-ratios.ts); the signature on this thread with process.cpuUsage.`;

export function roundsMarkdown(rs: Round[]): string {
  const row = (label: string, r: Round) => `| ${label} | ${f(r.bare)} | ${f(r.validate)} | ${f(r.append)} | ${f(r.signature, 1)} | **${f(r.validate / r.bare, 1)}×** | **${f(r.append / r.signature, 1)}×** | ${f(r.load, 1)} |`;
  return [
    '| round | bare µs | validate µs | append µs | signature µs | validate / bare | append / signature | load (1 min) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rs.map((r, i) => row(String(i + 1), r)),
    row('median of each column', medianRound(rs)),
    '',
    targets,
  ].join('\n');
}

/** This checkout against the baseline, round by round: µs, ratios to the baselines of the run, and this/baseline. */
export function comparedMarkdown(rs: ComparedRound[]): string {
  const row = (label: string, r: ComparedRound) => `| ${label} | ${f(r.bare)} | ${f(r.signature, 1)} | ${f(r.baseline.validate)} → ${f(r.validate)} (${f(r.validate / r.baseline.validate, 2)}) | ${f(r.baseline.validate / r.bare, 1)}× → **${f(r.validate / r.bare, 1)}×** | ${f(r.baseline.append)} → ${f(r.append)} (${f(r.append / r.baseline.append, 2)}) | ${f(r.baseline.append / r.signature, 1)}× → **${f(r.append / r.signature, 1)}×** | ${f(r.load, 1)} |`;
  const med: ComparedRound = { ...medianRound(rs), baseline: { validate: median(rs.map((r) => r.baseline.validate)), append: median(rs.map((r) => r.baseline.append)) } };
  return [
    '| round | bare µs | signature µs | validate µs, baseline → this (ratio) | validate / bare | append µs, baseline → this (ratio) | append / signature | load (1 min) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rs.map((r, i) => row(String(i + 1), r)),
    row('median of each column', med),
    '',
    targets,
  ].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { rounds: { type: 'string', default: '5' }, seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' }, baseline: { type: 'string' } } });
  const watchdog = setTimeout(() => { killAllChildren(); process.exit(2); }, values.baseline === undefined ? 600_000 : 1_200_000);
  watchdog.unref();
  const rs = await main(Number(values.rounds), { connections: Number(values.connections), pipelining: 1, warmupSeconds: 1, seconds: Number(values.seconds), attempts: 1, foreignLimitPct: 100 }, values.baseline);
  process.stdout.write(`${values.baseline === undefined ? roundsMarkdown(rs as Round[]) : comparedMarkdown(rs as ComparedRound[])}\n`);
  clearTimeout(watchdog);
}
