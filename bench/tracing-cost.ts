/**
 * What tracing costs when no exporter is configured (docs/OBSERVABILITY.md, "Cost"): two embedded
 * suites side by side, one with `OTEL_SDK_DISABLED=true` (no provider: the tracing code paths are
 * no-ops) and one with the defaults (a provider that samples nothing; context detached and linked
 * around batches and loops, ids flowing), measured in interleaved rounds under the same load.
 * Figures are server CPU per request (its whole process tree, from /proc), beside the rate and the
 * machine's load. Bounded: rounds x targets x seconds, then both servers stop.
 *
 *   node bench/tracing-cost.ts [rounds=3] [seconds=5]
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { callJson, mint } from './api.ts';
import { cleanEnv, killAllChildren, spawnNode, type Child } from './child.ts';
import { measure, type LoadTarget } from './load.ts';
import { waitIdle } from './cpu.ts';

const rounds = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 5);
const watchdog = setTimeout(() => { killAllChildren(); process.exit(2); }, (rounds * 4 * (seconds + 20) + 180) * 1000);
watchdog.unref();

const PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];

interface Server { name: string; child: Child; dir: string; targets: LoadTarget[] }

async function start(name: string, extra: Record<string, string>): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-tracing-cost-'));
  const env = cleanEnv({ SUITE_LOG_LEVEL: 'warn', SUITE_RATE_LIMIT_MAX: '100000000', SUITE_HOST: '127.0.0.1', ...Object.fromEntries(PORTS.map((p) => [p, '0'])), ...extra });
  const child = spawnNode('cli/suite.ts', ['start', '--data-dir', join(dir, 'data')], { env });
  const port = (await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1];
  const base = `http://127.0.0.1:${port}`;
  const { adminKey } = JSON.parse(await readFile(join(dir, 'data', 'secrets.json'), 'utf8')) as { adminKey: string };
  const { token } = await mint(base, adminKey, 'cost-agent', ['auth:token:validate', 'audit:read', 'execution:record']);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const append = JSON.stringify({ subject: 'cost-agent', module: 'bench', action: 'append', input: { n: 1 }, outcome: 'success' });
  const checked = await callJson(`${base}/executions`, { headers, body: JSON.parse(append) });
  if (checked.status !== 201) throw new Error(`${name}: POST /executions answered ${checked.status}`);
  return {
    name, child, dir,
    targets: [
      { name: 'POST /auth/token/validate', url: `${base}/auth/token/validate`, method: 'POST', headers, body: JSON.stringify({ token, requiredScope: 'audit:read' }) },
      { name: 'POST /executions', url: `${base}/executions`, method: 'POST', headers, body: append },
    ],
  };
}

const servers = [await start('OTEL_SDK_DISABLED=true', { OTEL_SDK_DISABLED: 'true' }), await start('default (no endpoint)', {})];
const cpuPerRequest = new Map<string, number[]>();
const rates = new Map<string, number[]>();
const loads: number[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    for (const s of round % 2 === 1 ? servers : [...servers].reverse()) {
      for (const target of s.targets) {
        const pid = s.child.proc.pid ?? 0;
        await waitIdle(pid, 30_000);
        const r = await measure(target, { connections: 10, pipelining: 1, warmupSeconds: 1, seconds, attempts: 1, foreignLimitPct: 1000 }, pid);
        const serverPct = Object.values(r.serverThreads).reduce((a, b) => a + b, 0);
        const key = `${target.name} | ${s.name}`;
        // % of a core over the run / requests per second = core-seconds per request.
        cpuPerRequest.set(key, [...(cpuPerRequest.get(key) ?? []), (serverPct / 100 / r.reqPerSec) * 1e6]);
        rates.set(key, [...(rates.get(key) ?? []), r.reqPerSec]);
        loads.push(loadavg()[0] ?? 0);
        console.error(`round ${round} ${key}: ${r.reqPerSec.toFixed(0)} req/s, ${(serverPct / 100 / r.reqPerSec * 1e6).toFixed(0)} µs CPU/req, foreign ${r.foreignCorePct}% of a core`);
      }
    }
  }
} finally {
  for (const s of servers) {
    await s.child.stop();
    await rm(s.dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
console.log(`| route | tracing | median server CPU per request | median rate | rounds |`);
console.log(`|---|---|---:|---:|---:|`);
for (const [key, xs] of cpuPerRequest) {
  const [route, mode] = key.split(' | ');
  console.log(`| ${route} | ${mode} | ${median(xs).toFixed(0)} µs | ${median(rates.get(key) ?? []).toFixed(0)} req/s | ${xs.length} |`);
}
console.log(`\n1-minute load average during the runs: ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)} (2 cores)`);
