/**
 * The MCP gateway's cost (issue 27): the latency it adds to a tool call over calling the same
 * upstream directly (p50, p99), and calls per second through it, with the suite's CPU per call.
 *
 *   node bench/mcp-gateway.ts [--calls 2000 --warmup 300 --seconds 10 --concurrency 8] [--storage data-dir|memory]
 *
 * The suite runs as a child: by default as users run it, the embedded default with a data folder
 * (`suite start --data-dir`: embedded Postgres, the audit journal, every answer waiting for its
 * syncs; issue 34 item 4); with `--storage memory`, `suite run all` (PGlite in memory, no journal,
 * no sync: the figure before session 13, a second row only). With one
 * upstream, server-everything over stdio (from npm); the bench calls its `echo` tool directly over
 * stdio (its own server-everything process) and through the gateway (Streamable HTTP `/mcp`). A
 * gateway call is the capability check, the audit entry, the forward, and the signed execution
 * record (group-committed), all inside the measured time. Only 127.0.0.1; bounded; self-stopping.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cleanEnv, killAllChildren, spawnNode } from './child.ts';
import { observeCpu } from './cpu.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { summarize, type Summary } from './stats.ts';
import { NODE, SERVER_EVERYTHING, freePort, writeUpstreamsFile } from '../testing/mcp-upstreams.ts';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    calls: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    storage: { type: 'string', default: 'data-dir' },
  },
});
const CALLS = Number(values.calls);
const WARMUP = Number(values.warmup);
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);

const watchdog = setTimeout(() => {
  process.stderr.write('bench mcp-gateway: overstayed 10 minutes; stopping\n');
  killAllChildren();
  process.exit(2);
}, 600_000);
watchdog.unref();

type Call = () => Promise<unknown>;

async function sequential(call: Call, n: number): Promise<Summary> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call();
    ms.push(performance.now() - t0);
  }
  return summarize(ms);
}

/** `CONCURRENCY` callers in a closed loop for `SECONDS`: calls completed per second. */
async function closedLoop(call: Call): Promise<{ calls: number; perSecond: number }> {
  const end = performance.now() + SECONDS * 1000;
  let calls = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        await call();
        calls++;
      }
    }),
  );
  return { calls, perSecond: Math.round(calls / ((performance.now() - t0) / 1000)) };
}

