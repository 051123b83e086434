import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { startDashboardBrowser, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The operations views in a real browser against a real suite (testing/dashboard-browser.ts):
 * tenants and their quota bars (`#/tenants`, `#/tenants/<id>`), schedules and the queue
 * (`#/scheduler`, `#/scheduler/tasks/<id>`), with data made through the API in each test.
 */
let d: DashboardBrowser;
let operator: string;
let scheduling: string;
let narrow: string;
let hook: Server;
let hookUrl: string;
const hookCalls: string[] = [];

async function call(
  service: 'token' | 'scheduler',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  method = 'POST',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(d.t.url(service, path), {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const admin = () => ({ 'x-suite-admin-key': d.t.adminKey });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function createTenant(name: string): Promise<{ id: string; apiKey: string }> {
  const made = await call('token', '/admin/tenants', admin(), { name, plan: 'free' });
  expect(made.status).toBe(201);
  return made.body as { id: string; apiKey: string };
}

function schedule(id: string) {
  return { id, cron: '0 2 * * *', task: { type: 'http', url: `${hookUrl}/schedule/${id}`, method: 'POST' } };
}

const figure = (page: Page, metric: string) => page.textContent(`li[data-metric="${metric}"] .quota-figure`);
const stateOf = (page: Page, metric: string) => page.getAttribute(`li[data-metric="${metric}"]`, 'data-state');

/** Nothing wider than the viewport: names the elements that stick out, if any. */
async function noSidewaysScroll(page: Page): Promise<void> {
  const wide = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return Array.from(document.querySelectorAll('body *'))
      .filter((e) => e.getBoundingClientRect().right > width + 1)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`)
      .slice(0, 5);
  });
  expect(wide).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
}

beforeAll(async () => {
  d = await startDashboardBrowser();
  hook = createServer((req, res) => {
    hookCalls.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}`;
  operator = (await d.t.mint(['tenant:manage'], { sub: 'operator' })).token;
  scheduling = (await d.t.mint(['schedule:read', 'schedule:create', 'queue:read', 'queue:write', 'runtime:read'], { sub: 'scheduler-person' })).token;
  narrow = (await d.t.mint(['execution:read'], { sub: 'narrow-person' })).token;
}, machineTimeout(60_000));

afterAll(async () => {
  await d?.stop();
  await new Promise((resolve) => hook?.close(resolve));
});

describe('tenants and usage', () => {
  test('the tenants list shows a tenant created through the API with its plan and status', async () => {
    const acme = await createTenant('Acme Robotics');
    const page = await d.open(operator, '#/tenants');
    const row = page.locator(`tr[data-tenant="${acme.id}"]`);
    await row.waitFor({ timeout: machineTimeout(10_000) });
    expect(await row.textContent()).toMatch(/Acme Robotics\s*Free\s*active\s*none/);
    await row.locator('a').click();
    await page.waitForSelector('[data-testid="tenant-report"]');
    expect(page.url()).toContain(`#/tenants/${acme.id}`);
    await page.close();
  });

  test("a tenant's quota bars move with its real use: tokens minted with its key, schedules to amber then red, unlimited on enterprise", async () => {
    const beta = await createTenant('Beta Labs');
    const page = await d.open(operator, `#/tenants/${beta.id}`);
    await expect.poll(() => figure(page, 'agents'), { timeout: machineTimeout(10_000) }).toBe('0 / 100 (0%)');
    // A metered call: a token minted for the tenant counts one agent.
    const minted = await call('token', '/auth/token', { ...admin(), 'x-suite-tenant-key': beta.apiKey }, { sub: 'beta-agent', scope: ['execution:read'] });
    expect(minted.status).toBe(200);
    await page.click('text=Refresh');
    await expect.poll(() => figure(page, 'agents')).toBe('1 / 100 (1%)');
    expect(await stateOf(page, 'agents')).toBe('ok');
    // Schedules created with the tenant's key count against its plan's 5.
    for (const n of [1, 2, 3, 4]) {
      expect((await call('scheduler', '/schedule', { ...bearer(scheduling), 'x-suite-tenant-key': beta.apiKey }, schedule(`beta-${n}`))).status).toBe(201);
    }
    await page.click('text=Refresh');
    await expect.poll(() => stateOf(page, 'schedules')).toBe('warn');
    expect(await figure(page, 'schedules')).toBe('4 / 5 (80%) · near the limit');
    expect((await call('scheduler', '/schedule', { ...bearer(scheduling), 'x-suite-tenant-key': beta.apiKey }, schedule('beta-5'))).status).toBe(201);
    await page.click('text=Refresh');
    await expect.poll(() => stateOf(page, 'schedules')).toBe('bad');
    expect(await figure(page, 'schedules')).toBe('5 / 5 (100%) · limit reached');
    await d.shot(page, 'tenants');
    await page.setViewportSize({ width: 390, height: 800 });
    await noSidewaysScroll(page);
    // On an unlimited plan the same use is shown as such, with no bar.
    expect((await call('token', `/admin/tenants/${beta.id}/plan`, admin(), { plan: 'enterprise' })).status).toBe(200);
    await page.click('text=Refresh');
    await expect.poll(() => stateOf(page, 'schedules')).toBe('unlimited');
    expect(await figure(page, 'schedules')).toBe('5 used · unlimited');
    await page.close();
  });

  test('a token without tenant:manage is not permitted; the admin key typed into the view reads the list without being stored; a tenant key reads its own usage', async () => {
    const gamma = await createTenant('Gamma Ops');
    const page = await d.open(narrow, '#/tenants');
    await page.waitForSelector('text=Not permitted: this token cannot read the tenants');
    await page.fill('#admin-key', d.t.adminKey);
    await page.press('#admin-key', 'Enter');
    await page.waitForSelector(`tr[data-tenant="${gamma.id}"]`, { timeout: machineTimeout(10_000) });
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }) + document.cookie);
    expect(stored).not.toContain(d.t.adminKey);
    // The tenant's own usage, with its key only.
    await page.fill('#tenant-key', gamma.apiKey);
    await page.press('#tenant-key', 'Enter');
    await page.waitForSelector(`[data-testid="tenant-report"][data-tenant="${gamma.id}"] li[data-metric="validations"]`);
    expect(await page.textContent(`[data-testid="tenant-report"][data-tenant="${gamma.id}"] li[data-metric="validations"] .quota-figure`)).toBe(
      '0 / 10000 (0%)',
    );
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }))).not.toContain(gamma.apiKey);
    // Forgetting the admin key: the list is refused again.
    await page.click('text=Forget the admin key');
    await page.waitForSelector('text=Not permitted: this token cannot read the tenants');
    await page.close();
  });
});

