/**
 * What one agent feels: requests sent one after another (each waits for the answer before the next)
 * against the embedded default with its data folder (`suite start --data-dir`, what `npm start`
 * runs), under `strace -f` over the suite's whole process tree (Node and its Postgres). Prints, per
 * kind of request (POST /executions, POST /auth/token/validate): p50/p99 latency and the syncs
 * (fsync, fdatasync, sync_file_range) made while they ran, per request; and beside them the cost of
 * one 1 KB write + fdatasync on the same disk (the data folder's), the floor any durable answer pays.
 *
 *   node bench/sequential-syncs.ts [--repo <checkout>] [--requests 200] [--rounds 1]
 *
 * `--repo` runs another checkout's suite (e.g. `/work/main`, or `git worktree add /tmp/base main`),
 * so before and after are measured by the same client in alternating rounds.
 *
 * strace stops the traced process at every system call, not only the syncs it prints, so its
 * latencies are strace's as much as the suite's: `--no-strace` runs the suite bare and reports the
 * latencies alone (the syncs column then reads "-"). Latency targets are judged on bare rounds.
 *
 * Each round also measures the floor with the same client, never traced (bench/sync-floor-server.ts):
 * a bare Fastify route answering a record-sized body at once, and one that first appends 1 KB to a
 * file in the data folder and fdatasyncs it. A durable answer cannot come faster than the second;
 * what the suite adds to an append is its latency beyond it.
 */
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Child, listenerPorts, zeroPorts } from '../compose/child.ts';
import { cleanEnv, REPO_ROOT, spawnNode } from './child.ts';

const { values } = parseArgs({
  options: { repo: { type: 'string', multiple: true }, requests: { type: 'string' }, rounds: { type: 'string' }, 'no-strace': { type: 'boolean' } },
});
const traced = values['no-strace'] !== true;
const repos = values.repo ?? [REPO_ROOT];
const requests = Number(values.requests ?? 200);
const rounds = Number(values.rounds ?? 1);

const APPEND = {
  subject: 'sequential-agent',
  scope: ['crm:write'],
  module: 'crm',
  action: 'update-contact',
  input: { contact: 1 },
  output: { ok: true },
  outcome: 'success',
};

interface Phase {
  p50: number;
  p99: number;
  syncs: number;
  non2xx: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

/** Sync calls in an `strace -f -ttt` log made between two wall-clock instants (seconds). */
function syncsBetween(trace: string, from: number, to: number, by?: Map<string, number>): number {
  let n = 0;
  for (const line of trace.split('\n')) {
    const m = /^\d+\s+(\d+\.\d+)\s+(fsync|fdatasync|sync_file_range)\(\d+<([^>]*)>/.exec(line);
    if (m && Number(m[1]) >= from && Number(m[1]) <= to) {
      n++;
      // What was synced: the WAL, the journal, a data file (its folder names it).
      const what = `${m[2]} ${(m[3] ?? '').replace(/.*\/(pg_wal|audit-journal|base|global|pg_xact|pg_multixact|pg_logical)\/.*/, '$1').replace(/^\/tmp\/[^/]+\//, '')}`;
      by?.set(what, (by.get(what) ?? 0) + 1);
    }
  }
  return n;
}

async function sequential(n: number, send: () => Promise<number>): Promise<{ times: number[]; from: number; to: number; non2xx: number }> {
  for (let i = 0; i < 10; i++) await send(); // warm-up, not counted
  const times: number[] = [];
  let non2xx = 0;
  const from = Date.now() / 1000;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const status = await send();
    times.push(performance.now() - t);
    if (status < 200 || status > 299) non2xx++;
  }
  const to = Date.now() / 1000;
  return { times: times.sort((a, b) => a - b), from, to, non2xx };
}

/** One 1 KB write + fdatasync in `folder`, `n` times: the p50 in ms. */
async function fdatasyncCost(folder: string, n = 200): Promise<number> {
  const file = await open(join(folder, 'fdatasync-probe'), 'a');
  const buf = Buffer.alloc(1024, 'x');
  const times: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await file.write(buf);
      await file.datasync();
      times.push(performance.now() - t);
    }
  } finally {
    await file.close();
  }
  return percentile(
    times.sort((a, b) => a - b),
    50,
  );
}

/** The same client against a bare Fastify app in `folder`: p50 of an answer at once, and of one after a 1 KB write + fdatasync. */
async function floor(folder: string): Promise<{ plain: number; sync: number }> {
  const server = spawnNode('bench/sync-floor-server.ts', [folder], { env: cleanEnv({}) });
  try {
    const base = `http://127.0.0.1:${(await server.waitFor(/^listening (\d+)/m, 30_000))[1]}`;
    const plain = await sequential(requests, () => post(`${base}/plain`, {}, APPEND));
    const sync = await sequential(requests, () => post(`${base}/sync`, {}, APPEND));
    return { plain: percentile(plain.times, 50), sync: percentile(sync.times, 50) };
  } finally {
    await server.stop();
  }
}