const machine = await describeMachine();
const upstreams = writeUpstreamsFile({ everything: { command: NODE, args: [SERVER_EVERYTHING, 'stdio'], maxConcurrent: 64 } });
const port = await freePort();
const adminKey = `bench-${randomBytes(8).toString('hex')}`;
if (values.storage !== 'data-dir' && values.storage !== 'memory') throw new Error('--storage is data-dir or memory');
const dataDir = values.storage === 'data-dir' ? join(await mkdtemp(join(tmpdir(), 'suite-gw-bench-')), 'data') : undefined;
const suite = spawnNode('cli/suite.ts', dataDir === undefined ? ['run', 'all'] : ['start', '--data-dir', dataDir], {
  env: cleanEnv({
    SUITE_TOKEN_PORT: String(port),
    SUITE_SCHEDULER_PORT: '0',
    SUITE_BENCH_PORT: '0',
    SUITE_CONNECTOR_PORT: '0',
    SUITE_TRUST_PORT: '0',
    SUITE_DASHBOARD_PORT: '0',
    SUITE_ADMIN_KEY: adminKey,
    SUITE_HMAC_SECRET: randomBytes(32).toString('hex'),
    SUITE_LOG_LEVEL: 'warn',
    SUITE_MCP_UPSTREAMS: upstreams.path,
    SUITE_RATE_LIMIT_MAX: '100000000',
  }),
});
const base = `http://127.0.0.1:${port}`;
try {
  for (;;) {
    const ready = await fetch(`${base}/mcp/upstreams`, { headers: { 'x-suite-admin-key': adminKey } }).then(
      async (r) => ((await r.json()) as { upstreams: Array<{ state: string }> }).upstreams[0]?.state === 'ready',
      () => false,
    );
    if (ready) break;
    if (suite.proc.exitCode !== null) throw new Error(`the suite exited: ${suite.stderr().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const minted = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-suite-admin-key': adminKey },
    body: JSON.stringify({ sub: 'bench-agent', scope: ['mcp:everything:echo', 'auth:token:validate'], expiresIn: '1h' }),
  });
  const { token } = (await minted.json()) as { token: string };

  const direct = new Client({ name: 'bench-direct', version: '1.0.0' });
  await direct.connect(new StdioClientTransport({ command: NODE, args: [SERVER_EVERYTHING, 'stdio'], stderr: 'ignore' }));
  const gateway = new Client({ name: 'bench-gateway', version: '1.0.0' });
  await gateway.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));

  const args = { message: 'a short message, as a tool call carries' };
  const callDirect: Call = async () => {
    const r = await direct.callTool({ name: 'echo', arguments: args });
    if (r.isError) throw new Error(`direct call failed: ${JSON.stringify(r.content)}`);
  };
  // One of the suite's own tools, traced the same way: what a traced call costs without an upstream.
  const callOwn: Call = async () => {
    const r = await gateway.callTool({ name: 'validate_token', arguments: { token: 'x.y.z' } });
    if (r.isError) throw new Error(`own tool call failed: ${JSON.stringify(r.content)}`);
  };
  const callGateway: Call = async () => {
    const r = await gateway.callTool({ name: 'everything__echo', arguments: args });
    if (r.isError) throw new Error(`gateway call failed: ${JSON.stringify(r.content)}`);
  };

  await sequential(callDirect, WARMUP);
  await sequential(callGateway, WARMUP);
  await sequential(callOwn, WARMUP);
  const latDirect = await sequential(callDirect, CALLS);
  const latGateway = await sequential(callGateway, CALLS);
  const latOwn = await sequential(callOwn, CALLS);
  const load = await observeCpu(suite.proc.pid as number, () => closedLoop(callGateway));
  const suiteCpuPct = Object.values(load.server).reduce((a, b) => a + b, 0);
  const cpuPerCallMs = ((suiteCpuPct / 100) * 1000) / load.result.perSecond;
  await Promise.allSettled([direct.close(), gateway.close()]);

  const f = (n: number) => n.toFixed(2);
  process.stdout.write(
    [
      machineMarkdown(machine),
      '',
      dataDir === undefined
        ? 'Storage: PGlite in memory (`suite run all`): no journal, no sync.'
        : 'Storage: the embedded default with its data folder (`suite start --data-dir`): embedded Postgres and the audit journal.',
      '',
      `Sequential calls of server-everything's \`echo\` (${CALLS} each, after ${WARMUP} warm-up), one client:`,
      '',
      '| path | p50 ms | p90 ms | p99 ms | max ms |',
      '|---|---|---|---|---|',
      `| direct (stdio, the SDK client) | ${f(latDirect.p50)} | ${f(latDirect.p90)} | ${f(latDirect.p99)} | ${f(latDirect.max)} |`,
      `| through the gateway (HTTP /mcp → stdio upstream) | ${f(latGateway.p50)} | ${f(latGateway.p90)} | ${f(latGateway.p99)} | ${f(latGateway.max)} |`,
      `| the suite's own \`validate_token\` over /mcp (traced the same way, no upstream) | ${f(latOwn.p50)} | ${f(latOwn.p90)} | ${f(latOwn.p99)} | ${f(latOwn.max)} |`,
      `| **added by the gateway** | **${f(latGateway.p50 - latDirect.p50)}** | ${f(latGateway.p90 - latDirect.p90)} | **${f(latGateway.p99 - latDirect.p99)}** | |`,
      '',
      `Closed loop through the gateway, ${CONCURRENCY} concurrent calls for ${SECONDS} s: **${load.result.perSecond} calls/s** (${load.result.calls} calls); ` +
        `suite process tree (its upstream included) ${suiteCpuPct}% of a core, **${f(cpuPerCallMs)} ms CPU per call**; ` +
        `the bench client ${load.selfCorePct}%, other processes ${load.foreignCorePct}% of a core meanwhile.`,
      '',
    ].join('\n'),
  );
} finally {
  await suite.stop();
  upstreams.cleanup();
  if (dataDir !== undefined) await rm(join(dataDir, '..'), { recursive: true, force: true });
}
