/**
 * Execution traces (issue 3): POST /executions over HTTP at concurrency 50 beside one core's raw
 * Ed25519 signing rate, and whole-chain verification beside the raw verify rate times the cores,
 * with the server's peak memory and how it answered other requests meanwhile.
 *
 *   node bench/executions.ts [--exec-seconds 10] [--warmup 3] [--verify-records 100000] [--memory-records 1000000]
 *                            [--verify-storages embedded,postgres]
 *
 * `--exec-seconds 0` skips the appends (verification only).
 *
 * Each figure is judged against one core's raw rate measured just before and just after it (2 s
 * each, the suite idle): this machine's speed drifts by 20% and more within minutes, so a rate
 * measured once at the start could be far from the one a run ten minutes later had.
 *
 * The suite runs as `suite start` (memory bus) on its embedded default (its own Postgres server) and on the local
 * Postgres, on both cores, unpinned: appends are a pipeline (HTTP edge, writer, database), and
 * verification uses every core by design. Chains to verify are written straight into the storage by
 * bench/chain-fill.ts (valid records, signed with a published key), then verified through
 * GET /executions-verify-chain.
 */
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createTraceSigner, verifyHashSignature } from '../core/chain/index.ts';
import { callJson, mint } from './api.ts';
import { fillExecutionChain } from './chain-fill.ts';
import { hotLoopRate } from './hot-loop.ts';
import { cleanEnv, spawnNode, type Child } from './child.ts';
import { observeCpu, waitIdle } from './cpu.ts';
import { measure, type LoadResult } from './load.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { createTestDatabase } from '../testing/storage.ts';

export const APPEND_TARGET_OF_SIGN = 0.25;

/** The body every append sends (`POST /executions`); bench/bus.ts builds its bus message from it too. */
export const APPEND_BODY = {
  subject: 'bench-agent',
  scope: ['crm:write'],
  module: 'crm',
  action: 'update-contact',
  input: { contact: 42, fields: { email: 'someone@example.com', phone: '+33 1 23 45 67 89' } },
  output: { ok: true, version: 7 },
  outcome: 'success',
  cost: { amount: 120, currency: 'EUR', source: 'provider-invoice' },
  governance: { policyRef: 'crm-policy', policyVersion: '3', decision: 'PERMITTED', evidence: ['ticket-1'], evaluatedBy: 'opa' },
};
export const APPEND_TARGET_P99_MS = 25;
/**
 * The pause between two calls of each probe while a chain verifies. A probe is there to show that
 * the service keeps answering, and costs what it measures: on a machine whose two cores verify,
 * each call woke both this process and the server's main thread for ~0.7-1 ms of CPU, so probing
 * every 20 ms took ~9% of the machine from the verification (65-67% of the raw rate against
 * 75-78% every 100 ms, alternating runs; docs/PERFORMANCE.md). A stall longer than the pause
 * still shows in the probes' maximum.
 */
export const PROBE_EVERY_MS = 100;
export const VERIFY_TARGET_OF_CORES = 0.8;
export const MEMORY_TARGET_MB = 300;

export interface RawRates {
  cores: number;
  signPerSec: number;
  verifyPerSec: number;
  /**
   * Verifications per second of all cores at once (one thread each, the same loop): what the
   * machine gives when every core verifies, for context. The target is judged against
   * `cores × verifyPerSec`, as the issue states it.
   */
  verifyAllCoresPerSec: number;
}

/**
 * One core's rate measured just before and just after a run, and their mean, which the run is
 * judged against. This machine's speed drifts by 20% and more within minutes (shared hardware):
 * a rate measured at the start of the bench says little about a run ten minutes later.
 */
export interface Around {
  before: number;
  after: number;
  mean: number;
}

