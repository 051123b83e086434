/**
 * The memory of the embedded default (issue 28, part 3): `suite start --data-dir <new folder>` as a
 * user starts it, on free ports; once /ready answers 200 it stays idle `--idle` seconds, then takes
 * a bounded load (POST /auth/token/validate and POST /executions at the same time, `--connections`
 * each, `--load` seconds, 127.0.0.1 only), then settles `--settle` seconds. At each point: the PSS
 * of every process of its tree (process-memory.ts) by role, the Node process's heap from its own
 * /metrics (prom-client's process metrics), and the number of database connections the suite holds.
 * During the load: the peak PSS, the peak number of connections, and the server tree's CPU per
 * answered request (a V8 flag that saves memory may cost CPU: both are printed side by side).
 *
 *   node bench/memory.ts [--idle 10] [--load 10] [--settle 10] [--connections 4] [--rounds 1]
 *                        [--variant= --variant=--max-semi-space-size=8]
 *
 * The suite runs with the Node options of `npm start` (package.json); each `--variant` adds Node
 * options after them (a later option wins: `--max-semi-space-size=0` gives back V8's own sizing).
 * Default: one variant, nothing added. Rounds alternate between the variants so that each is
 * measured beside the others, machine noise included. Linux only (/proc).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callJson, mint } from './api.ts';
import { cleanEnv, killAllChildren, REPO_ROOT, spawnNode } from './child.ts';
import { observeCpu } from './cpu.ts';
import { APPEND_BODY } from './executions.ts';
import { measure, type LoadResult } from './load.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { treeMemory, type ProcessMemory } from './process-memory.ts';

/** The Node heap as the process reports it on /metrics, in MB. */
interface NodeHeap {
  heapUsed: number;
  heapTotal: number;
  newSpace: number;
  oldSpace: number;
  codeSpace: number;
  external: number;
}

interface Snapshot {
  processes: ProcessMemory[];
  heap: NodeHeap;
}

interface Round {
  variant: string;
  nodeArgs: string[];
  startMs: number;
  settings: string;
  idle: Snapshot;
  afterLoad: Snapshot;
  settled: Snapshot;
  peakPssMb: number;
  peakBackends: number;
  validate: LoadResult;
  append: LoadResult;
  cpuUsPerRequest: number;
}

const PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];
const mb = (kb: number) => Math.round(kb / 1024);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function nodeHeap(base: string): Promise<NodeHeap> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) => Math.round(Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20);
  return {
    heapUsed: value('nodejs_heap_size_used_bytes'),
    heapTotal: value('nodejs_heap_size_total_bytes'),
    newSpace: value('nodejs_heap_space_size_total_bytes{space="new"}'),
    oldSpace: value('nodejs_heap_space_size_total_bytes{space="old"}'),
    codeSpace: value('nodejs_heap_space_size_total_bytes{space="code"}'),
    external: value('nodejs_external_memory_bytes'),
  };
}

async function snapshot(pid: number, base: string): Promise<Snapshot> {
  return { processes: await treeMemory([pid]), heap: await nodeHeap(base) };
}

