/**
 * The embedded default alone: `suite start` on a new data folder, its start time, the memory of
 * the whole suite (its process and every child: its database's, or the processes of a database
 * given with --database-url and --database-pid) idle and at its peak under appends, and
 * POST /executions at 50 connections (bench/executions.ts loadAppends). No verification, no
 * Postgres run: what a storage change costs the appends and the memory, quickly, in alternation.
 *
 *   node bench/appends-embedded.ts [--seconds 10] [--warmup 3] [--rounds 1] [--pglite]
 *                                  [--database-url URL --database-pid PID]
 *
 * `--pglite`: on a data folder holding a PGlite database, as earlier versions made (kept on
 * PGlite, which is also the fallback where the embedded Postgres cannot run).
 *
 * Memory is given as RSS and as PSS (proportional: a page shared by N processes counts 1/N in
 * each), summed over the processes: several Postgres processes share their buffers, which RSS
 * would count once per process. Targets only 127.0.0.1.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { mint } from './api.ts';
import { cleanEnv, killAllChildren, spawnNode } from './child.ts';
import { waitIdle } from './cpu.ts';
import { appendCpuLine, loadAppends } from './executions.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { memoryOf, type Memory } from './process-memory.ts';
import { openStorage } from '../storage/index.ts';

export interface EmbeddedAppendRun {
  startMs: number;
  idle: Memory;
  peak: Memory;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  cpuLine: string;
}

export async function embeddedAppends(o: {
  seconds: number;
  warmup: number;
  pglite?: boolean;
  databaseUrl?: string;
  databasePid?: number;
}): Promise<EmbeddedAppendRun> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-bench-embedded-'));
  const dataDir = join(dir, 'data');
  if (o.pglite === true) await (await openStorage({ dbPath: join(dataDir, 'pglite'), embeddedEngine: 'pglite' })).close();
  const env = cleanEnv({
    ...(o.databaseUrl !== undefined ? { SUITE_DATABASE_URL: o.databaseUrl } : {}),
    SUITE_LOG_LEVEL: 'warn',
    SUITE_RATE_LIMIT_MAX: '100000000',
    SUITE_HOST: '127.0.0.1',
    ...Object.fromEntries(
      ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'].map((p) => [p, '0']),
    ),
  });
  const started = performance.now();
  const child = spawnNode('cli/suite.ts', ['start', '--data-dir', dataDir], { env });
  try {
    const port = (await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1];
    const startMs = Math.round(performance.now() - started);
    const pid = child.proc.pid ?? 0;
    const roots = o.databasePid === undefined ? [pid] : [pid, o.databasePid];
    const base = `http://127.0.0.1:${port}`;
    const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
    const { token } = await mint(base, adminKey, 'bench-agent', ['execution:record']);
    await waitIdle(pid, 15_000);
    const idle = await memoryOf(roots);
    let peak = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const m = await memoryOf(roots);
        peak = { rssMb: Math.max(peak.rssMb, m.rssMb), pssMb: Math.max(peak.pssMb, m.pssMb) };
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const load = await loadAppends({ name: 'POST /executions (c=50)', base, token, pid }, o).finally(() => {
      sampling = false;
    });
    await sampler;
    return {
      startMs,
      idle,
      peak,
      reqPerSec: load.reqPerSec,
      p50Ms: load.p50Ms,
      p99Ms: load.p99Ms,
      failed: load.non2xx + load.errors + load.timeouts,
      cpuLine: appendCpuLine(load, 2),
    };
  } finally {
    await child.stop(30_000);
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      seconds: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '1' },
      'database-url': { type: 'string' },
      'database-pid': { type: 'string' },
      label: { type: 'string', default: '' },
      pglite: { type: 'boolean', default: false },
    },
  });
  const o = {
    seconds: Number(values.seconds),
    warmup: Number(values.warmup),
    pglite: values.pglite,
    ...(values['database-url'] !== undefined ? { databaseUrl: values['database-url'] } : {}),
    ...(values['database-pid'] !== undefined ? { databasePid: Number(values['database-pid']) } : {}),
  };
  const rounds = Number(values.rounds);
  const watchdog = setTimeout(
    () => {
      process.stderr.write('appends-embedded: overstayed; ending every child process\n');
      killAllChildren();
      process.exit(2);
    },
    (rounds * (o.seconds + o.warmup + 90) + 30) * 1000,
  );
  watchdog.unref();
  process.stdout.write(`${machineMarkdown(await describeMachine())}\n\n`);
  process.stdout.write('| run | start | idle RSS / PSS | peak RSS / PSS | appends/s | p50 / p99 | failed |\n|---|---:|---:|---:|---:|---|---:|\n');
  const notes: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    const r = await embeddedAppends(o);
    process.stdout.write(
      `| ${values.label} ${round} | ${(r.startMs / 1000).toFixed(1)} s | ${r.idle.rssMb} / ${r.idle.pssMb} MB | ${r.peak.rssMb} / ${r.peak.pssMb} MB | ${Math.round(r.reqPerSec)} | ${r.p50Ms} / ${r.p99Ms} ms | ${r.failed} |\n`,
    );
    notes.push(`- ${values.label} ${round}: ${r.cpuLine}`);
  }
  process.stdout.write(`\n${notes.join('\n')}\n`);
  process.exit(0);
}