async function measure(repo: string): Promise<{ append: Phase; validate: Phase; fdatasyncMs: number; floor: { plain: number; sync: number } }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'suite-seq-'));
  const bare = await floor(dataDir);
  const tracePath = join(dataDir, '..', `${dataDir.split('/').pop()}.strace`);
  const suiteArgs = ['cli/suite.ts', 'start', '--data-dir', dataDir];
  const suite = new Child({
    name: 'suite',
    command: traced ? 'strace' : process.execPath,
    args: traced
      ? [
          '-f',
          '-ttt',
          '-y',
          '-s',
          '120',
          '-e',
          `trace=fsync,fdatasync,sync_file_range${process.env.SEQ_SYNCS_KEEP ? ',recvfrom' : ''}`,
          '-o',
          tracePath,
          process.execPath,
          ...suiteArgs,
        ]
      : suiteArgs,
    cwd: repo,
    env: { ...process.env, NODE_OPTIONS: '', SUITE_LOG_LEVEL: 'warn', SUITE_HOST: '127.0.0.1', ...zeroPorts() } as Record<string, string>,
  });
  try {
    const { token: port } = await listenerPorts(suite, ['token']);
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 300; i++) {
      if ((await fetch(`${base}/health`).catch(() => undefined))?.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
    const minted = await fetch(`${base}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': adminKey },
      body: JSON.stringify({ sub: 'sequential-agent', scope: ['execution:record', 'auth:token:validate'] }),
    });
    const { token } = (await minted.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}` };
    const a = await sequential(requests, () => post(`${base}/executions`, auth, APPEND));
    const v = await sequential(requests, () => post(`${base}/auth/token/validate`, auth, { token }));
    // Let the syncs the requests caused (batched audit commits, the log's rounds) land before reading.
    await new Promise((r) => setTimeout(r, 1500));
    const fdatasyncMs = await fdatasyncCost(dataDir);
    const trace = traced ? await readFile(tracePath, 'utf8') : '';
    // Syncs up to the next phase's start (or 1.5 s after the last answer) are charged to the phase.
    const phase = (r: typeof a, until: number, name: string): Phase => {
      const by = new Map<string, number>();
      const syncs = traced ? syncsBetween(trace, r.from, until, by) / requests : Number.NaN;
      if (process.env.SEQ_SYNCS_DETAIL) console.log(name, [...by].map(([k, v]) => `${k}: ${(v / requests).toFixed(2)}`).join(', '));
      return { p50: percentile(r.times, 50), p99: percentile(r.times, 99), syncs, non2xx: r.non2xx };
    };
    return { append: phase(a, v.from, 'append'), validate: phase(v, v.to + 1.4, 'validate'), fdatasyncMs, floor: bare };
  } finally {
    // Under strace the suite is strace's child: signal the suite, so that it shuts down as users stop it.
    const pid = traced
      ? Number((await readFile(`/proc/${suite.pid}/task/${suite.pid}/children`, 'utf8').catch(() => '')).trim().split(/\s+/)[0])
      : (suite.pid ?? 0);
    if (pid !== undefined && pid > 0) process.kill(pid, 'SIGTERM');
    await Promise.race([suite.exited(), new Promise((r) => setTimeout(r, 30_000))]);
    await suite.stop();
    await rm(dataDir, { recursive: true, force: true });
    if (process.env.SEQ_SYNCS_KEEP) console.log(`trace kept: ${tracePath}`);
    else await rm(tracePath, { force: true });
  }
}

const fmt = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(2));
console.log(
  `sequential requests: ${requests} each, ${rounds} round(s), ${traced ? 'under strace -f' : 'no strace'}, load average before ${loadavg().map(fmt).join(' ')}`,
);
console.log(
  '| round | code | append p50 ms | p99 | syncs/append | validate p50 ms | p99 | syncs/validate | one 1 KB fdatasync p50 ms | bare Fastify p50 ms | bare Fastify + fdatasync p50 ms | non-2xx | load (1 min) |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (let round = 1; round <= rounds; round++) {
  for (const repo of repos) {
    const r = await measure(repo);
    console.log(
      `| ${round} | ${repo} | ${fmt(r.append.p50)} | ${fmt(r.append.p99)} | ${fmt(r.append.syncs)} | ${fmt(r.validate.p50)} | ${fmt(r.validate.p99)} | ${fmt(r.validate.syncs)} | ${fmt(r.fdatasyncMs)} | ${fmt(r.floor.plain)} | ${fmt(r.floor.sync)} | ${r.append.non2xx + r.validate.non2xx}${r.append.non2xx + r.validate.non2xx > 0 ? ' INVALID' : ''} | ${fmt(loadavg()[0] ?? 0)} |`,
    );
  }
}
