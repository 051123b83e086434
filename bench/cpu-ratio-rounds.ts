/**
 * The CPU ratios of issue 28 (validate / bare Fastify request, append / one Ed25519 signature) in
 * alternating rounds, for a shared machine: a bare Fastify server and one embedded suite stay up,
 * and each round measures a bare request, a validate, an append and a signature in turn, so that
 * every figure of a round sees about the same neighbours. Medians over the rounds are printed
 * beside every round's figures and the load average.
 *
 *   node bench/cpu-ratio-rounds.ts [--rounds 5] [--seconds 5] [--connections 50]
 *
 * Only 127.0.0.1; bounded (a watchdog ends the children after 10 minutes).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callJson, mint } from './api.ts';
import { cleanEnv, killAllChildren, spawnNode } from './child.ts';
import { waitIdle } from './cpu.ts';
import { APPEND_TARGET_OF_SIGNATURE, VALIDATE_TARGET_OF_BARE, cpuPerAnsweredUs, loadNow, signatureCpuUs } from './cpu-ratios.ts';
import { APPEND_BODY } from './executions.ts';
import { measure, type LoadSettings, type LoadTarget } from './load.ts';

const SUITE_PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];

interface Round { bare: number; validate: number; append: number; signature: number; load: number }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(rounds: number, settings: LoadSettings): Promise<Round[]> {
  const bareChild = spawnNode('bench/bare-server.ts', [], { env: cleanEnv({}) });
  const dir = await mkdtemp(join(tmpdir(), 'suite-ratio-'));
  const env = cleanEnv({ SUITE_LOG_LEVEL: 'warn', SUITE_RATE_LIMIT_MAX: '100000000', SUITE_HOST: '127.0.0.1', ...Object.fromEntries(SUITE_PORTS.map((p) => [p, '0'])) });
  const suite = spawnNode('cli/suite.ts', ['start', '--data-dir', join(dir, 'data')], { env });
  try {
    const barePort = (await bareChild.waitFor(/listening (\d+)/, 30_000))[1];
    const base = `http://127.0.0.1:${(await suite.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1]}`;
    const { adminKey } = JSON.parse(await readFile(join(dir, 'data', 'secrets.json'), 'utf8')) as { adminKey: string };
    const { token } = await mint(base, adminKey, 'bench-agent', ['auth:token:validate', 'audit:read', 'execution:record']);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const validate: LoadTarget = { name: 'validate', url: `${base}/auth/token/validate`, method: 'POST', headers, body: JSON.stringify({ token, requiredScope: 'audit:read' }) };
    const append: LoadTarget = { name: 'append', url: `${base}/executions`, method: 'POST', headers, body: JSON.stringify(APPEND_BODY) };
    for (const t of [validate, append]) {
      const r = await callJson(t.url, { headers, body: JSON.parse(t.body!) });
      if (r.status >= 300) throw new Error(`${t.name} check: ${r.status} ${JSON.stringify(r.body)}`);
    }
    const bare: LoadTarget = { name: 'bare', url: `http://127.0.0.1:${barePort}/`, method: 'GET' };
    const suitePid = suite.proc.pid ?? 0;
    const out: Round[] = [];
    for (let i = 0; i < rounds; i++) {
      const b = await measure(bare, settings, bareChild.proc.pid ?? 0);
      await waitIdle(suitePid, 30_000);
      const v = await measure(validate, settings, suitePid);
      await waitIdle(suitePid, 30_000);
      const a = await measure(append, settings, suitePid);
      await waitIdle(suitePid, 30_000);
      out.push({ bare: cpuPerAnsweredUs(b), validate: cpuPerAnsweredUs(v), append: cpuPerAnsweredUs(a), signature: signatureCpuUs(10_000, 3), load: loadNow() });
      process.stderr.write(`cpu-ratio-rounds: round ${i + 1} of ${rounds} done\n`);
    }
    return out;
  } finally {
    await suite.stop(30_000);
    await bareChild.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export function roundsMarkdown(rs: Round[]): string {
  const f = (n: number, d = 0) => n.toFixed(d);
  const row = (label: string, r: Round) => `| ${label} | ${f(r.bare)} | ${f(r.validate)} | ${f(r.append)} | ${f(r.signature, 1)} | **${f(r.validate / r.bare, 1)}×** | **${f(r.append / r.signature, 1)}×** | ${f(r.load, 1)} |`;
  const med: Round = { bare: median(rs.map((r) => r.bare)), validate: median(rs.map((r) => r.validate)), append: median(rs.map((r) => r.append)), signature: median(rs.map((r) => r.signature)), load: median(rs.map((r) => r.load)) };
  return [
    '| round | bare µs | validate µs | append µs | signature µs | validate / bare | append / signature | load (1 min) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rs.map((r, i) => row(String(i + 1), r)),
    row('median of each column', med),
    '',
    `Targets: validate ≤ ${VALIDATE_TARGET_OF_BARE}× a bare request, append ≤ ${APPEND_TARGET_OF_SIGNATURE}× a signature. µs: CPU of the server's whole process tree per 2xx answer (bench/cpu-ratios.ts); the signature on this thread with process.cpuUsage.`,
  ].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { rounds: { type: 'string', default: '5' }, seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' } } });
  const watchdog = setTimeout(() => { killAllChildren(); process.exit(2); }, 600_000);
  watchdog.unref();
  const rs = await main(Number(values.rounds), { connections: Number(values.connections), pipelining: 1, warmupSeconds: 1, seconds: Number(values.seconds), attempts: 1, foreignLimitPct: 100 });
  process.stdout.write(`${roundsMarkdown(rs)}\n`);
  clearTimeout(watchdog);
}
