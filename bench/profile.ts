/**
 * Where the CPU of one request goes (issue 28, part 1): the embedded suite (`suite start`) under a
 * validate load (`POST /auth/token/validate`) or an append load (`POST /executions`), with
 * `node --cpu-prof` on the suite process. Each load gets its own suite, so each profile holds one
 * kind of request. Prints, per load: the server's whole process tree's CPU per answered request,
 * split per thread (and the embedded Postgres as a whole), and the main thread's share split into
 * categories (bench/profile-categories.ts) over the measured window only.
 *
 *   node bench/profile.ts [--load validate,append] [--seconds 10] [--warmup 3] [--connections 50] [--out DIR]
 *
 * Only 127.0.0.1; bounded: each load runs warm-up + seconds, the suite is stopped afterwards.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callJson, mint } from './api.ts';
import { cleanEnv, killAllChildren, spawnNode } from './child.ts';
import { waitIdle } from './cpu.ts';
import { APPEND_BODY } from './executions.ts';
import { measure, type LoadResult, type LoadTarget } from './load.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { profileMarkdown, summarizeProfile, type CpuProfile } from './profile-summary.ts';

export type LoadKind = 'validate' | 'append';

const SUITE_PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];

/** CLOCK_MONOTONIC in µs: the clock V8 stamps its profile samples with (libuv's hrtime is the same clock). */
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

export interface ProfiledLoad {
  kind: LoadKind;
  load: LoadResult;
  /** The whole tree's CPU per answered (2xx) request, µs, and per thread / child. */
  cpuPerRequestUs: number;
  perThreadUs: Record<string, number>;
  profileFile: string;
  profile: CpuProfile;
  window: { from: number; to: number };
}

async function targetFor(kind: LoadKind, base: string, adminKey: string): Promise<LoadTarget> {
  const { token } = await mint(base, adminKey, 'bench-agent', ['auth:token:validate', 'audit:read', 'execution:record']);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const body = kind === 'validate' ? { token, requiredScope: 'audit:read' } : APPEND_BODY;
  const url = `${base}${kind === 'validate' ? '/auth/token/validate' : '/executions'}`;
  const check = await callJson(url, { headers, body });
  if (check.status !== (kind === 'validate' ? 200 : 201)) throw new Error(`${kind} check failed: ${check.status} ${JSON.stringify(check.body)}`);
  return { name: kind === 'validate' ? 'POST /auth/token/validate' : 'POST /executions', url, method: 'POST', headers, body: JSON.stringify(body) };
}

/** The main thread's profile of `pid` in `dir` (thread id 0 in the file name). */
async function mainThreadProfile(dir: string, pid: number): Promise<string> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.0.`));
  if (files.length === 0) throw new Error(`no main-thread profile of ${pid} in ${dir} (${(await readdir(dir)).join(', ')})`);
  return join(dir, files[0]!);
}

export async function profileLoad(kind: LoadKind, o: { seconds: number; warmup: number; connections: number; outDir: string }): Promise<ProfiledLoad> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-profile-'));
  const profDir = join(o.outDir, kind);
  const env = cleanEnv({
    SUITE_LOG_LEVEL: 'warn',
    SUITE_RATE_LIMIT_MAX: '100000000',
    SUITE_HOST: '127.0.0.1',
    ...Object.fromEntries(SUITE_PORTS.map((p) => [p, '0'])),
  });
  const child = spawnNode('cli/suite.ts', ['start', '--data-dir', join(dir, 'data')], { env, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] });
  try {
    const port = (await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1];
    const base = `http://127.0.0.1:${port}`;
    const { adminKey } = JSON.parse(await readFile(join(dir, 'data', 'secrets.json'), 'utf8')) as { adminKey: string };
    const target = await targetFor(kind, base, adminKey);
    const pid = child.proc.pid ?? 0;
    await waitIdle(pid, 60_000);
    // The warm-up runs outside the window; `measure` runs it first, so the window opens after it:
    // the load's own warm-up is run here instead and `measure` is given none.
    await measure(target, { connections: o.connections, pipelining: 1, warmupSeconds: 0, seconds: o.warmup, attempts: 1, foreignLimitPct: 100 }, pid);
    const from = monotonicMicros();
    const load = await measure(
      target,
      { connections: o.connections, pipelining: 1, warmupSeconds: 0, seconds: o.seconds, attempts: 1, foreignLimitPct: 100 },
      pid,
    );
    const to = monotonicMicros();
    // Work queued during the window (audit entries still being committed) belongs to it: it is in
    // the tree's CPU (measured up to the load's end only) but not in the window; waited out here.
    await waitIdle(pid, 30_000);
    await child.stop(30_000);
    const answered = Object.entries(load.statusCodes)
      .filter(([c]) => c.startsWith('2'))
      .reduce((a, [, n]) => a + n, 0);
    // The profiler's own thread (v8:ProfEvntProc) is what profiling costs, not what a request does.
    const perThreadUs = Object.fromEntries(
      Object.entries(load.serverThreads)
        .filter(([name]) => !name.startsWith('v8:Prof'))
        .map(([name, pct]) => [name, ((pct / 100) * o.seconds * 1e6) / Math.max(1, answered)]),
    );
    const cpuPerRequestUs = Object.values(perThreadUs).reduce((a, b) => a + b, 0);
    const profileFile = await mainThreadProfile(profDir, pid);
    const profile = JSON.parse(await readFile(profileFile, 'utf8')) as CpuProfile;
    await writeFile(join(profDir, 'window.json'), JSON.stringify({ from, to, profileFile }));
    return { kind, load, cpuPerRequestUs, perThreadUs, profileFile, profile, window: { from, to } };
  } finally {
    await child.stop(30_000);
    await rm(dir, { recursive: true, force: true });
  }
}

