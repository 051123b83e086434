import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { APPROVAL_META_KEY } from '../services/mcp-gateway/index.ts';
import { argsDigest } from '../core/gateway-policy/index.ts';
import { loadConfig } from '../services/index.ts';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { call, createTenant } from '../testing/tenancy.ts';
import { NODE, SERVER_EVERYTHING, writeUpstreamsFile } from '../testing/mcp-upstreams.ts';
import { connectMcp, textOf, traceOf, waitForUpstreams } from '../testing/mcp-gateway.ts';
import { executionExportLine, type ExecutionRecord } from '../core/chain/index.ts';
import { runDocumentedScript } from '../testing/trace-format.ts';
import { verifyReceipt, type ExecutionReceipt } from '../client/src/verify.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * Approvals, call-time rules and budgets (issue 33) through the real gateway in front of
 * server-everything, driven by the SDK's client; the suite's data in a folder so that a restart
 * keeps the approvals and the budget counters.
 */

const POLICY = {
  rules: [
    { name: 'pay', server: 'everything', tool: 'echo', when: 'args.message.startsWith("pay")', effect: 'approve', approvers: 'bank:approve', ttl: '15m' },
    {
      name: 'no-secrets',
      server: 'everything',
      tool: 'echo',
      when: 'args.message.contains("secret")',
      effect: 'deny',
      reason: 'echoing secrets is not allowed',
    },
    { name: 'brief', server: 'everything', tool: 'echo', when: 'args.message.startsWith("brief")', effect: 'approve', approvers: 'bank:approve', ttl: '1s' },
    { name: 'sums', server: 'everything', tool: 'get-sum', budget: { calls: 3, per: '1h' } },
  ],
};

let dir: string;
let upstreams: ReturnType<typeof writeUpstreamsFile>;
let env: Record<string, string>;
let t: TestSuite;

const start = async () => {
  t = await startTestSuite(env);
  await waitForUpstreams(t);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-approvals-'));
  upstreams = writeUpstreamsFile({ everything: { command: NODE, args: [SERVER_EVERYTHING, 'stdio'] } });
  writeFileSync(join(dir, 'policy.json'), JSON.stringify(POLICY));
  env = { SUITE_MCP_UPSTREAMS: upstreams.path, SUITE_MCP_POLICY: join(dir, 'policy.json'), SUITE_DB_PATH: join(dir, 'db') };
  await start();
}, machineTimeout(120_000));

