import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { axeViolations, describeViolations } from '../testing/axe.ts';
import { startDashboardBrowser, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { NODE, SERVER_EVERYTHING, writeUpstreamsFile } from '../testing/mcp-upstreams.ts';
import { connectMcp, traceOf, waitForUpstreams } from '../testing/mcp-gateway.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The MCP gateway's view (issue 27, item 5) in a real browser against a real suite with
 * server-everything from npm behind its gateway: the upstream and its state, calls per upstream and
 * tool made through `/mcp`, each latest call linked to the signed record that traces it.
 */
let d: DashboardBrowser;
let file: ReturnType<typeof writeUpstreamsFile>;
const traces: string[] = [];

beforeAll(async () => {
  file = writeUpstreamsFile({ everything: { command: NODE, args: [SERVER_EVERYTHING, 'stdio'] } });
  d = await startDashboardBrowser({ SUITE_MCP_UPSTREAMS: file.path });
  await waitForUpstreams(d.t);
  const client = await connectMcp(d.t, (await d.t.mint(['mcp:everything:*', 'mcp:everything:prompt:*'], { sub: 'gateway-agent' })).token);
  for (const args of [{ message: 'one' }, { message: 'two' }, { message: 3 }]) {
    traces.push(String(traceOf((await client.callTool({ name: 'everything__echo', arguments: args })) as CallToolResult).id));
  }
  traces.push(String(traceOf(await client.getPrompt({ name: 'everything__simple-prompt' })).id));
  await client.close();
}, machineTimeout(120_000));
afterAll(async () => {
  await d?.stop();
  file?.cleanup();
});

describe('the MCP gateway view in a browser', () => {
  test("shows each upstream's state and its calls per tool, the latest call linked to its signed record", { timeout: machineTimeout(120_000) }, async () => {
    const { token } = await d.t.mint(['gateway:read', 'execution:read'], { sub: 'gateway-operator' });
    const page = await d.open(token, '#/gateway');
    page.setDefaultTimeout(machineTimeout(15_000));
    await page.waitForSelector('[data-testid="upstreams"] tr[data-upstream="everything"][data-state="ready"]');
    expect(await page.textContent('tr[data-upstream="everything"]')).toMatch(/stdio\s*ready/);
    const echo = page.locator('tr[data-call="everything/echo"] td');
    await echo.first().waitFor();
    // Two answered, one the upstream refused (a number where it takes a string): a failure, traced too.
    expect(await echo.allTextContents()).toEqual(expect.arrayContaining(['2', '1']));
    expect(await page.textContent('tr[data-call="everything/prompts/get simple-prompt"]')).toContain('1');
    // Newest first, each with its trace's id. evaluateAll does not wait: the list is a read of its
    // own, so wait until it holds every call made (on a busy machine it can land after the tallies).
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="gateway-recent"] tbody tr').length >= n, traces.length);
    const recent = await page.locator('[data-testid="gateway-recent"] tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-trace')));
    expect(recent).toEqual([...traces].reverse());
    const violations = await axeViolations(page, '#/gateway');
    expect(violations, describeViolations(violations)).toEqual([]);
    await d.shot(page, 'gateway');

    await page.click(`[data-testid="gateway-recent"] a[href$="${traces[2]}"]`);
    await page.waitForURL(new RegExp(`#/records/${traces[2]}$`));
    // The heading names the record before its body is read: wait for the body's own text.
    await page.waitForSelector(`main :text("${traces[2]}")`);
    await page.waitForSelector('main :text("mcp:everything")');
    expect(await page.textContent('main')).toContain('mcp:everything');
  });

  test('tells a token without gateway:read that it may not read the gateway', { timeout: machineTimeout(60_000) }, async () => {
    const { token } = await d.t.mint(['execution:read']);
    const page = await d.open(token, '#/gateway');
    page.setDefaultTimeout(machineTimeout(15_000));
    await page.waitForSelector('main :text("Not permitted")');
    expect(await page.textContent('main')).toContain('gateway:read');
  });
});