const us = (n: number) => n.toFixed(0);

export function profiledMarkdown(p: ProfiledLoad): string {
  const mainUs = p.perThreadUs.MainThread ?? 0;
  const summary = summarizeProfile(p.profile, p.window);
  return [
    `#### ${p.load.name}: ${p.load.total.toLocaleString('en-US')} requests in the measured window, ${p.load.reqPerSec.toFixed(0)}/s, p99 ${p.load.p99Ms} ms; non-2xx ${p.load.non2xx}, errors ${p.load.errors + p.load.timeouts}`,
    '',
    `Server process tree CPU per answered request, the profiler's own thread left out: **${us(p.cpuPerRequestUs)} µs** (${Object.entries(p.perThreadUs)
      .filter(([, v]) => v >= 0.5)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${us(v)}`)
      .join(
        ', ',
      )}); load generator ${us(((p.load.loadGeneratorCorePct / 100) * 1e6) / Math.max(1, p.load.reqPerSec))} µs, other processes ${p.load.foreignCorePct}% of a core meanwhile.`,
    '',
    `The main thread's ${us(mainUs)} µs per request, by category (profile \`${p.profileFile.split('/').slice(-2).join('/')}\`, samples from ${p.window.from} to ${p.window.to} µs, the measured window only; µs = the category's share of the busy samples × the main thread's CPU per request):`,
    '',
    profileMarkdown(summary, mainUs),
  ].join('\n');
}

export const PROFILE_ARGS = {
  load: { type: 'string', default: 'validate,append' },
  seconds: { type: 'string', default: '10' },
  warmup: { type: 'string', default: '3' },
  connections: { type: 'string', default: '50' },
  out: { type: 'string' },
} as const;

if (import.meta.main) {
  const { values } = parseArgs({ args: process.argv.slice(2), options: PROFILE_ARGS });
  const watchdog = setTimeout(() => {
    killAllChildren();
    process.exit(2);
  }, 600_000);
  watchdog.unref();
  const outDir = values.out ?? (await mkdtemp(join(tmpdir(), 'suite-cpuprof-')));
  process.stdout.write(`${machineMarkdown(await describeMachine())}\n\n`);
  for (const kind of values.load.split(',').map((k) => k.trim())) {
    if (kind !== 'validate' && kind !== 'append') throw new Error(`--load: unknown load ${kind} (validate, append)`);
    const p = await profileLoad(kind, { seconds: Number(values.seconds), warmup: Number(values.warmup), connections: Number(values.connections), outDir });
    process.stdout.write(`${profiledMarkdown(p)}\n\n`);
  }
  process.stdout.write(`Profiles kept in ${outDir} (open them in Chrome DevTools' Performance panel).\n`);
  clearTimeout(watchdog);
}