afterAll(async () => {
  await t?.stop();
  upstreams?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const agent = async (sub: string, scope = ['mcp:everything:*']) => connectMcp(t, (await t.mint(scope, { sub })).token);
const echo = async (client: Awaited<ReturnType<typeof agent>>, message: string) =>
  (await client.callTool({ name: 'everything__echo', arguments: { message } })) as CallToolResult;
const approvalOf = (r: CallToolResult) =>
  (r._meta as Record<string, { id: string; status: string; argsDigest: string; expiresAt: string }>)[APPROVAL_META_KEY] as {
    id: string;
    status: string;
    argsDigest: string;
    expiresAt: string;
  };
/** How many calls the gateway forwarded to the upstream's echo (its ledger: forwarded calls only). */
const forwardedEchoes = async () => {
  const body = (await call(t, '/mcp/calls', { admin: true })).body as { calls: Array<{ name: string; success: number; failure: number }> };
  return body.calls.filter((c) => c.name.endsWith('echo')).reduce((n, c) => n + c.success + c.failure, 0);
};
const decide = async (id: string, decision: 'approve' | 'deny', token: string, reason?: string) =>
  call(t, `/approvals/${id}/${decision}`, { token, body: reason === undefined ? {} : { reason } });

describe('held calls', () => {
  it('holds a call an approve rule matches, without forwarding it, and the same call again is the same request', async () => {
    const client = await agent('agent-held');
    const before = await forwardedEchoes();
    const first = await echo(client, 'pay bob 100');
    expect(first.isError).toBe(true);
    expect(textOf(first)).toMatch(/awaits a person's approval under rule 0 \("pay"\).*\/approvals/);
    const a = approvalOf(first);
    expect(a).toMatchObject({ status: 'pending', argsDigest: argsDigest({ message: 'pay bob 100' }) });
    expect(Date.parse(a.expiresAt)).toBeGreaterThan(Date.now());
    const again = await echo(client, 'pay bob 100');
    expect(approvalOf(again).id).toBe(a.id);
    expect(await forwardedEchoes()).toBe(before);
    // What would run, as a reader sees it.
    const reader = (await t.mint(['approval:read'], { sub: 'auditor' })).token;
    const listed = await call(t, `/approvals?caller=agent-held&status=pending`, { token: reader });
    expect(listed.status).toBe(200);
    expect(listed.body.approvals).toEqual([
      expect.objectContaining({ id: a.id, server: 'everything', tool: 'echo', args: { message: 'pay bob 100' }, callerSub: 'agent-held' }),
    ]);
    await client.close();
  });

  it('runs the approved call exactly once, naming the approval on its record; the second run is held anew; changed arguments are a new request', async () => {
    const client = await agent('agent-run');
    const held = approvalOf(await echo(client, 'pay carol 5'));
    const approver = (await t.mint(['bank:approve'], { sub: 'alice' })).token;
    const decided = await decide(held.id, 'approve', approver, 'carol is expected');
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ status: 'approved', decidedBy: 'alice', decisionReason: 'carol is expected' });
    expect(decided.body.decisionTrace).toEqual(expect.any(String));
    // Decided once.
    expect((await decide(held.id, 'deny', approver)).status).toBe(409);

    const changed = await echo(client, 'pay carol 6');
    expect(changed.isError).toBe(true);
    expect(approvalOf(changed).id).not.toBe(held.id);

    const before = await forwardedEchoes();
    const ran = await echo(client, 'pay carol 5');
    expect(ran.isError).not.toBe(true);
    expect(textOf(ran)).toContain('pay carol 5');
    const record = traceOf(ran) as unknown as { governance: { decision: string; evidence: string[]; policyVersion: string } };
    expect(record.governance).toMatchObject({ decision: 'approved' });
    expect(record.governance.evidence).toEqual(
      expect.arrayContaining([`approval:${held.id}`, 'approver:alice', `approvalRecord:${decided.body.decisionTrace}`]),
    );
    expect(await forwardedEchoes()).toBe(before + 1);

    const second = await echo(client, 'pay carol 5');
    expect(second.isError).toBe(true);
    expect(approvalOf(second)).toMatchObject({ status: 'pending' });
    expect(approvalOf(second).id).not.toBe(held.id);
    expect(await forwardedEchoes()).toBe(before + 1);
    await client.close();
  });

  it('runs one of two identical calls racing on one approval', async () => {
    const [a, b] = [await agent('agent-race'), await agent('agent-race')];
    const held = approvalOf(await echo(a, 'pay race 1'));
    expect((await decide(held.id, 'approve', (await t.mint(['bank:approve'], { sub: 'alice' })).token)).status).toBe(200);
    const before = await forwardedEchoes();
    const results = await Promise.all([echo(a, 'pay race 1'), echo(b, 'pay race 1')]);
    expect(results.filter((r) => r.isError !== true)).toHaveLength(1);
    expect(await forwardedEchoes()).toBe(before + 1);
    await Promise.all([a.close(), b.close()]);
  });

  it('never lets a caller approve its own call', async () => {
    const client = await agent('agent-self', ['mcp:everything:*', 'approval:decide']);
    const held = approvalOf(await echo(client, 'pay myself'));
    const own = (await t.mint(['approval:decide'], { sub: 'agent-self' })).token;
    const refused = await decide(held.id, 'approve', own);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/its own call/);
    // Nor may a person without approval:decide or the rule's approvers.
    const outsider = (await t.mint(['approval:read'], { sub: 'bystander' })).token;
    expect((await decide(held.id, 'approve', outsider)).status).toBe(403);
    expect((await echo(client, 'pay myself')).isError).toBe(true);
    await client.close();
  });

  it("shows and lets decide a tenant's approver its own tenant's requests only", async () => {
    const client = await agent('agent-untenanted');
    const held = approvalOf(await echo(client, 'pay someone else'));
    const tenant = await createTenant(t);
    const tenantToken = (
      await call(t, '/auth/token', { admin: true, tenantKey: tenant.apiKey, body: { sub: 'tenant-approver', scope: ['approval:read', 'approval:decide'] } })
    ).body.token as string;
    const seen = await call(t, '/approvals?caller=agent-untenanted', { token: tenantToken });
    expect(seen.status).toBe(200);
    expect(seen.body.approvals).toEqual([]);
    expect((await decide(held.id, 'approve', tenantToken)).status).toBe(404);
    await client.close();
  });

  it('keeps a denied call denied', async () => {
    const client = await agent('agent-denied');
    const held = approvalOf(await echo(client, 'pay mallory 1'));
    const approver = (await t.mint(['approval:decide'], { sub: 'bob' })).token;
    expect((await decide(held.id, 'deny', approver, 'mallory is not a payee')).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const r = await echo(client, 'pay mallory 1');
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/denied by bob; it stays denied/);
    }
    await client.close();
  });

  it('refuses to decide an expired request, and holds the call anew', async () => {
    const client = await agent('agent-late');
    const held = approvalOf(await echo(client, 'brief pause'));
    const reader = (await t.mint(['approval:read'], { sub: 'auditor' })).token;
    // The rule's ttl is one second: wait for the desk itself to say it expired.
    const deadline = Date.now() + machineTimeout(10_000);
    while ((await call(t, `/approvals?caller=agent-late&status=expired`, { token: reader })).body.approvals.length === 0) {
      if (Date.now() > deadline) throw new Error('never expired');
      await new Promise((r) => setTimeout(r, 100));
    }
    const approver = (await t.mint(['approval:decide'], { sub: 'bob' })).token;
    const late = await decide(held.id, 'approve', approver);
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/expired/);
    const again = await echo(client, 'brief pause');
    expect(approvalOf(again).id).not.toBe(held.id);
    await client.close();
  });
});

