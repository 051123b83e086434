/**
 * What tracing costs (docs/OBSERVABILITY.md, "Cost"): embedded suites side by side, measured in
 * interleaved rounds under the same load. Always three: `OTEL_SDK_DISABLED=true` (no provider: the
 * baseline), the defaults (no endpoint: nothing records), and an OTLP endpoint on a local sink in
 * this process (everything recorded and exported). With `--old-tree DIR` (a checkout of an earlier
 * commit, its `node_modules` linked), a fourth: that code with the defaults, to compare code paths
 * in the same run. Figures are server CPU per answered request (its whole process tree, from /proc),
 * beside the rate and the machine's load, and the ratio to the baseline. Bounded: rounds x servers x
 * targets x seconds, then every server stops.
 *
 *   node bench/tracing-cost.ts [--rounds 3] [--seconds 5] [--connections 10] [--old-tree DIR]
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callJson, mint } from './api.ts';
import { cleanEnv, killAllChildren, spawnNode, type Child } from './child.ts';
import { measure, type LoadTarget } from './load.ts';
import { waitIdle } from './cpu.ts';
import { describeMachine, machineMarkdown } from './machine.ts';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { rounds: { type: 'string' }, seconds: { type: 'string' }, connections: { type: 'string' }, 'old-tree': { type: 'string' } },
});
const rounds = Number(values.rounds ?? 3);
const seconds = Number(values.seconds ?? 5);
const connections = Number(values.connections ?? 10);
const oldTree = values['old-tree'];
const serverCount = oldTree === undefined ? 3 : 4;
const watchdog = setTimeout(
  () => {
    killAllChildren();
    process.exit(2);
  },
  (rounds * serverCount * 2 * (seconds + 20) + 300) * 1000,
);
watchdog.unref();

process.stdout.write(`${machineMarkdown(await describeMachine())}\n\n`);

/** The OTLP/HTTP receiving end of the exporting suite: reads each export and answers 200, keeps nothing. */
let exportedBytes = 0;
const sink = createServer((req, res) => {
  req.on('data', (chunk: Buffer) => (exportedBytes += chunk.length));
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

const PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];

interface Server {
  name: string;
  child: Child;
  dir: string;
  targets: LoadTarget[];
}

async function start(name: string, extra: Record<string, string>, tree?: string): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-tracing-cost-'));
  const env = cleanEnv({
    SUITE_LOG_LEVEL: 'warn',
    SUITE_RATE_LIMIT_MAX: '100000000',
    SUITE_HOST: '127.0.0.1',
    ...Object.fromEntries(PORTS.map((p) => [p, '0'])),
    ...extra,
  });
  const child = spawnNode(tree === undefined ? 'cli/suite.ts' : join(tree, 'cli/suite.ts'), ['start', '--data-dir', join(dir, 'data')], { env });
  const port = (await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1];
  const base = `http://127.0.0.1:${port}`;
  const { adminKey } = JSON.parse(await readFile(join(dir, 'data', 'secrets.json'), 'utf8')) as { adminKey: string };
  const { token } = await mint(base, adminKey, 'cost-agent', ['auth:token:validate', 'audit:read', 'execution:record']);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const append = JSON.stringify({ subject: 'cost-agent', module: 'bench', action: 'append', input: { n: 1 }, outcome: 'success' });
  const checked = await callJson(`${base}/executions`, { headers, body: JSON.parse(append) });
  if (checked.status !== 201) throw new Error(`${name}: POST /executions answered ${checked.status}`);
  return {
    name,
    child,
    dir,
    targets: [
      {
        name: 'POST /auth/token/validate',
        url: `${base}/auth/token/validate`,
        method: 'POST',
        headers,
        body: JSON.stringify({ token, requiredScope: 'audit:read' }),
      },
      { name: 'POST /executions', url: `${base}/executions`, method: 'POST', headers, body: append },
    ],
  };
}

const servers = [
  await start('OTEL_SDK_DISABLED=true (baseline)', { OTEL_SDK_DISABLED: 'true' }),
  await start('no endpoint', {}),
  await start('exporting to a local sink', { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl }),
  ...(oldTree === undefined ? [] : [await start(`no endpoint, old code (${oldTree})`, {}, oldTree)]),
];
const BASELINE = servers[0]?.name ?? '';
const cpuPerRequest = new Map<string, number[]>();
const rates = new Map<string, number[]>();
const loads: number[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    // Each round in another order: a configuration is not always the one after the same other.
    const shift = (round - 1) % servers.length;
    for (const s of [...servers.slice(shift), ...servers.slice(0, shift)]) {
      for (const target of s.targets) {
        const pid = s.child.proc.pid ?? 0;
        await waitIdle(pid, 30_000);
        const r = await measure(target, { connections, pipelining: 1, warmupSeconds: 1, seconds, attempts: 1, foreignLimitPct: 1000 }, pid);
        const serverPct = Object.values(r.serverThreads).reduce((a, b) => a + b, 0);
        const answered = (r.reqPerSec * (r.total - r.non2xx - r.errors - r.timeouts)) / Math.max(1, r.total);
        const key = `${target.name} | ${s.name}`;
        // % of a core over the run / answered requests per second = core-seconds per answered request.
        const us = (serverPct / 100 / answered) * 1e6;
        cpuPerRequest.set(key, [...(cpuPerRequest.get(key) ?? []), us]);
        rates.set(key, [...(rates.get(key) ?? []), answered]);
        const load = loadavg()[0] ?? 0;
        loads.push(load);
        console.error(
          `round ${round} ${key}: ${answered.toFixed(0)} answered/s, ${us.toFixed(0)} µs CPU/req, non-2xx ${r.non2xx}, foreign ${r.foreignCorePct}% of a core, load ${load.toFixed(1)}`,
        );
      }
    }
  }
} finally {
  for (const s of servers) {
    await s.child.stop();
    await rm(s.dir, { recursive: true, force: true });
  }
  sink.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
console.log('| route | tracing | median server CPU per answered request | vs baseline | every round | median rate |');
console.log('|---|---|---:|---:|---|---:|');
for (const [key, xs] of cpuPerRequest) {
  const [route, mode] = key.split(' | ');
  const base = median(cpuPerRequest.get(`${route} | ${BASELINE}`) ?? []);
  const ratio = mode === BASELINE ? '1' : (median(xs) / base).toFixed(2);
  console.log(
    `| ${route} | ${mode} | ${median(xs).toFixed(0)} µs | ${ratio} | ${xs.map((x) => x.toFixed(0)).join(', ')} | ${median(rates.get(key) ?? []).toFixed(0)}/s |`,
  );
}
console.log(
  `\n1-minute load average during the runs: ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)} (2 cores); ${(exportedBytes / 1e6).toFixed(1)} MB of OTLP received by the sink.`,
);