/** Ed25519 over a 32-byte digest, as the chain uses it: one key, digest and signature for every measure. */
const rawSetup = (() => {
  let made: { signer: ReturnType<typeof createTraceSigner>; key: ReturnType<typeof createPublicKey>; digest: string; signature: string } | undefined;
  return () => {
    if (made) return made;
    const signer = createTraceSigner(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const digest = randomBytes(32).toString('hex');
    made = { signer, key: createPublicKey(signer.publicKeyPem), digest, signature: signer.sign(digest) };
    return made;
  };
})();

/** One core's rate (this thread, a hot loop) of signing or verifying, over `seconds`. */
export function oneCoreRate(kind: 'sign' | 'verify', seconds: number): number {
  const { signer, key, digest, signature } = rawSetup();
  return hotLoopRate(kind === 'sign' ? () => signer.sign(digest) : () => verifyHashSignature(key, digest, signature), seconds);
}

/** `run`, with one core's `kind` rate measured for `seconds` just before and just after it. */
async function measuredAround<T>(kind: 'sign' | 'verify', seconds: number, run: () => Promise<T>): Promise<{ result: T; raw: Around }> {
  const before = oneCoreRate(kind, seconds);
  const result = await run();
  const after = oneCoreRate(kind, seconds);
  return { result, raw: { before, after, mean: (before + after) / 2 } };
}

/** One core's sign and verify rates, and all cores' verify rate, at the start of the bench. */
export async function rawRates(seconds = 2): Promise<RawRates> {
  if (availableParallelism() < cpus().length) {
    throw new Error(`this process may use ${availableParallelism()} of ${cpus().length} CPUs (pinned?): the verification figures would not use every core`);
  }
  const { signer, digest, signature } = rawSetup();
  const signPerSec = oneCoreRate('sign', seconds);
  const verifyPerSec = oneCoreRate('verify', seconds);
  const cores = availableParallelism();
  const startAt = Date.now() + 1000;
  const perThread = await Promise.all(
    Array.from(
      { length: cores },
      () =>
        new Promise<number>((resolve, reject) => {
          const w = new Worker(new URL('./raw-verify-thread.ts', import.meta.url), {
            workerData: { publicKeyPem: signer.publicKeyPem, digest, signature, seconds, startAt },
          });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
  return { cores, signPerSec, verifyPerSec, verifyAllCoresPerSec: perThread.reduce((a, b) => a + b, 0) };
}

export interface Suite {
  child: Child;
  base: string;
  adminKey: string;
  stop(): Promise<void>;
}

/** Where the suite keeps its data: the embedded default (its own Postgres in the data folder), or a throw-away database on the local Postgres. */
export type Backend = 'embedded' | 'postgres';

export interface Place {
  dataDir: string;
  databaseUrl: string | undefined;
  dispose(): Promise<void>;
}

/** Writes a signed chain of `records` with a fresh key where the suite will start: the seconds it took, and the key. */
export async function fillChainAt(where: Place, records: number): Promise<{ fillSeconds: number; key: string }> {
  const t0 = performance.now();
  const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await fillExecutionChain(where.databaseUrl !== undefined ? { databaseUrl: where.databaseUrl } : { dbPath: join(where.dataDir, 'database') }, records, key);
  return { fillSeconds: (performance.now() - t0) / 1000, key };
}

export async function place(backend: Backend): Promise<Place> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-bench-exec-'));
  const db = backend === 'postgres' ? await createTestDatabase() : undefined;
  return {
    dataDir: join(dir, 'data'),
    databaseUrl: db?.url,
    async dispose() {
      await db?.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function startSuite(p: Place): Promise<Suite> {
  const dataDir = p.dataDir;
  const env = cleanEnv({
    ...(p.databaseUrl !== undefined ? { SUITE_DATABASE_URL: p.databaseUrl } : {}),
    SUITE_LOG_LEVEL: 'warn',
    SUITE_RATE_LIMIT_MAX: '100000000',
    SUITE_HOST: '127.0.0.1',
    ...Object.fromEntries(
      ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'].map((p) => [p, '0']),
    ),
  });
  const child = spawnNode('cli/suite.ts', ['start', '--data-dir', dataDir], { env });
  const port = (await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1];
  const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
  return { child, base: `http://127.0.0.1:${port}`, adminKey, stop: () => child.stop(30_000) };
}

/** Resident memory of a process and of its children (the embedded database runs in them), in MB. */
export function rssMb(pid: number): { server: number; children: number } {
  const rss = (p: number) => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  };
  let children = 0;
  try {
    for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) children += rss(Number(c));
  } catch {
    // no children file: count none
  }
  return { server: rss(pid), children };
}

/** An append run, and one core's signing rate measured just before and after it (2 s each). */
export type AppendResult = LoadResult & { rawSign: Around };

export async function benchAppends(backend: Backend, o: { seconds: number; warmup: number }): Promise<AppendResult> {
  const where = await place(backend);
  const suite = await startSuite(where);
  try {
    const { token } = await mint(suite.base, suite.adminKey, 'bench-agent', ['execution:record']);
    return await loadAppends({ name: `POST /executions (c=50, ${backend})`, base: suite.base, token, pid: suite.child.proc.pid ?? 0 }, o);
  } finally {
    await suite.stop();
    await where.dispose();
  }
}

/**
 * `POST /executions` with the bench's body at 50 connections on a server already running (`pid`,
 * watched with its children), between two measures of one core's signing rate; one append is
 * checked first.
 */
export async function loadAppends(
  server: { name: string; base: string; token: string; pid: number },
  o: { seconds: number; warmup: number },
): Promise<AppendResult> {
  const body = APPEND_BODY;
  const first = await callJson(`${server.base}/executions`, { headers: { authorization: `Bearer ${server.token}` }, body });
  if (first.status !== 201) throw new Error(`POST /executions check failed: ${first.status} ${JSON.stringify(first.body)}`);
  const { result, raw } = await measuredAround('sign', 2, async () => {
    const load = await measure(
      {
        name: server.name,
        url: `${server.base}/executions`,
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
      { connections: 50, pipelining: 1, warmupSeconds: o.warmup, seconds: o.seconds, attempts: 1, foreignLimitPct: 100 },
      server.pid,
    );
    // The last commits and the audit backlog finish before the rate after is measured.
    await waitIdle(server.pid, 10_000);
    return load;
  });
  return { ...result, rawSign: raw };
}

export interface VerifyResult {
  backend: Backend;
  records: number;
  fillSeconds: number;
  seconds: number;
  perSec: number;
  valid: boolean;
  /** Resident memory of the server process once idle after its start, before verifying. */
  idleServerMb: number;
  peakServerMb: number;
  peakChildrenMb: number;
  /** GET /health and GET /executions/public-key answered during the verification, latency in ms. */
  health: { n: number; p99: number; max: number };
  publicKey: { n: number; p99: number; max: number };
  /** CPU meanwhile, % of one core: the server by thread (and PGlite's process), and this process (probes, sampler). */
  serverThreads: Record<string, number>;
  benchProcessPct: number;
  /** One core's verify rate just before and just after the verification (2 s each, the suite idle). */
  rawVerify: Around;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.min(s.length - 1, Math.floor(s.length * p))] as number);
};

/**
 * GET `url` and read the answer, on a kept-alive connection: node:http costs this process about
 * half of fetch's CPU per call (back to back: ~100 µs against ~220 µs), and this process shares
 * the machine's two cores with the server it measures.
 */
function probeCall(url: string, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve());
      res.on('error', reject);
    }).on('error', reject);
  });
}