describe('waiting for the decision', () => {
  /** Calls echo holding the call open (a progressToken, as the SDK sends with onprogress); `onFirst` runs at the first progress notification. */
  const waitingEcho = async (
    client: Awaited<ReturnType<typeof agent>>,
    message: string,
    onFirst: (note: { message?: string }) => Promise<unknown>,
    waitSeconds?: number,
  ) => {
    const notes: Array<{ progress: number; message?: string }> = [];
    let acted: Promise<unknown> | undefined;
    const result = (await client.callTool(
      { name: 'everything__echo', arguments: { message }, ...(waitSeconds !== undefined ? { _meta: { 'agent-authority-suite/wait': waitSeconds } } : {}) },
      undefined,
      {
        onprogress: (p) => {
          notes.push(p);
          acted ??= onFirst(p);
        },
        timeout: 120_000,
      },
    )) as CallToolResult;
    return { result, notes, acted: await acted };
  };

  it('holds the call open with progress notifications until a person approves, then runs it once and answers its result', async () => {
    const client = await agent('agent-waits');
    const approver = (await t.mint(['bank:approve'], { sub: 'alice' })).token;
    const reader = (await t.mint(['approval:read'], { sub: 'auditor' })).token;
    const before = await forwardedEchoes();
    const { result, notes, acted } = await waitingEcho(client, 'pay erin 3', async (note) => {
      // The person reads what would run, then approves it while the agent waits.
      const pending = (await call(t, '/approvals?caller=agent-waits&status=pending', { token: reader })).body.approvals as Array<{ id: string }>;
      expect(note.message).toContain(pending[0]?.id);
      return decide(pending[0]?.id as string, 'approve', approver, 'expected');
    });
    expect((acted as { status: number }).status).toBe(200);
    expect(notes.length).toBeGreaterThanOrEqual(1);
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain('pay erin 3');
    expect((traceOf(result) as unknown as { governance: { evidence: string[] } }).governance.evidence).toEqual(expect.arrayContaining(['approver:alice']));
    expect(await forwardedEchoes()).toBe(before + 1);
    // Run once: the same call again is held anew.
    expect(approvalOf(await echo(client, 'pay erin 3'))).toMatchObject({ status: 'pending' });
    await client.close();
  });

  it('answers the refusal when a person denies the call it waits on', async () => {
    const client = await agent('agent-waits-denied');
    const approver = (await t.mint(['approval:decide'], { sub: 'bob' })).token;
    const before = await forwardedEchoes();
    const { result } = await waitingEcho(client, 'pay frank 9', async (note) => {
      const id = /request (apr_[0-9a-f]{32})/.exec(note.message ?? '')?.[1] as string;
      return decide(id, 'deny', approver, 'frank is unknown');
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/denied by bob; it stays denied/);
    expect(await forwardedEchoes()).toBe(before);
    await client.close();
  });

  it('ends a bounded wait nobody decided with the call still held', async () => {
    const client = await agent('agent-waits-alone');
    const { result, notes } = await waitingEcho(client, 'pay grace 2', async () => undefined, 1);
    expect(notes.length).toBeGreaterThanOrEqual(1);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/no one decided it while this call waited/);
    expect(approvalOf(result)).toMatchObject({ status: 'pending' });
    await client.close();
  });
});

