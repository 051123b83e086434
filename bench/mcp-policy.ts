/**
 * The gateway policy file's cost (issue 33): rule evaluation per call (core/gateway-policy, no I/O)
 * and the latency a policy file of 100 rules adds to a gateway call over the same gateway without one.
 *
 *   npx node bench/mcp-policy.ts [--evaluations 200000 --calls 1500 --block 100]   (--calls 0: the micro-bench only)
 *
 * Micro: `decideCall` + `budgetCharges` for one call of `echo` under three 100-rule files
 * (bench/mcp-policy-files.ts): the worst case (every rule on the called tool, every CEL `when`
 * evaluated), a realistic file (rules over five servers, four on the called tool, one a glob), and
 * rules all on other tools. End to end: three suites as children (`suite run all`, embedded), one
 * per file (worst, realistic) and one without a file, each in front of its own server-everything;
 * sequential calls of `echo` rotate between them in blocks so that the machine's load falls on all
 * alike; each suite's process tree's CPU is read around its blocks (its upstream included), and
 * each policy suite's own account of its rule evaluation (`/metrics`: the time `decideCall` and
 * `budgetCharges` took on the calls, where the hot loop's caches are cold between calls). Budgets
 * and approvals on the called tool are left out: their cost is the approvals desk's durable write,
 * not rule evaluation. Only 127.0.0.1; bounded; self-stopping.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { budgetCharges, CallVars, decideCall, parsePolicy, type Policy } from '../core/gateway-policy/index.ts';
import { elsewhere, realistic, worstCase } from './mcp-policy-files.ts';
import { treeCpuSeconds } from './cpu.ts';
import { cleanEnv, killAllChildren, spawnNode, type Child } from './child.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { summarize } from './stats.ts';
import { NODE, SERVER_EVERYTHING, freePort, writeUpstreamsFile } from '../testing/mcp-upstreams.ts';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    evaluations: { type: 'string', default: '200000' },
    calls: { type: 'string', default: '1500' },
    block: { type: 'string', default: '100' },
    // Each suite writes a V8 CPU profile there when it stops (node --cpu-prof): where its time went.
    'cpu-prof-dir': { type: 'string' },
  },
});
const EVALUATIONS = Number(values.evaluations);
const CALLS = Number(values.calls);
const BLOCK = Number(values.block);
const PROFILE_DIR = values['cpu-prof-dir'];

const watchdog = setTimeout(() => {
  process.stderr.write('bench mcp-policy: overstayed 10 minutes; stopping\n');
  killAllChildren();
  process.exit(2);
}, 600_000);
watchdog.unref();

/** µs per call of the decision and the budgets, as the gate makes them: the call's CEL variables made anew per call. */
function micro(policy: Policy): number {
  const call = () => {
    const facts = {
      server: 'everything',
      tool: 'echo',
      args: { message: 'a short message, as a tool call carries' },
      caller: { sub: 'bench-agent', scope: ['mcp:everything:echo'], tenant: null },
      time: new Date(),
    };
    const vars = new CallVars(facts);
    const d = decideCall(policy, facts, vars);
    if (d.effect !== 'allow') throw new Error(`expected allow, got ${d.effect}`);
    budgetCharges(policy, facts, vars);
  };
  for (let i = 0; i < 2000; i++) call();
  const t0 = performance.now();
  for (let i = 0; i < EVALUATIONS; i++) call();
  return ((performance.now() - t0) * 1000) / EVALUATIONS;
}

const parsed = (doc: unknown) => {
  const p = parsePolicy(JSON.stringify(doc));
  if (!p.ok) throw new Error(p.message);
  return p.policy;
};
const machine = await describeMachine();
const t0 = performance.now();
const worst = parsed(worstCase);
const parseMs = performance.now() - t0;
const us = { worst: micro(worst), realistic: micro(parsed(realistic)), elsewhere: micro(parsed(elsewhere)) };

const microLine =
  `Rule evaluation (\`decideCall\` + \`budgetCharges\` for one call of \`echo\`, ${EVALUATIONS} calls, one thread): ` +
  `100 rules all on the called tool, every \`when\` evaluated: **${us.worst.toFixed(2)} µs per call**; ` +
  `the realistic 100-rule file (4 rules on the called tool, 3 \`when\`s evaluated): **${us.realistic.toFixed(2)} µs**; ` +
  `100 rules on other tools: **${us.elsewhere.toFixed(2)} µs**. Parsing and compiling the worst-case file: ${parseMs.toFixed(1)} ms.`;
// Printed at once: the end-to-end part may be cut short on a busy machine.
process.stderr.write(`${microLine}\n`);
if (CALLS === 0) process.exit(0);

const dir = mkdtempSync(join(tmpdir(), 'bench-policy-'));
writeFileSync(join(dir, 'worst.json'), JSON.stringify(worstCase));
writeFileSync(join(dir, 'realistic.json'), JSON.stringify(realistic));
const children: Child[] = [];
const upstreamsFile = () => writeUpstreamsFile({ everything: { command: NODE, args: [SERVER_EVERYTHING, 'stdio'], maxConcurrent: 64 } });
const upstreams = [upstreamsFile(), upstreamsFile(), upstreamsFile()];

interface Suite {
  readonly label: string;
  readonly base: string;
  readonly adminKey: string;
  readonly child: Child;
}

async function startSuite(key: string, label: string, upstreamsPath: string, policy: string | undefined): Promise<Suite> {
  const port = await freePort();
  const adminKey = `bench-${randomBytes(8).toString('hex')}`;
  const child = spawnNode('cli/suite.ts', ['run', 'all'], {
    nodeArgs: PROFILE_DIR !== undefined ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR, '--cpu-prof-name', `${key}-\${pid}.cpuprofile`] : [],
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
      SUITE_MCP_UPSTREAMS: upstreamsPath,
      SUITE_RATE_LIMIT_MAX: '100000000',
      ...(policy !== undefined ? { SUITE_MCP_POLICY: policy } : {}),
    }),
  });
  children.push(child);
  return { label, base: `http://127.0.0.1:${port}`, adminKey, child };
}