async function waitReady(base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(`${base}/ready`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${base}/ready: no 200 within ${timeoutMs} ms (last ${status})`);
    await sleep(200);
  }
}

/** The Node options `npm start` gives the suite (package.json: `node <options> cli/suite.ts start ...`). */
export async function npmStartNodeOptions(): Promise<string[]> {
  const { scripts } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.split(/\s+/);
  if (words[0] !== 'node' || !words.includes('cli/suite.ts')) throw new Error(`npm start is not "node [options] cli/suite.ts ...": ${scripts.start}`);
  return words.slice(1, words.indexOf('cli/suite.ts'));
}

async function oneRound(variant: string, o: Options): Promise<Round> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-bench-memory-'));
  const dataDir = join(dir, 'data');
  const env = cleanEnv({
    SUITE_LOG_LEVEL: 'warn',
    SUITE_RATE_LIMIT_MAX: '100000000',
    SUITE_HOST: '127.0.0.1',
    ...Object.fromEntries(PORTS.map((p) => [p, '0'])),
  });
  const started = performance.now();
  const nodeArgs = [...(await npmStartNodeOptions()), ...variant.split(' ').filter((a) => a !== '')];
  const child = spawnNode('cli/suite.ts', ['start', '--data-dir', dataDir], { env, nodeArgs });
  try {
    const base = `http://127.0.0.1:${(await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1]}`;
    await waitReady(base, 60_000);
    const startMs = Math.round(performance.now() - started);
    const pid = child.proc.pid ?? 0;
    const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
    const validator = await mint(base, adminKey, 'bench-validator', ['auth:token:validate', 'audit:read']);
    const recorder = await mint(base, adminKey, 'bench-recorder', ['execution:record']);
    const check = await callJson(`${base}/executions`, { headers: { authorization: `Bearer ${recorder.token}` }, body: APPEND_BODY });
    if (check.status !== 201) throw new Error(`POST /executions check failed: ${check.status} ${JSON.stringify(check.body)}`);
    const valid = await callJson(`${base}/auth/token/validate`, {
      headers: { authorization: `Bearer ${validator.token}` },
      body: { token: validator.token, requiredScope: 'audit:read' },
    });
    if (valid.status !== 200 || valid.body.valid !== true) throw new Error(`validate check failed: ${valid.status} ${JSON.stringify(valid.body)}`);
    await sleep(o.idle * 1000);
    const idle = await snapshot(pid, base);
    const settings = (await readFile(`/proc/${idle.processes.find((p) => p.role === 'postmaster')?.pid ?? 0}/cmdline`, 'utf8').catch(() => ''))
      .split('\0')
      .filter((a, i, all) => all[i - 1] === '-c' && !/^(unix_socket|listen_|log_|timezone)/.test(a))
      .join(', ');

    let peakPssKb = 0;
    let peakBackends = 0;
    let loading = true;
    const sampler = (async () => {
      while (loading) {
        const all = await treeMemory([pid]);
        peakPssKb = Math.max(
          peakPssKb,
          all.reduce((a, p) => a + p.pssKb, 0),
        );
        peakBackends = Math.max(peakBackends, all.filter((p) => p.role === 'client backend').length);
        await sleep(250);
      }
    })();
    const settingsOfLoad = { connections: o.connections, pipelining: 1, warmupSeconds: 0, seconds: o.load, attempts: 1, foreignLimitPct: 100 };
    const {
      result: [validate, append],
      server,
    } = await observeCpu(pid, () =>
      Promise.all([
        measure(
          {
            name: 'validate',
            url: `${base}/auth/token/validate`,
            method: 'POST',
            headers: { authorization: `Bearer ${validator.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ token: validator.token, requiredScope: 'audit:read' }),
          },
          settingsOfLoad,
          pid,
        ),
        measure(
          {
            name: 'append',
            url: `${base}/executions`,
            method: 'POST',
            headers: { authorization: `Bearer ${recorder.token}`, 'content-type': 'application/json' },
            body: JSON.stringify(APPEND_BODY),
          },
          settingsOfLoad,
          pid,
        ),
      ]),
    ).finally(() => {
      loading = false;
    });
    await sampler;
    const afterLoad = await snapshot(pid, base);
    await sleep(o.settle * 1000);
    const settled = await snapshot(pid, base);
    const answered = validate.total + append.total;
    const serverCores = Object.values(server).reduce((a, b) => a + b, 0) / 100;
    return {
      variant,
      nodeArgs,
      startMs,
      settings,
      idle,
      afterLoad,
      settled,
      peakPssMb: mb(peakPssKb),
      peakBackends,
      validate,
      append,
      cpuUsPerRequest: Math.round((serverCores * o.load * 1e6) / Math.max(1, answered)),
    };
  } finally {
    await child.stop(30_000);
    await rm(dir, { recursive: true, force: true });
  }
}

/** One column of the breakdown: PSS in MB by part, from one snapshot. */
function column(s: Snapshot): Map<string, string> {
  const rows = new Map<string, string>();
  const sum = (ps: ProcessMemory[], f: (p: ProcessMemory) => number) => ps.reduce((a, p) => a + f(p), 0);
  const node = s.processes.filter((p) => p.role === 'node');
  const pg = s.processes.filter((p) => p.role !== 'node');
  rows.set('**whole tree, PSS**', `**${mb(sum(s.processes, (p) => p.pssKb))}**`);
  rows.set(
    'Node process, PSS (anonymous / file)',
    `${mb(sum(node, (p) => p.pssKb))} (${mb(sum(node, (p) => p.pssAnonKb))} / ${mb(sum(node, (p) => p.pssFileKb))})`,
  );
  rows.set('· V8 heap used / total', `${s.heap.heapUsed} / ${s.heap.heapTotal}`);
  rows.set('· of which new space / old space / code (total)', `${s.heap.newSpace} / ${s.heap.oldSpace} / ${s.heap.codeSpace}`);
  rows.set('· external (array buffers included)', `${s.heap.external}`);
  rows.set('Postgres, all processes, PSS', `${mb(sum(pg, (p) => p.pssKb))}`);
  rows.set('· shared memory (buffers etc.), PSS summed', `${mb(sum(pg, (p) => p.pssShmemKb))}`);
  const roles = [...new Set(pg.map((p) => p.role))].sort((a, b) => (a === 'postmaster' ? -1 : b === 'postmaster' ? 1 : a.localeCompare(b)));
  for (const role of roles) {
    const of = pg.filter((p) => p.role === role);
    rows.set(
      `· ${role}${of.length > 1 ? 's (how many: together)' : ''}`,
      `${of.length > 1 ? `${of.length}: ` : ''}${(sum(of, (p) => p.pssKb) / 1024).toFixed(1)}`,
    );
  }
  return rows;
}

function roundMarkdown(r: Round): string {
  const columns = [column(r.idle), column(r.afterLoad), column(r.settled)];
  const keys = [...new Set(columns.flatMap((c) => [...c.keys()]))];
  const lines = [
    `Node options: ${r.nodeArgs.length === 0 ? '(none)' : `\`${r.nodeArgs.join(' ')}\``}; started (to /ready 200) in ${(r.startMs / 1000).toFixed(1)} s; Postgres settings: ${r.settings}`,
    '',
    '| MB | idle | after load | settled |',
    '|---|---:|---:|---:|',
    ...keys.map((k) => `| ${k} | ${columns.map((c) => c.get(k) ?? '–').join(' | ')} |`),
    '',
    `Load: validate ${Math.round(r.validate.reqPerSec)}/s (non-2xx ${r.validate.non2xx + r.validate.errors}), append ${Math.round(r.append.reqPerSec)}/s (non-2xx ${r.append.non2xx + r.append.errors}); ` +
      `server tree CPU ${r.cpuUsPerRequest} µs per answered request; peak PSS ${r.peakPssMb} MB; at most ${r.peakBackends} database connections.`,
  ];
  return lines.join('\n');
}

interface Options {
  idle: number;
  load: number;
  settle: number;
  connections: number;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      idle: { type: 'string', default: '10' },
      load: { type: 'string', default: '10' },
      settle: { type: 'string', default: '10' },
      connections: { type: 'string', default: '4' },
      rounds: { type: 'string', default: '1' },
      variant: { type: 'string', multiple: true },
    },
  });
  const o: Options = { idle: Number(values.idle), load: Number(values.load), settle: Number(values.settle), connections: Number(values.connections) };
  if (![o.idle, o.load, o.settle, o.connections].every((n) => Number.isFinite(n) && n >= 0) || o.load > 120 || o.connections > 64) {
    throw new Error('--idle, --load, --settle, --connections: numbers (load at most 120 s, at most 64 connections)');
  }
  const variants = values.variant ?? [''];
  const rounds = Math.max(1, Number(values.rounds));
  const watchdog = setTimeout(
    () => {
      process.stderr.write('memory: overstayed; ending every child process\n');
      killAllChildren();
      process.exit(2);
    },
    (rounds * variants.length * (o.idle + o.load + o.settle + 150) + 30) * 1000,
  );
  watchdog.unref();
  process.stdout.write(`${machineMarkdown(await describeMachine())}\n\n`);
  process.stdout.write(
    `Command: \`node bench/memory.ts ${process.argv.slice(2).join(' ')}\`; npm start's Node options: \`${(await npmStartNodeOptions()).join(' ') || '(none)'}\`\n\n`,
  );
  const summary: string[] = [
    '| round | Node options added | idle PSS | after load | settled | peak | CPU µs / request | validate/s | append/s |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const total = (s: Snapshot) => mb(s.processes.reduce((a, p) => a + p.pssKb, 0));
  for (let round = 1; round <= rounds; round++) {
    for (const variant of variants) {
      const r = await oneRound(variant, o);
      process.stdout.write(`### Round ${round}\n\n${roundMarkdown(r)}\n\n`);
      summary.push(
        `| ${round} | ${variant === '' ? '(none)' : `\`${variant}\``} | ${total(r.idle)} | ${total(r.afterLoad)} | ${total(r.settled)} | ${r.peakPssMb} | ${r.cpuUsPerRequest} | ${Math.round(r.validate.reqPerSec)} | ${Math.round(r.append.reqPerSec)} |`,
      );
    }
  }
  process.stdout.write(
    `### Summary (PSS of the whole tree, MB; load average now ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})\n\n${summary.join('\n')}\n`,
  );
  process.exit(0);
}
