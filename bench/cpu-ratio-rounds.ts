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
 * What a load leaves behind (the audit backlog, the log's rounds) is charged to it: the tree's CPU
 * from the end of the run until it is idle again is added to the run's (cpuUntilIdle), so no figure
 * is flattered by work moved out of its window. A round in which any answer of either suite was not
 * 2xx is marked INVALID, as `npm run bench` marks its runs, and left out of the medians.
 *
 * Only 127.0.0.1; bounded (a watchdog ends the children after 10 minutes, 20 with a baseline).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callJson, mint } from './api.ts';
import { cleanEnv, killAllChildren, spawnNode, type Child } from './child.ts';
import { cpuUntilIdle, waitIdle } from './cpu.ts';
import {
  APPEND_TARGET_OF_SIGNATURE,
  VALIDATE_TARGET_OF_BARE,
  cpuPerAnsweredUs,
  cpuPerAnsweredWithTailUs,
  loadNow,
  non2xxOf,
  signatureCpuUs,
} from './cpu-ratios.ts';
import { APPEND_BODY } from './executions.ts';
import { measure, type LoadSettings, type LoadTarget } from './load.ts';

const SUITE_PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];

/** `invalid`: what was not 2xx in the round (either suite), e.g. `validate: 120 non-2xx`; empty when all were. */
interface Round {
  bare: number;
  validate: number;
  append: number;
  signature: number;
  load: number;
  invalid: string[];
  rates?: Rates;
}
/** Requests per second of the measured runs (all answers), this suite's and, with a baseline, its. */
interface Rates {
  validate: number;
  append: number;
  baseline?: { validate: number; append: number };
}
/** A round with a baseline: the same figures of the baseline's suite, measured in the same round. */
type ComparedRound = Round & { baseline: { validate: number; append: number } };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface RunningSuite {
  child: Child;
  dir: string;
  validate: LoadTarget;
  append: LoadTarget;
}

/** Starts the embedded suite of the checkout `cwd` (undefined: this one) on a fresh data folder, with a token for both loads. */
async function startSuite(cwd: string | undefined): Promise<RunningSuite> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-ratio-'));
  const env = cleanEnv({
    SUITE_LOG_LEVEL: 'warn',
    SUITE_RATE_LIMIT_MAX: '100000000',
    SUITE_HOST: '127.0.0.1',
    ...Object.fromEntries(SUITE_PORTS.map((p) => [p, '0'])),
  });
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
  const validate: LoadTarget = {
    name: 'validate',
    url: `${base}/auth/token/validate`,
    method: 'POST',
    headers,
    body: JSON.stringify({ token, requiredScope: 'audit:read' }),
  };
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

/**
 * CPU per answered validate and append of one suite, each started once its tree is idle and charged
 * with what its tree did after the run until idle again (the backlog it left).
 */
async function measureSuite(
  s: RunningSuite,
  settings: LoadSettings,
  label: string,
): Promise<{ validate: number; append: number; invalid: string[]; rates: Rates }> {
  const pid = s.child.proc.pid ?? 0;
  await waitIdle(pid, 30_000);
  const v = await measure(s.validate, settings, pid);
  const vTail = await cpuUntilIdle(pid, 60_000);
  const a = await measure(s.append, settings, pid);
  const aTail = await cpuUntilIdle(pid, 60_000);
  const invalid = [
    [`${label} validate`, non2xxOf(v)],
    [`${label} append`, non2xxOf(a)],
  ]
    .filter(([, n]) => (n as number) > 0)
    .map(([what, n]) => `${what}: ${n} non-2xx`);
  return {
    validate: cpuPerAnsweredWithTailUs(v, settings.seconds, vTail.cpuSeconds),
    append: cpuPerAnsweredWithTailUs(a, settings.seconds, aTail.cpuSeconds),
    invalid,
    rates: { validate: v.reqPerSec, append: a.reqPerSec },
  };
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
      const before = baseFirst ? await measureSuite(baseline, settings, 'baseline') : undefined;
      const mine = await measureSuite(suite, settings, 'this');
      const after = baseline !== undefined && !baseFirst ? await measureSuite(baseline, settings, 'baseline') : before;
      const bareInvalid = non2xxOf(b) > 0 ? [`bare: ${non2xxOf(b)} non-2xx`] : [];
      const round: Round = {
        bare: cpuPerAnsweredUs(b),
        validate: mine.validate,
        append: mine.append,
        signature: signatureCpuUs(10_000, 3),
        load: loadNow(),
        invalid: [...bareInvalid, ...mine.invalid, ...(after?.invalid ?? [])],
        rates: { ...mine.rates, ...(after !== undefined ? { baseline: after.rates } : {}) },
      };
      out.push(after === undefined ? round : { ...round, baseline: { validate: after.validate, append: after.append } });
      process.stderr.write(`cpu-ratio-rounds: round ${i + 1} of ${rounds} done\n`);
    }
    return out as ComparedRound[] | Round[];
  } finally {
    for (const s of started) await stopSuite(s);
    await bareChild.stop();
  }
}