describe("conditions on a token's scope", () => {
  const sum = async (client: Awaited<ReturnType<typeof agent>>, a: number) =>
    (await client.callTool({ name: 'everything__get-sum', arguments: { a, b: 1 } })) as CallToolResult;

  it('lets a token call a tool only while the condition bound to its scope holds for the arguments, saying why on the refusal and the audit trail', async () => {
    const minted = await call(t, '/auth/token', {
      admin: true,
      body: { sub: 'agent-bound', scope: ['mcp:everything:*'], conditions: { 'mcp:everything:get-sum': 'args.a < 10' } },
    });
    expect(minted.status).toBe(200);
    const client = await connectMcp(t, minted.body.token as string);
    expect((await sum(client, 9)).isError).not.toBe(true);
    const refused = await sum(client, 10);
    expect(refused.isError).toBe(true);
    const text = "refused by your token's condition on mcp:everything:get-sum (args.a < 10): it does not hold for this call; nothing was done";
    expect(textOf(refused)).toBe(text);
    // Other tools of the same token are not bound.
    expect((await echo(client, 'hello')).isError).not.toBe(true);
    const audit = await call(t, '/audit?subject=agent-bound&result=deny&limit=10', { admin: true });
    expect(JSON.stringify(audit.body)).toContain(text.slice(0, 60));
    await client.close();
  });

  it('refuses a condition that is not CEL or not on a gateway scope, and a bound token handing on an unbound one', async () => {
    const bad = await call(t, '/auth/token', {
      admin: true,
      body: { sub: 'x', scope: ['mcp:everything:*'], conditions: { 'mcp:everything:get-sum': 'args.a <' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/not valid CEL/);
    expect((await call(t, '/auth/token', { admin: true, body: { sub: 'x', scope: ['audit:read'], conditions: { 'audit:read': 'true' } } })).status).toBe(400);
    const parent = await call(t, '/auth/token', {
      admin: true,
      body: { sub: 'minter', scope: ['mcp:everything:*', 'auth:token:create'], conditions: { 'mcp:everything:get-sum': 'args.a < 10' } },
    });
    const child = await call(t, '/auth/token', { token: parent.body.token, body: { sub: 'child', scope: ['mcp:everything:get-sum'] } });
    expect(child.status).toBe(403);
    expect(child.body.error.message).toMatch(/condition on "mcp:everything:get-sum"/);
    const carried = await call(t, '/auth/token', {
      token: parent.body.token,
      body: { sub: 'child', scope: ['mcp:everything:get-sum'], conditions: { 'mcp:everything:get-sum': 'args.a < 10' } },
    });
    expect(carried.status).toBe(200);
  });
});

describe('the approval on the chain', () => {
  it("signs the call's record and the approval's record so that openssl and suite verify accept both, and the call's receipt names the approver", async () => {
    const client = await agent('agent-chain');
    const held = approvalOf(await echo(client, 'pay heidi 4'));
    const decided = await decide(held.id, 'approve', (await t.mint(['bank:approve'], { sub: 'alice' })).token, 'heidi is a payee');
    const ran = await echo(client, 'pay heidi 4');
    expect(ran.isError).not.toBe(true);
    const callRecord = traceOf(ran);
    const records = (await t.mint(['execution:read'], { sub: 'auditor' })).token;
    const approvalRecord = (await call(t, `/executions/${decided.body.decisionTrace}`, { token: records })).body as ExecutionRecord;
    expect(approvalRecord).toMatchObject({ subject: 'alice', module: 'mcp:approvals', action: 'approve', outcome: 'success' });
    expect((callRecord as unknown as { governance: { evidence: string[] } }).governance.evidence).toEqual(
      expect.arrayContaining([`approval:${held.id}`, 'approver:alice', `approvalRecord:${approvalRecord.id}`]),
    );

    // openssl: each record's Ed25519 signature over its documented bytes (docs/TRACE-FORMAT.md's script).
    const key = (await (await fetch(t.url('token', '/executions/public-key'))).json()) as { publicKey: string };
    for (const record of [callRecord, approvalRecord]) {
      const shell = runDocumentedScript('verify-record', { 'record.line': executionExportLine(record), 'pub.pem': key.publicKey });
      expect(shell.stderr + shell.stdout).toContain('Signature Verified Successfully');
      expect(shell.status).toBe(0);
    }

    // suite verify: the whole exported chain, both records in it.
    const exported = await (await fetch(t.url('token', '/executions/export'), { headers: { authorization: `Bearer ${records}` } })).text();
    expect(exported).toContain(callRecord.hash);
    expect(exported).toContain(approvalRecord.hash);
    writeFileSync(join(dir, 'chain.trace'), exported);
    writeFileSync(join(dir, 'pub.pem'), key.publicKey);
    const repo = new URL('..', import.meta.url).pathname;
    const verified = await promisify(execFile)(process.execPath, ['cli/suite.ts', 'verify', join(dir, 'chain.trace'), '--public-key', join(dir, 'pub.pem')], {
      cwd: repo,
    });
    expect(verified.stdout).toMatch(/valid|verified|ok/i);

    // The call's receipt, verified offline, names the approver and the approval's record.
    const receipt = (await call(t, `/executions/${callRecord.id}/receipt`, { token: records })).body as ExecutionReceipt;
    const logVkey = (await (await fetch(t.url('token', '/executions/log/vkey'))).text()).trim();
    expect(verifyReceipt(receipt, { publicKeyPem: key.publicKey, logVkey })).toMatchObject({ ok: true });
    expect((receipt.record as unknown as { governance: { evidence: string[] } }).governance.evidence).toEqual(
      expect.arrayContaining(['approver:alice', `approvalRecord:${approvalRecord.id}`]),
    );
    await client.close();
  });
});

describe('rules on arguments and budgets', () => {
  it("refuses a call a deny rule's CEL condition matches on its arguments, naming the rule and its reason, and forwards the rest", async () => {
    const client = await agent('agent-args');
    const refused = await echo(client, 'my secret is 42');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('refused by rule 1 ("no-secrets") of the gateway\'s policy: echoing secrets is not allowed');
    const ok = await echo(client, 'hello');
    expect(ok.isError).not.toBe(true);
    const audit = await call(t, '/audit?limit=50', { admin: true });
    expect(JSON.stringify(audit.body)).toContain('no-secrets');
    await client.close();
  });

  it('refuses the fourth call over a budget of three, naming it; another caller is unaffected; the count survives a restart; an approval under a changed policy is held anew', {
    timeout: machineTimeout(120_000),
  }, async () => {
    const sum = async (client: Awaited<ReturnType<typeof agent>>) =>
      (await client.callTool({ name: 'everything__get-sum', arguments: { a: 1, b: 2 } })) as CallToolResult;
    let client = await agent('agent-budget');
    for (let i = 0; i < 3; i++) expect((await sum(client)).isError).not.toBe(true);
    const held = approvalOf(await echo(client, 'pay dave 7'));
    expect((await decide(held.id, 'approve', (await t.mint(['bank:approve'], { sub: 'alice' })).token)).status).toBe(200);
    await client.close();
    await t.stop();
    // The same rules, other bytes: another policy version (the budget rule itself is unchanged).
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(POLICY, null, 2));
    await start();
    const afterChange = await echo(await agent('agent-budget'), 'pay dave 7');
    expect(afterChange.isError).toBe(true);
    expect(approvalOf(afterChange)).toMatchObject({ status: 'pending' });
    expect(approvalOf(afterChange).id).not.toBe(held.id);
    client = await agent('agent-budget');
    const fourth = await sum(client);
    expect(fourth.isError).toBe(true);
    expect(textOf(fourth)).toMatch(/refused by rule 3 \("sums"\).*budget of 3 calls/);
    const other = await agent('agent-other');
    expect((await sum(other)).isError).not.toBe(true);
    await Promise.all([client.close(), other.close()]);
  });
});

describe('reloading the policy without a restart', () => {
  const policyOf = async () => call(t, '/mcp/policy', { token: (await t.mint(['approval:read'], { sub: 'auditor' })).token });
  const reload = async () => call(t, '/mcp/policy/reload', { admin: true, body: {} });
  const versionOn = (r: CallToolResult) => ((r._meta as Record<string, { version: string }>)['agent-authority-suite/policy'] as { version: string }).version;

  it('shows the rules in force with their hit counts, exactly in the documented shape', async () => {
    const text = readFileSync(join(dir, 'policy.json'), 'utf8');
    const before = await policyOf();
    expect(before.status).toBe(200);
    expect(Object.keys(before.body).sort()).toEqual(['loadedAt', 'rules', 'version']);
    expect(before.body.version).toBe(createHash('sha256').update(text).digest('hex'));
    expect(before.body.rules.map((r: Record<string, unknown>) => ({ ...r, hits: 0 }))).toEqual([
      { index: 0, server: 'everything', tool: 'echo', effect: 'approve', when: POLICY.rules[0]?.when, hits: 0 },
      { index: 1, server: 'everything', tool: 'echo', effect: 'deny', when: POLICY.rules[1]?.when, reason: 'echoing secrets is not allowed', hits: 0 },
      { index: 2, server: 'everything', tool: 'echo', effect: 'approve', when: POLICY.rules[2]?.when, hits: 0 },
      { index: 3, server: 'everything', tool: 'get-sum', effect: 'budget', hits: 0 },
    ]);
    const client = await agent('agent-hits');
    const evaluated = async () => {
      const text = await (await fetch(t.url('token', '/metrics'))).text();
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      return { calls: value('mcp_policy_evaluations_total'), seconds: value('mcp_policy_evaluation_seconds_total') };
    };
    const evaluatedBefore = await evaluated();
    await echo(client, 'another secret');
    const after = await policyOf();
    expect(after.body.rules[1].hits).toBe(before.body.rules[1].hits + 1);
    expect(after.body.rules[0].hits).toBe(before.body.rules[0].hits);
    // What evaluating the rules cost the call, on /metrics: one more call, some more time.
    const evaluatedAfter = await evaluated();
    expect(evaluatedAfter.calls).toBe(evaluatedBefore.calls + 1);
    expect(evaluatedAfter.seconds).toBeGreaterThan(evaluatedBefore.seconds);
    // Reading needs approval:read (or the admin key); reloading the admin key.
    expect((await call(t, '/mcp/policy', { token: (await t.mint(['mcp:everything:*'], { sub: 'nosy' })).token })).status).toBe(403);
    expect((await call(t, '/mcp/policy/reload', { token: (await t.mint(['approval:decide'], { sub: 'nosy' })).token, body: {} })).status).toBe(403);
    await client.close();
  });

  it('refuses a bad new file naming the rule and keeps the old policy; a good one on SIGHUP changes the version on every decision; a request reloads it back', async () => {
    const path = join(dir, 'policy.json');
    const original = readFileSync(path, 'utf8');
    const old = (await policyOf()).body.version as string;
    const client = await agent('agent-reload');

    writeFileSync(
      path,
      JSON.stringify({
        rules: [POLICY.rules[0], { name: 'broken', server: 'everything', tool: 'echo', when: 'args.message ==', effect: 'deny', reason: 'x' }],
      }),
    );
    const refused = await reload();
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/rule 1 \("broken"\): when is not valid CEL.*version [0-9a-f]{64}\) stays/);
    expect((await policyOf()).body.version).toBe(old);
    const stillOld = await echo(client, 'the secret');
    expect(textOf(stillOld)).toMatch(/rule 1 \("no-secrets"\)/);
    expect(versionOn(stillOld)).toBe(old);

    const stricter = {
      rules: [
        { name: 'quiet', server: 'everything', tool: 'echo', when: 'args.message.startsWith("hello")', effect: 'deny', reason: 'say something new' },
        ...POLICY.rules,
      ],
    };
    writeFileSync(path, JSON.stringify(stricter));
    process.kill(process.pid, 'SIGHUP');
    const deadline = Date.now() + machineTimeout(10_000);
    let now = (await policyOf()).body;
    while (now.version === old) {
      if (Date.now() > deadline) throw new Error('SIGHUP did not reload the policy');
      await new Promise((r) => setTimeout(r, 50));
      now = (await policyOf()).body;
    }
    expect(now.version).toBe(createHash('sha256').update(JSON.stringify(stricter)).digest('hex'));
    expect(now.rules).toHaveLength(5);
    expect(now.rules.every((r: { hits: number }) => r.hits === 0)).toBe(true);
    const underNew = await echo(client, 'hello there');
    expect(textOf(underNew)).toBe('refused by rule 0 ("quiet") of the gateway\'s policy: say something new');
    expect(versionOn(underNew)).toBe(now.version);
    expect(versionOn(await echo(client, 'the secret'))).toBe(now.version);

    writeFileSync(path, original);
    const back = await reload();
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ version: old, previous: now.version });
    expect((await echo(client, 'hello there')).isError).not.toBe(true);
    await client.close();
  });
});

describe('the policy file at start', () => {
  it('refuses a bad rule file, naming the rule', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        rules: [POLICY.rules[0], { name: 'broken', server: 'everything', tool: 'echo', when: 'args.message ==', effect: 'deny', reason: 'x' }],
      }),
    );
    expect(() => loadConfig({ SUITE_MCP_POLICY: bad })).toThrow(/SUITE_MCP_POLICY: rule 1 \("broken"\): when is not valid CEL/);
  });
});