async function benchVerify(backend: Backend, records: number): Promise<VerifyResult> {
  const where = await place(backend);
  try {
    const { fillSeconds } = await fillChainAt(where, records);
    const suite = await startSuite(where);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const pid = suite.child.proc.pid ?? 0;
      const admin = { 'x-suite-admin-key': suite.adminKey };
      const urls = { health: `${suite.base}/health`, publicKey: `${suite.base}/executions/public-key` };
      // What the suite does as it starts (and this process's first calls, compiled on first use)
      // is not charged to the verification.
      for (let i = 0; i < 20; i++) await Promise.all([probeCall(urls.health, agent), probeCall(urls.publicKey, agent)]);
      await waitIdle(pid, 15_000);
      const idleServerMb = rssMb(pid).server;
      let peak = { server: 0, children: 0 };
      const health: number[] = [];
      const publicKey: number[] = [];
      let running = true;
      const probe = async (url: string, into: number[]) => {
        while (running) {
          const s = performance.now();
          await probeCall(url, agent);
          if (running) into.push(performance.now() - s);
          await new Promise((res) => setTimeout(res, PROBE_EVERY_MS));
        }
      };
      const sampler = setInterval(() => {
        const m = rssMb(pid);
        peak = { server: Math.max(peak.server, m.server), children: Math.max(peak.children, m.children) };
      }, 100);
      const {
        result: { observed, seconds, ownCpu },
        raw: rawVerify,
      } = await measuredAround('verify', 2, async () => {
        const probes = [probe(urls.health, health), probe(urls.publicKey, publicKey)];
        const benchCpu = process.cpuUsage();
        const s = performance.now();
        const observed = await observeCpu(pid, () => callJson(`${suite.base}/executions-verify-chain`, { headers: admin }));
        const seconds = (performance.now() - s) / 1000;
        const ownCpu = process.cpuUsage(benchCpu);
        running = false;
        clearInterval(sampler);
        await Promise.all(probes);
        return { observed, seconds, ownCpu };
      });
      const r = observed.result;
      if (r.status !== 200) throw new Error(`verification answered ${r.status} ${JSON.stringify(r.body)}`);
      const checked = Number(r.body.checked);
      return {
        backend,
        records: checked,
        fillSeconds,
        seconds,
        perSec: checked / seconds,
        valid: r.body.valid === true,
        idleServerMb,
        peakServerMb: peak.server,
        peakChildrenMb: peak.children,
        health: { n: health.length, p99: pct(health, 0.99), max: Math.max(0, ...health) },
        publicKey: { n: publicKey.length, p99: pct(publicKey, 0.99), max: Math.max(0, ...publicKey) },
        serverThreads: observed.server,
        benchProcessPct: Math.round((ownCpu.user + ownCpu.system) / 1e4 / seconds),
        rawVerify,
      };
    } finally {
      agent.destroy();
      await suite.stop();
    }
  } finally {
    await where.dispose();
  }
}