const f = (n: number, d = 0) => n.toFixed(d);
/** Medians over the valid rounds only (NaN when none was valid). */
const medianRound = (all: Round[]): Round => {
  const rs = all.filter((r) => r.invalid.length === 0);
  if (rs.length === 0)
    return { bare: Number.NaN, validate: Number.NaN, append: Number.NaN, signature: Number.NaN, load: Number.NaN, invalid: ['no valid round'] };
  return {
    bare: median(rs.map((r) => r.bare)),
    validate: median(rs.map((r) => r.validate)),
    append: median(rs.map((r) => r.append)),
    signature: median(rs.map((r) => r.signature)),
    load: median(rs.map((r) => r.load)),
    invalid: [],
  };
};
const mark = (r: Round) => (r.invalid.length === 0 ? '' : ` **INVALID** (${r.invalid.join('; ')})`);
const valid = (rs: Round[]) => rs.filter((r) => r.invalid.length === 0);
const targets = `Targets: validate ≤ ${VALIDATE_TARGET_OF_BARE}× a bare request, append ≤ ${APPEND_TARGET_OF_SIGNATURE}× a signature. µs: CPU of the server's whole process tree per 2xx answer (bench/cpu-ratios.ts), the CPU it used after the run until idle (the backlog the run left) included; the signature on this thread with process.cpuUsage. Medians over the valid rounds only: a round with any non-2xx answer is INVALID.`;

export function roundsMarkdown(rs: Round[]): string {
  const row = (label: string, r: Round) =>
    `| ${label}${mark(r)} | ${f(r.bare)} | ${f(r.validate)} | ${f(r.append)} | ${f(r.signature, 1)} | **${f(r.validate / r.bare, 1)}×** | **${f(r.append / r.signature, 1)}×** | ${f(r.load, 1)} |`;
  return [
    '| round | bare µs | validate µs | append µs | signature µs | validate / bare | append / signature | load (1 min) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rs.map((r, i) => row(String(i + 1), r)),
    row(`median of each column (${valid(rs).length} valid of ${rs.length})`, medianRound(rs)),
    '',
    targets,
  ].join('\n');
}

/** This checkout against the baseline, round by round: µs, ratios to the baselines of the run, and this/baseline. */
export function comparedMarkdown(rs: ComparedRound[]): string {
  const row = (label: string, r: ComparedRound) =>
    `| ${label}${mark(r)} | ${f(r.bare)} | ${f(r.signature, 1)} | ${f(r.baseline.validate)} → ${f(r.validate)} (${f(r.validate / r.baseline.validate, 2)}) | ${f(r.baseline.validate / r.bare, 1)}× → **${f(r.validate / r.bare, 1)}×** | ${f(r.baseline.append)} → ${f(r.append)} (${f(r.append / r.baseline.append, 2)}) | ${f(r.baseline.append / r.signature, 1)}× → **${f(r.append / r.signature, 1)}×** | ${f(r.load, 1)} |`;
  const ok = valid(rs) as ComparedRound[];
  const med: ComparedRound = {
    ...medianRound(rs),
    baseline:
      ok.length === 0
        ? { validate: Number.NaN, append: Number.NaN }
        : { validate: median(ok.map((r) => r.baseline.validate)), append: median(ok.map((r) => r.baseline.append)) },
  };
  return [
    '| round | bare µs | signature µs | validate µs, baseline → this (ratio) | validate / bare | append µs, baseline → this (ratio) | append / signature | load (1 min) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rs.map((r, i) => row(String(i + 1), r)),
    row(`median of each column (${ok.length} valid of ${rs.length})`, med),
    '',
    targets,
  ].join('\n');
}

/** Rates of the measured runs (requests per second at the given connections), with the baseline's beside them. */
export function ratesMarkdown(rs: Round[]): string {
  const r0 = (n: number | undefined) => (n === undefined ? '–' : f(n));
  return [
    '| round | validate req/s, baseline → this | append req/s, baseline → this | load (1 min) |',
    '|---|---:|---:|---:|',
    ...rs.map(
      (r, i) =>
        `| ${i + 1}${mark(r)} | ${r0(r.rates?.baseline?.validate)} → ${r0(r.rates?.validate)} | ${r0(r.rates?.baseline?.append)} → ${r0(r.rates?.append)} | ${f(r.load, 1)} |`,
    ),
  ].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      rounds: { type: 'string', default: '5' },
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '50' },
      baseline: { type: 'string' },
    },
  });
  const watchdog = setTimeout(
    () => {
      killAllChildren();
      process.exit(2);
    },
    values.baseline === undefined ? 600_000 : 1_200_000,
  );
  watchdog.unref();
  const rs = await main(
    Number(values.rounds),
    { connections: Number(values.connections), pipelining: 1, warmupSeconds: 1, seconds: Number(values.seconds), attempts: 1, foreignLimitPct: 100 },
    values.baseline,
  );
  process.stdout.write(
    `${values.baseline === undefined ? roundsMarkdown(rs as Round[]) : comparedMarkdown(rs as ComparedRound[])}\n\n${ratesMarkdown(rs as Round[])}\n`,
  );
  clearTimeout(watchdog);
}