describe('schedules and queue', () => {
  test('a schedule created through the API is listed, and is paused and resumed from the view', async () => {
    expect((await call('scheduler', '/schedule', bearer(scheduling), schedule('nightly-report'))).status).toBe(201);
    const page = await d.open(scheduling, '#/scheduler');
    await page.waitForSelector('tr[data-schedule="nightly-report"][data-state="active"]', { timeout: machineTimeout(10_000) });
    await page.click('button:has-text("Pause nightly-report")');
    await page.waitForSelector('tr[data-schedule="nightly-report"][data-state="paused"]');
    const listed = await call('scheduler', '/schedule', bearer(scheduling), undefined, 'GET');
    expect((listed.body.schedules as { id: string; state: string }[]).find((s) => s.id === 'nightly-report')?.state).toBe('paused');
    // The pause came back over the socket too.
    await page.waitForSelector('[data-testid="live-events"] tr[data-kind="schedule-paused"][data-schedule="nightly-report"]');
    await page.click('button:has-text("Resume nightly-report")');
    await page.waitForSelector('tr[data-schedule="nightly-report"][data-state="active"]');
    await page.close();
  });

  test('a task queued through the API appears live with its attempt, without a reload, and its own page shows its status', async () => {
    const page = await d.open(scheduling, '#/scheduler');
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    await page.waitForSelector('[data-testid="queue-depth"] [data-state="succeeded"] .figure');
    const before = Number(await page.textContent('[data-testid="queue-depth"] [data-state="succeeded"] .figure'));
    const queued = await call('scheduler', '/queue', bearer(scheduling), {
      id: 'ping-1',
      task: { type: 'http', url: `${hookUrl}/ping`, method: 'POST', body: { n: 1 } },
    });
    expect(queued.status).toBe(201);
    await page.waitForSelector('[data-testid="live-events"] tr[data-kind="task-queued"][data-task="ping-1"]', { timeout: machineTimeout(5000) });
    await page.waitForSelector('[data-testid="live-events"] tr[data-kind="task-attempt"][data-task="ping-1"]', { timeout: machineTimeout(10_000) });
    expect(hookCalls).toContain('POST /ping');
    // The rows the events touched reloaded in place.
    await page.waitForSelector('table.queue tr[data-task="ping-1"][data-state="succeeded"]', { timeout: machineTimeout(5000) });
    expect(await page.textContent('table.queue tr[data-task="ping-1"]')).toContain('1 of 3');
    await expect.poll(async () => Number(await page.textContent('[data-testid="queue-depth"] [data-state="succeeded"] .figure'))).toBe(before + 1);
    await page.waitForSelector('[data-testid="log"] tr[data-kind="task-attempt"][data-task="ping-1"]');
    // The shot shows the schedules, the queue and the live events (the figures above are in the test).
    await page.evaluate(() => document.getElementById('schedules-title')!.scrollIntoView());
    await d.shot(page, 'scheduler');
    await page.setViewportSize({ width: 390, height: 800 });
    await noSidewaysScroll(page);
    await page.click('table.queue a:has-text("ping-1")');
    await page.waitForSelector('[data-testid="task-status"][data-state="succeeded"]');
    expect(page.url()).toContain('#/scheduler/tasks/ping-1');
    expect(await page.textContent('[data-testid="task-status"]')).toMatch(/Attempts1Attempts allowed3/);
    await page.close();
  });

  test('a token without the scheduler scopes sees "not permitted" on each panel and no buttons', async () => {
    const page = await d.open(narrow, '#/scheduler');
    for (const what of [
      'the queue (scope queue:read)',
      'the schedules (scope schedule:read)',
      'the runtime health (scope runtime:read)',
      'the scheduler log (scope runtime:read)',
    ]) {
      await page.waitForSelector(`text=Not permitted: this token cannot read ${what}`, { timeout: machineTimeout(10_000) });
    }
    expect(await page.locator('button:has-text("Pause")').count()).toBe(0);
    await page.close();
  });

  // Last in the file: the scheduler listener does not come back.
  test('the scheduler listener stopped: its figures turn UNKNOWN without a reload, never zero', async () => {
    const page = await d.open(scheduling, '#/scheduler');
    await page.waitForSelector('[data-testid="runtime"]', { timeout: machineTimeout(10_000) });
    await page.waitForSelector('[data-testid="queue-depth"] [data-state="queued"] .figure');
    await d.t.suite.edges.find((e) => e.service === 'scheduler')!.stop();
    await page.waitForSelector('[data-testid="queue-depth"] [data-state="queued"] .unknown', { timeout: machineTimeout(8000) });
    await page.waitForSelector('text=the runtime health (scope runtime:read): UNKNOWN', { timeout: machineTimeout(8000) });
    expect(await page.getAttribute('[data-testid="queue-depth"] [data-state="queued"] .unknown', 'title')).toMatch(/scheduler listener could not be reached/);
    expect(await page.locator('[data-testid="runtime"]').count()).toBe(0);
    await page.close();
  });
});