export interface ExecutionsBenchResult {
  raw: RawRates;
  appends: AppendResult[];
  verifications: VerifyResult[];
}

/**
 * Appends (none with `seconds` 0) and the 100k verification on the storages given (default both);
 * the memory run (1M records) on Postgres, where filling is quicker. The server process's memory
 * differs somewhat with the storage: on Postgres the verification threads read over connections
 * of their own, on PGlite the main thread reads the pages and hands them over.
 */
export async function runExecutionsBench(o: {
  seconds: number;
  warmup: number;
  verifyRecords: number;
  memoryRecords: number;
  verifyStorages?: readonly Backend[];
}): Promise<ExecutionsBenchResult> {
  const raw = await rawRates();
  const appends = o.seconds > 0 ? [await benchAppends('embedded', o), await benchAppends('postgres', o)] : [];
  const verifications: VerifyResult[] = [];
  if (o.verifyRecords > 0) for (const b of o.verifyStorages ?? ['embedded', 'postgres']) verifications.push(await benchVerify(b, o.verifyRecords));
  if (o.memoryRecords > 0) verifications.push(await benchVerify('postgres', o.memoryRecords));
  return { raw, appends, verifications };
}

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const met = (ok: boolean) => (ok ? '**met**' : '**NOT met**');

export function executionsMarkdown(r: ExecutionsBenchResult): string {
  const lines = [
    `Raw Ed25519 over a 32-byte digest, one core (node:crypto, this process): sign ${fmt(r.raw.signPerSec)}/s, verify ${fmt(r.raw.verifyPerSec)}/s; cores: ${r.raw.cores}. ` +
      `Verifying on all ${r.raw.cores} cores at once (one thread each, same loop): ${fmt(r.raw.verifyAllCoresPerSec)}/s, ` +
      `${fmt((r.raw.verifyAllCoresPerSec / (r.raw.verifyPerSec * r.raw.cores)) * 100, 1)}% of ${r.raw.cores} × one core's rate. ` +
      "Each figure below is judged against one core's rate measured just before and just after it (their mean; both are listed under the table): the speed of this machine drifts by 20% and more within minutes.",
    '',
    '| measure | figure | target | met? |',
    '|---|---:|---|---|',
  ];
  for (const a of r.appends) {
    const ratio = a.reqPerSec / a.rawSign.mean;
    lines.push(
      `| ${a.name}: req/s | ${fmt(a.reqPerSec)} (${fmt(ratio * 100, 1)}% of one core's signing, ${fmt(a.rawSign.mean)}/s) | ≥ ${APPEND_TARGET_OF_SIGN * 100}% (${fmt(a.rawSign.mean * APPEND_TARGET_OF_SIGN)}/s) | ${met(ratio >= APPEND_TARGET_OF_SIGN)} |`,
    );
    lines.push(
      `| ${a.name}: p99 latency | ${a.p99Ms} ms (p50 ${a.p50Ms} ms, max ${a.maxMs} ms) | ≤ ${APPEND_TARGET_P99_MS} ms | ${met(a.p99Ms <= APPEND_TARGET_P99_MS)} |`,
    );
  }
  for (const v of r.verifications) {
    const cap = v.rawVerify.mean * r.raw.cores;
    const label = `verification of ${fmt(v.records)} records (${v.backend})`;
    lines.push(
      `| ${label}: records/s | ${fmt(v.perSec)} in ${fmt(v.seconds, 1)} s (${fmt((v.perSec / cap) * 100, 1)}% of ${r.raw.cores} × raw verify) | ≥ ${VERIFY_TARGET_OF_CORES * 100}% (${fmt(cap * VERIFY_TARGET_OF_CORES)}/s) | ${met(v.perSec >= cap * VERIFY_TARGET_OF_CORES)} |`,
    );
    lines.push(
      `| ${label}: peak resident memory of the server process | ${fmt(v.peakServerMb)} MB (idle before: ${fmt(v.idleServerMb)} MB; its child processes: ${fmt(v.peakChildrenMb)} MB) | < ${MEMORY_TARGET_MB} MB (the target is for 1,000,000 records) | ${met(v.peakServerMb < MEMORY_TARGET_MB)} |`,
    );
    lines.push(
      `| ${label}: other requests meanwhile | GET /health p99 ${fmt(v.health.p99, 1)} ms, max ${fmt(v.health.max, 1)} ms (${v.health.n} calls); GET /executions/public-key p99 ${fmt(v.publicKey.p99, 1)} ms, max ${fmt(v.publicKey.max, 1)} ms (${v.publicKey.n} calls) | answered throughout | ${met(v.health.n > 0 && v.publicKey.n > 0)} |`,
    );
    if (!v.valid) lines.push(`| ${label}: result | **chain reported invalid** | valid | **NOT met** |`);
  }
  lines.push('');
  const around = (x: Around) => `${fmt(x.before)}/s before, ${fmt(x.after)}/s after`;
  for (const a of r.appends) lines.push(`- One core's signing rate around ${a.name}: ${around(a.rawSign)}.`);
  for (const v of r.verifications)
    lines.push(`- One core's verify rate around the verification of ${fmt(v.records)} records (${v.backend}): ${around(v.rawVerify)}.`);
  for (const a of r.appends) {
    lines.push(
      `- ${a.name}: ${fmt(a.total)} requests, ${a.non2xx} non-2xx, ${a.errors + a.timeouts} errors/timeouts; server CPU by thread: ${Object.entries(
        a.serverThreads,
      )
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `${k} ${v}%`)
        .join(', ')}. ${appendCpuLine(a, r.raw.cores)}`,
    );
  }
  for (const v of r.verifications) {
    const threads = Object.entries(v.serverThreads)
      .filter(([, p]) => p > 0)
      .map(([k, p]) => `${k} ${p}%`)
      .join(', ');
    lines.push(
      `- ${fmt(v.records)} records (${v.backend}) written by bench/chain-fill.ts in ${fmt(v.fillSeconds, 1)} s before the suite started on them; while verifying, server CPU by thread: ${threads}; this bench process (probes, sampler): ${v.benchProcessPct}%.`,
    );
  }
  return lines.join('\n');
}

