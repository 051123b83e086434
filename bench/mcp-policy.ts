/**
 * The gateway policy file's cost (issue 33): rule evaluation per call (core/gateway-policy, no I/O)
 * and the latency a policy file of 100 rules adds to a gateway call over the same gateway without one.
 *
 *   node bench/mcp-policy.ts [--evaluations 200000 --calls 1500 --block 100]
 *
 * Micro: `decideCall` + `budgetCharges` over 100 rules, all on the called tool so that every rule's
 * CEL `when` is evaluated (the worst case: 99 deny rules that do not match, then an allow), and over
 * 100 rules on other tools (the common case: the server/tool test skips them). End to end: two
 * suites as children (`suite run all`, embedded), one with the 100-rule file and one without, each
 * in front of its own server-everything; calls of `echo` alternate between them in blocks so that
 * the machine's load falls on both alike. Budgets and approvals are left out: their cost is the
 * approvals desk's durable write, not rule evaluation. Only 127.0.0.1; bounded; self-stopping.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { budgetCharges, decideCall, parsePolicy, type Policy } from '../core/gateway-policy/index.ts';
import { cleanEnv, killAllChildren, spawnNode, type Child } from './child.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { summarize } from './stats.ts';
import { NODE, SERVER_EVERYTHING, freePort, writeUpstreamsFile } from '../testing/mcp-upstreams.ts';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { evaluations: { type: 'string', default: '200000' }, calls: { type: 'string', default: '1500' }, block: { type: 'string', default: '100' } },
});
const EVALUATIONS = Number(values.evaluations);
const CALLS = Number(values.calls);
const BLOCK = Number(values.block);

const watchdog = setTimeout(() => {
  process.stderr.write('bench mcp-policy: overstayed 10 minutes; stopping\n');
  killAllChildren();
  process.exit(2);
}, 600_000);
watchdog.unref();

/** 99 deny rules whose `when` reads the arguments and does not match `message`, then an allow: every rule evaluated. */
const worstCase = {
  rules: [
    ...Array.from({ length: 99 }, (_, i) => ({
      name: `r${i}`,
      server: 'everything',
      tool: i % 2 === 0 ? 'echo' : 'ech?',
      when: `args.message.startsWith("blocked-${i}") || (caller.tenant != null && caller.tenant == "t${i}")`,
      effect: 'deny',
      reason: `rule ${i}`,
    })),
    { name: 'rest', server: 'everything', tool: '*', effect: 'allow' },
  ],
};
/** 100 rules on other tools and servers: the server/tool test skips each. */
const elsewhere = {
  rules: Array.from({ length: 100 }, (_, i) => ({
    name: `o${i}`,
    server: i % 2 === 0 ? 'bank' : 'everything',
    tool: `tool-${i}`,
    when: 'args.amount > 1000',
    effect: 'deny',
    reason: 'too much',
  })),
};

function micro(policy: Policy): { usPerCall: number } {
  const facts = {
    server: 'everything',
    tool: 'echo',
    args: { message: 'a short message, as a tool call carries' },
    caller: { sub: 'bench-agent', scope: ['mcp:everything:echo'], tenant: null },
    time: new Date(),
  };
  for (let i = 0; i < 2000; i++) decideCall(policy, facts);
  const t0 = performance.now();
  for (let i = 0; i < EVALUATIONS; i++) {
    const d = decideCall(policy, facts);
    if (d.effect !== 'allow') throw new Error(`expected allow, got ${d.effect}`);
    budgetCharges(policy, facts);
  }
  return { usPerCall: ((performance.now() - t0) * 1000) / EVALUATIONS };
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
const microWorst = micro(worst);
const microElsewhere = micro(parsed(elsewhere));

const microLine =
  `Rule evaluation (\`decideCall\` + \`budgetCharges\`, ${EVALUATIONS} calls, one thread): 100 rules on the called tool, every \`when\` evaluated: **${microWorst.usPerCall.toFixed(2)} µs per call**; ` +
  `100 rules on other tools: **${microElsewhere.usPerCall.toFixed(2)} µs per call**. Parsing and compiling the 100-rule file: ${parseMs.toFixed(1)} ms.`;
// Printed at once: the end-to-end part may be cut short on a busy machine.
process.stderr.write(`${microLine}\n`);

const dir = mkdtempSync(join(tmpdir(), 'bench-policy-'));
writeFileSync(join(dir, 'policy.json'), JSON.stringify(worstCase));
const children: Child[] = [];
const upstreams = [
  writeUpstreamsFile({ everything: { command: NODE, args: [SERVER_EVERYTHING, 'stdio'], maxConcurrent: 64 } }),
  writeUpstreamsFile({ everything: { command: NODE, args: [SERVER_EVERYTHING, 'stdio'], maxConcurrent: 64 } }),
];

async function startSuite(upstreamsPath: string, policy: string | undefined): Promise<{ base: string; adminKey: string; child: Child }> {
  const port = await freePort();
  const adminKey = `bench-${randomBytes(8).toString('hex')}`;
  const child = spawnNode('cli/suite.ts', ['run', 'all'], {
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
  return { base: `http://127.0.0.1:${port}`, adminKey, child };
}

async function ready(s: { base: string; adminKey: string; child: Child }): Promise<Client> {
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
  const [withRules, without] = await Promise.all([startSuite(upstreams[0]!.path, join(dir, 'policy.json')), startSuite(upstreams[1]!.path, undefined)]);
  const [a, b] = await Promise.all([ready(withRules), ready(without)]);
  process.stderr.write('both suites ready\n');
  const args = { message: 'a short message, as a tool call carries' };
  const timed = async (client: Client, into: number[], n: number) => {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const r = await client.callTool({ name: 'everything__echo', arguments: args });
      into.push(performance.now() - t);
      if (r.isError) throw new Error(`call failed: ${JSON.stringify(r.content)}`);
    }
  };
  await timed(a, [], 200);
  await timed(b, [], 200);
  const msRules: number[] = [];
  const msNone: number[] = [];
  for (let done = 0; done < CALLS; done += BLOCK) {
    // Alternate which goes first, so neither always follows the other.
    process.stderr.write(`${done}/${CALLS}\n`);
    if ((done / BLOCK) % 2 === 0) {
      await timed(a, msRules, BLOCK);
      await timed(b, msNone, BLOCK);
    } else {
      await timed(b, msNone, BLOCK);
      await timed(a, msRules, BLOCK);
    }
  }
  await Promise.allSettled([a.close(), b.close()]);
  const r = summarize(msRules);
  const n = summarize(msNone);
  const f = (x: number) => x.toFixed(2);
  process.stdout.write(
    [
      machineMarkdown(machine),
      '',
      microLine,
      '',
      `Gateway calls of \`echo\`, ${CALLS} each, alternating in blocks of ${BLOCK} between two suites:`,
      '',
      '| gateway | p50 ms | p90 ms | p99 ms |',
      '|---|---|---|---|',
      `| with the 100-rule policy file | ${f(r.p50)} | ${f(r.p90)} | ${f(r.p99)} |`,
      `| without a policy file | ${f(n.p50)} | ${f(n.p90)} | ${f(n.p99)} |`,
      `| **added by the policy** | **${f(r.p50 - n.p50)}** | ${f(r.p90 - n.p90)} | ${f(r.p99 - n.p99)} |`,
      '',
    ].join('\n'),
  );
} finally {
  await Promise.allSettled(children.map((c) => c.stop()));
  for (const u of upstreams) u.cleanup();
  rmSync(dir, { recursive: true, force: true });
}
