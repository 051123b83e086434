import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import type { Page } from 'playwright-core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { APPROVAL_META_KEY } from '../services/mcp-gateway/index.ts';
import { argsDigest } from '../core/gateway-policy/index.ts';
import { axeViolations, describeViolations } from '../testing/axe.ts';
import { startDashboardBrowser, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { NODE, SERVER_EVERYTHING, writeUpstreamsFile } from '../testing/mcp-upstreams.ts';
import { connectMcp, textOf, traceOf, waitForUpstreams } from '../testing/mcp-gateway.ts';
import { call } from '../testing/tenancy.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The approvals inbox (issue 33, item 6) against a real suite with server-everything behind its
 * gateway under a policy file: a call held through the real gateway reaches the dashboard's socket
 * and appears in the page without a reload, is approved from the page, and the same call then runs;
 * the history links the decision's record and the call's. A deny from the page stays denied; a rule's
 * refusal is shown with its rule and reason.
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
  ],
};

let d: DashboardBrowser;
let dir: string;
let upstreams: ReturnType<typeof writeUpstreamsFile>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dashboard-approvals-'));
  writeFileSync(join(dir, 'policy.json'), JSON.stringify(POLICY));
  upstreams = writeUpstreamsFile({ everything: { command: NODE, args: [SERVER_EVERYTHING, 'stdio'] } });
  d = await startDashboardBrowser({ SUITE_MCP_UPSTREAMS: upstreams.path, SUITE_MCP_POLICY: join(dir, 'policy.json') });
  await waitForUpstreams(d.t);
}, machineTimeout(120_000));
afterAll(async () => {
  await d?.stop();
  upstreams?.cleanup();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const agent = async (sub: string) => connectMcp(d.t, (await d.t.mint(['mcp:everything:*'], { sub })).token);
const echo = async (client: Awaited<ReturnType<typeof agent>>, message: string) =>
  (await client.callTool({ name: 'everything__echo', arguments: { message } })) as CallToolResult;
const approvalOf = (r: CallToolResult) => (r._meta as Record<string, { id: string; status: string }>)[APPROVAL_META_KEY] as { id: string; status: string };
const listed = async (id: string) => {
  const r = await call(d.t, '/approvals?limit=500', { admin: true });
  return (r.body as { approvals: Array<Record<string, unknown>> }).approvals.find((a) => a.id === id) as Record<string, unknown>;
};

interface Socket {
  ws: WebSocket;
  messages: Array<Record<string, unknown>>;
}
function openSocket(token: string): Promise<Socket> {
  const ws = new WebSocket(d.t.url('dashboard', '/live').replace('http', 'ws'), ['suite.live.v1', `bearer.${token}`]);
  const messages: Array<Record<string, unknown>> = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, messages }));
    ws.once('error', reject);
  });
}
async function until<T>(find: () => T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = find();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A page signed in with the token whose socket frames are kept (the listener is set before the socket opens). */
async function openInbox(token: string): Promise<{ page: Page; frames: string[]; policyAnswered: Promise<unknown> }> {
  const page = await d.browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(machineTimeout(20_000));
  const frames: string[] = [];
  page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
  const policyAnswered = page.waitForResponse((r) => r.url().endsWith('/api/token/mcp/policy'));
  await page.goto(d.t.url('dashboard', '/#/approvals'));
  await page.fill('#token', token);
  await page.press('#token', 'Enter');
  await page.waitForSelector('[data-testid="connection"]:text("live: open")');
  return { page, frames, policyAnswered };
}

describe('the approvals on the dashboard socket', () => {
  test("a held call, its decision and its run reach a token that reads approvals, and not one that does not; the run's record is linked", {
    timeout: machineTimeout(60_000),
  }, async () => {
    const watcher = await openSocket((await d.t.mint(['approval:read'], { sub: 'socket-watcher' })).token);
    const narrow = await openSocket((await d.t.mint(['execution:read'], { sub: 'socket-narrow' })).token);
    const client = await agent('socket-agent');
    const held = approvalOf(await echo(client, 'pay socket 1'));
    const events = (id: string) => watcher.messages.filter((m) => m.kind === 'approval.changed' && m.id === id);
    expect(await until(() => events(held.id)[0])).toEqual({
      kind: 'approval.changed',
      what: 'held',
      id: held.id,
      status: 'pending',
      server: 'everything',
      tool: 'echo',
    });
    // The same call again is the same request: no second `held`.
    expect(approvalOf(await echo(client, 'pay socket 1')).id).toBe(held.id);

    const approver = (await d.t.mint(['bank:approve'], { sub: 'socket-approver' })).token;
    expect((await call(d.t, `/approvals/${held.id}/approve`, { token: approver, body: {} })).status).toBe(200);
    await until(() => events(held.id).find((m) => m.what === 'decided'));
    // Announced once signed: a reader woken by it already finds the decision's record.
    expect((await listed(held.id)).decisionTrace).toEqual(expect.stringMatching(/^exec_/));
    const ran = await echo(client, 'pay socket 1');
    expect(ran.isError).not.toBe(true);
    expect(await until(() => events(held.id).find((m) => m.what === 'ran'))).toMatchObject({ status: 'used' });
    expect(events(held.id).map((m) => m.what)).toEqual(['held', 'decided', 'ran']);
    expect(await listed(held.id)).toMatchObject({ status: 'used', callTrace: String(traceOf(ran).id) });

    // Anything the hub sent the narrow socket before this trace is there once the trace is.
    const after = traceOf(await echo(client, 'plain, allowed')).id;
    await until(() => narrow.messages.find((m) => m.kind === 'trace.appended' && m.id === after));
    expect(narrow.messages.some((m) => m.kind === 'approval.changed')).toBe(false);
    await client.close();
    watcher.ws.close();
    narrow.ws.close();
  });
});

describe('the approvals inbox in a browser', () => {
  test('a call held through the gateway appears without a reload as it would run, is approved from the page, then runs once, its records linked', {
    timeout: machineTimeout(120_000),
  }, async () => {
    const approver = (await d.t.mint(['approval:read', 'bank:approve', 'audit:read', 'execution:read'], { sub: 'approver-ann' })).token;
    const { page, frames } = await openInbox(approver);
    await page.waitForSelector('[data-testid="approval-inbox"]');
    const client = await agent('agent-dash');
    // A refusal by a rule first: the inbox's next read shows it with its rule and reason.
    const refused = await echo(client, 'tell the secret');
    expect(textOf(refused)).toContain('echoing secrets is not allowed');

    const loadedAt = Date.now();
    const held = approvalOf(await echo(client, 'pay dana 7'));
    const card = page.locator(`article[data-approval="${held.id}"]`);
    await card.waitFor();
    // Live: the socket carried it, and it came before the page's periodic reload (15 s) could have.
    expect(frames.some((f) => f.includes('"approval.changed"') && f.includes(held.id))).toBe(true);
    expect(Date.now() - loadedAt).toBeLessThan(15_000);

    const stored = await listed(held.id);
    expect(JSON.parse((await card.locator('[data-field="args"]').textContent()) ?? '')).toEqual({ message: 'pay dana 7' });
    expect(await card.locator('[data-field="digest"]').textContent()).toBe(argsDigest({ message: 'pay dana 7' }));
    expect(await card.locator('[data-field="policy-version"]').textContent()).toBe(stored.policyVersion);
    expect(await card.locator('[data-field="caller"]').textContent()).toBe('agent-dash');
    expect(await card.textContent()).toContain('rule 0 ("pay")');
    expect(await card.locator('[data-field="expires"] [data-datetime]').getAttribute('data-datetime')).toBe(stored.expiresAt);
    await page.waitForSelector('[data-testid="policy-refusals"] td[data-field="reason"]:text("echoing secrets is not allowed")');
    expect(await page.textContent('[data-testid="policy-refusals"]')).toMatch(/rule 1 \("no-secrets"\)/);

    const violations = await axeViolations(page, '#/approvals');
    expect(violations, describeViolations(violations)).toEqual([]);
    await d.shot(page, 'approvals');

    await page.getByLabel('Reason (kept with the decision and on its record)').fill('dana is expected');
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.waitForSelector('[data-testid="decided"]:text("Approved everything / echo for agent-dash")');
    await card.waitFor({ state: 'detached' });
    const row = page.locator(`[data-testid="approval-history"] tr[data-approval="${held.id}"]`);
    await page.waitForSelector(`[data-testid="approval-history"] tr[data-approval="${held.id}"][data-status="approved"]`);
    expect(await row.textContent()).toContain('dana is expected');
    const decided = await listed(held.id);
    expect(decided).toMatchObject({ status: 'approved', decidedBy: 'approver-ann', decisionReason: 'dana is expected' });
    await row.locator(`[data-field="decision-record"] a[href$="${String(decided.decisionTrace)}"]`).waitFor();

    // The same call again runs, once; the row follows live, linking the call's record.
    const ran = await echo(client, 'pay dana 7');
    expect(ran.isError).not.toBe(true);
    expect(textOf(ran)).toContain('pay dana 7');
    const callTrace = String(traceOf(ran).id);
    await page.waitForSelector(`[data-testid="approval-history"] tr[data-approval="${held.id}"][data-status="used"]`);
    await row.locator(`[data-field="call-record"] a[href$="${callTrace}"]`).click();
    await page.waitForURL(new RegExp(`#/records/${callTrace}$`));
    await page.waitForSelector(`main :text("${callTrace}")`);
    // Its record names the approval (governance evidence).
    await page.waitForSelector(`main :text("approval:${held.id}")`);
    expect((await echo(client, 'pay dana 7')).isError).toBe(true);
    await client.close();
    await page.close();
  });

  test('a call denied from the page with a reason stays denied, its reason in the history', { timeout: machineTimeout(60_000) }, async () => {
    const approver = (await d.t.mint(['approval:read', 'approval:decide'], { sub: 'approver-bo' })).token;
    const { page } = await openInbox(approver);
    await page.waitForSelector('[data-testid="approval-inbox"]');
    const client = await agent('agent-deny');
    const held = approvalOf(await echo(client, 'pay mallory 1000'));
    const card = page.locator(`article[data-approval="${held.id}"]`);
    await card.getByLabel('Reason (kept with the decision and on its record)').fill('not a known payee');
    await card.getByRole('button', { name: 'Deny' }).click();
    await page.waitForSelector('[data-testid="decided"]:text("Denied everything / echo for agent-deny")');
    const row = page.locator(`[data-testid="approval-history"] tr[data-approval="${held.id}"][data-status="denied"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('not a known payee');
    const again = await echo(client, 'pay mallory 1000');
    expect(textOf(again)).toMatch(new RegExp(`approval ${held.id} .*was denied by approver-bo`));
    await client.close();
    await page.close();
  });

  test("shows the policy's rules with their hits only where the suite serves GET /mcp/policy", { timeout: machineTimeout(60_000) }, async () => {
    const token = (await d.t.mint(['approval:read'], { sub: 'rules-reader' })).token;
    const served = await call(d.t, '/mcp/policy', { token });
    const { page, policyAnswered } = await openInbox(token);
    await policyAnswered;
    await page.waitForSelector('[data-testid="approval-history"]');
    if (served.status === 200) {
      const policy = served.body as { version: string; rules: Array<{ index: number; hits: number }> };
      await page.waitForSelector('[data-testid="policy-rules"]');
      expect(await page.textContent('[data-testid="policy-version"]')).toBe(policy.version);
      for (const r of policy.rules) expect(await page.textContent(`tr[data-rule="${r.index}"] td.number`)).toBe(String(r.hits));
    } else {
      expect(served.status).toBe(404);
      // The route answered 404: the rules' section is absent, never empty or made up.
      expect(await page.locator('[data-testid="rules-title-section"]').count()).toBe(0);
    }
    await page.close();
  });
});