async function ready(s: Suite): Promise<Client> {
  for (;;) {
    const up = await fetch(`${s.base}/mcp/upstreams`, { headers: { 'x-suite-admin-key': s.adminKey } }).then(
      async (r) => ((await r.json()) as { upstreams: Array<{ state: string }> }).upstreams[0]?.state === 'ready',
      () => false,
    );
    if (up) break;
    if (s.child.proc.exitCode !== null) throw new Error(`a suite exited: ${s.child.stderr().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const minted = await fetch(`${s.base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-suite-admin-key': s.adminKey },
    body: JSON.stringify({ sub: 'bench-agent', scope: ['mcp:everything:echo'], expiresIn: '1h' }),
  });
  const { token } = (await minted.json()) as { token: string };
  const client = new Client({ name: 'bench-policy', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

try {
  const suites = await Promise.all([
    startSuite('worst', 'the worst-case 100-rule file (every rule on the called tool)', upstreams[0]!.path, join(dir, 'worst.json')),
    startSuite('realistic', 'the realistic 100-rule file', upstreams[1]!.path, join(dir, 'realistic.json')),
    startSuite('none', 'no policy file', upstreams[2]!.path, undefined),
  ]);
  const clients = await Promise.all(suites.map(ready));
  process.stderr.write('all suites ready\n');
  const args = { message: 'a short message, as a tool call carries' };
  const ms: number[][] = suites.map(() => []);
  const cpuSeconds = suites.map(() => 0);
  /** `n` sequential calls through suite `i`, each timed; its process tree's CPU read around the block. */
  const block = async (i: number, n: number, measured: boolean) => {
    const pid = suites[i]!.child.proc.pid as number;
    const cpu0 = await treeCpuSeconds(pid);
    for (let k = 0; k < n; k++) {
      const t = performance.now();
      const r = await clients[i]!.callTool({ name: 'everything__echo', arguments: args });
      const took = performance.now() - t;
      if (r.isError) throw new Error(`call failed: ${JSON.stringify(r.content)}`);
      if (measured) ms[i]!.push(took);
    }
    if (measured) cpuSeconds[i]! += (await treeCpuSeconds(pid)) - cpu0;
  };
  for (let i = 0; i < suites.length; i++) await block(i, 200, false);
  /** The policy's own account of its evaluation (`/metrics`): calls and seconds so far. */
  const evaluation = async (s: Suite) => {
    const text = await (await fetch(`${s.base}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    return { calls: value('mcp_policy_evaluations_total'), seconds: value('mcp_policy_evaluation_seconds_total') };
  };
  const evaluatedBefore = await Promise.all(suites.slice(0, 2).map(evaluation));
  const loadBefore = loadavg();
  for (let round = 0; round * BLOCK < CALLS; round++) {
    process.stderr.write(`${round * BLOCK}/${CALLS}\n`);
    // Each round starts with the next suite, so none always follows another.
    for (let k = 0; k < suites.length; k++) await block((round + k) % suites.length, BLOCK, true);
  }
  const loadAfter = loadavg();
  const evaluatedAfter = await Promise.all(suites.slice(0, 2).map(evaluation));
  const inPlaceUs = evaluatedAfter.map((a, i) => ((a.seconds - evaluatedBefore[i]!.seconds) * 1e6) / (a.calls - evaluatedBefore[i]!.calls));
  await Promise.allSettled(clients.map((c) => c.close()));
  const f = (x: number) => x.toFixed(2);
  const sums = ms.map((m) => summarize(m));
  const cpuPerCall = cpuSeconds.map((c, i) => (c * 1000) / (ms[i]!.length || 1));
  const none = sums[2]!;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  process.stdout.write(
    [
      machineMarkdown(machine),
      '',
      microLine,
      '',
      `Gateway calls of \`echo\`, ${CALLS} each, one at a time, rotating in blocks of ${BLOCK} between three suites; ` +
        `load average (1/5/15 min) ${load(loadBefore)} before the measured blocks, ${load(loadAfter)} after. ` +
        "CPU: each suite's process tree (the suite and its upstream) around its blocks, 10 ms ticks. " +
        "Rule evaluation in place: the suite's own `mcp_policy_evaluation_seconds_total` over `mcp_policy_evaluations_total` across the measured blocks.",
      '',
      '| gateway | p50 ms | p90 ms | p99 ms | added p50 ms | added p90 ms | CPU per call ms | added CPU per call ms | rule evaluation in place, µs per call |',
      '|---|---|---|---|---|---|---|---|---|',
      ...suites.map((s, i) => {
        const x = sums[i]!;
        const added = i === 2 ? ['—', '—', '—'] : [`**${f(x.p50 - none.p50)}**`, f(x.p90 - none.p90), f(cpuPerCall[i]! - cpuPerCall[2]!)];
        const inPlace = i === 2 ? '—' : inPlaceUs[i]!.toFixed(1);
        return `| ${s.label} | ${f(x.p50)} | ${f(x.p90)} | ${f(x.p99)} | ${added[0]} | ${added[1]} | ${f(cpuPerCall[i]!)} | ${added[2]} | ${inPlace} |`;
      }),
      '',
    ].join('\n'),
  );
} finally {
  await Promise.allSettled(children.map((c) => c.stop()));
  for (const u of upstreams) u.cleanup();
  rmSync(dir, { recursive: true, force: true });
}