/**
 * Where the machine's CPU went per append, in µs: the server's process tree, the load generator
 * (autocannon, in this process), and every other process (on Postgres: mostly the database).
 */
export function appendCpuLine(a: LoadResult, cores: number): string {
  const server = Object.values(a.serverThreads).reduce((x, y) => x + y, 0);
  const us = (pct: number) => fmt(a.reqPerSec > 0 ? ((pct / 100) * 1e6) / a.reqPerSec : 0);
  const busy = server + a.loadGeneratorCorePct + a.foreignCorePct;
  return (
    `CPU per append: server ${us(server)} µs, load generator ${us(a.loadGeneratorCorePct)} µs, other processes ${us(a.foreignCorePct)} µs; ` +
    `the machine was ${fmt(busy / cores)}% busy.`
  );
}

export const EXECUTIONS_ARGS = {
  'exec-seconds': { type: 'string', default: '10' },
  'verify-records': { type: 'string', default: '100000' },
  'memory-records': { type: 'string', default: '1000000' },
} as const;

/** `--verify-storages embedded,postgres` (either or both). */
export function verifyStoragesFrom(value: string): Backend[] {
  const list = value
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  for (const b of list) if (b !== 'embedded' && b !== 'postgres') throw new Error(`--verify-storages: unknown storage ${b}`);
  return list as Backend[];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { ...EXECUTIONS_ARGS, warmup: { type: 'string', default: '3' }, 'verify-storages': { type: 'string', default: 'embedded,postgres' } },
  });
  process.stdout.write(`${machineMarkdown(await describeMachine())}\n\n`);
  const r = await runExecutionsBench({
    seconds: Number(values['exec-seconds']),
    warmup: Number(values.warmup),
    verifyRecords: Number(values['verify-records']),
    memoryRecords: Number(values['memory-records']),
    verifyStorages: verifyStoragesFrom(values['verify-storages']),
  });
  process.stdout.write(`${executionsMarkdown(r)}\n`);
}
