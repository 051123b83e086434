import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { startDashboardBrowser, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The operator's views of issue 24 in a real browser against a real suite
 * (testing/dashboard-browser.ts): the overview's trends of the last hour following the suite live,
 * a task's attempts each linked to its signed trace, a schedule's firings, and a stopped listener
 * read as urgent. Every figure comes from work done through the API in this file.
 */
let d: DashboardBrowser;
let everything: string;
let hook: Server;
let hookUrl: string;
/** Calls of the hook per path: `/flaky` answers 503 the first time, 200 after. */
const calls = new Map<string, number>();

async function post<T = Record<string, unknown>>(listener: 'token' | 'scheduler', path: string, body: unknown): Promise<T> {
  const res = await fetch(d.t.url(listener, path), {
    method: 'POST',
    headers: { authorization: `Bearer ${everything}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status < 300, `${listener} ${path}: ${res.status} ${text}`).toBe(true);
  return JSON.parse(text) as T;
}

async function get<T>(listener: 'token' | 'scheduler' | 'dashboard', path: string, token = everything): Promise<{ status: number; body: T }> {
  const res = await fetch(d.t.url(listener, path), { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as T };
}

const latest = async (page: Page, series: string) => Number(await page.getAttribute(`[data-series="${series}"]`, 'data-latest'));

/** Nothing wider than the viewport. */
async function noSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
}

beforeAll(async () => {
  d = await startDashboardBrowser();
  everything = (await d.t.mint(['*'], { sub: 'operator' })).token;
  hook = createServer((req, res) => {
    const n = (calls.get(req.url ?? '') ?? 0) + 1;
    calls.set(req.url ?? '', n);
    const fail = req.url === '/flaky' && n === 1;
    res.writeHead(fail ? 503 : 200, { 'content-type': 'application/json' }).end(fail ? '{"busy":true}' : '{"ok":true}');
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}`;
  // Made first: it fires at the next minute boundary, while the other tests run.
  await post('scheduler', '/schedule', { id: 'every-minute', cron: '* * * * *', task: { type: 'http', url: `${hookUrl}/minute`, method: 'POST' } });
}, machineTimeout(60_000));

afterAll(async () => {
  await d?.stop();
  hook?.closeAllConnections();
  await new Promise((resolve) => hook?.close(resolve));
});

describe("the overview's trends", () => {
  test('an append through the API moves the latest minute of the appends chart live, without a reload', { timeout: machineTimeout(60_000) }, async () => {
    const page = await d.open(everything, '#/');
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    await page.waitForSelector('[data-testid="trend-appends"] canvas');
    const before = await latest(page, 'appends');
    expect(Number.isInteger(before)).toBe(true);
    await post('token', '/executions', {
      subject: 'trend-agent',
      module: 'trends-test',
      action: 'append',
      input: { n: 1 },
      outcome: 'success',
      scope: ['x:y'],
    });
    await expect.poll(() => latest(page, 'appends'), { timeout: machineTimeout(10_000) }).toBeGreaterThan(before);
    // Each chart is drawn (a canvas) and said in words; decisions come from the audit trail, which
    // holds at least this test's own authorised calls by now.
    for (const panel of ['appends', 'decisions', 'errors', 'queue', 'backlog']) {
      expect(await page.locator(`[data-testid="trend-${panel}"] canvas`).count()).toBeGreaterThan(0);
    }
    await expect
      .poll(
        async () =>
          (await get<{ series: { name: string; points: (number | null)[] }[] }>('dashboard', '/dashboard/history')).body.series
            .find((s) => s.name === 'allow')!
            .points.at(-1) ?? 0,
        { timeout: machineTimeout(20_000) },
      )
      .toBeGreaterThan(0);
    await d.shot(page, 'overview-trends');
    await page.setViewportSize({ width: 390, height: 800 });
    await noSidewaysScroll(page);
    await d.shot(page, 'overview-trends-390');
    await page.close();
  });

  test('the history route gives each series only to a token that may read it, as the socket does', { timeout: machineTimeout(30_000) }, async () => {
    const narrow = (await d.t.mint(['queue:read'], { sub: 'queue-only' })).token;
    const { status, body } = await get<{ minutes: string[]; series: { name: string; permitted: boolean; reason?: string; points: unknown[] }[] }>(
      'dashboard',
      '/dashboard/history',
      narrow,
    );
    expect(status).toBe(200);
    expect(body.minutes).toHaveLength(60);
    const by = Object.fromEntries(body.series.map((s) => [s.name, s]));
    expect(by.appends).toMatchObject({ permitted: false, points: [] });
    expect(by.appends!.reason).toMatch(/execution:read/);
    expect(by.deny).toMatchObject({ permitted: false });
    expect(by.queueDepth!.permitted).toBe(true);
    expect(by.queueDepth!.points).toHaveLength(60);
    const page = await d.open(narrow, '#/');
    await page.waitForSelector('[data-series-refused="appends"]');
    expect(await page.textContent('[data-series-refused="decisions"]')).toMatch(/not permitted: .*audit:read/);
    expect((await get('dashboard', '/dashboard/history', 'not-a-token')).status).toBe(401);
    await page.close();
  });

  test("refused calls to another listener show in the 4xx series, read from that listener's /metrics", { timeout: machineTimeout(60_000) }, async () => {
    const sum4xx = async () => {
      const { body } = await get<{ series: { name: string; points: (number | null)[] }[] }>('dashboard', '/dashboard/history');
      return body.series.find((s) => s.name === 'http4xx')!.points.reduce<number>((a, b) => a + (b ?? 0), 0);
    };
    // A first scrape is a baseline: wait until one has been taken (the series has a measured minute).
    await expect
      .poll(
        async () =>
          (await get<{ series: { name: string; points: (number | null)[] }[] }>('dashboard', '/dashboard/history')).body.series
            .find((s) => s.name === 'http4xx')!
            .points.some((p) => p !== null),
        { timeout: machineTimeout(30_000) },
      )
      .toBe(true);
    const before = await sum4xx();
    for (let i = 0; i < 5; i++) expect((await get('token', '/audit', 'not-a-token')).status).toBe(401);
    await expect.poll(sum4xx, { timeout: machineTimeout(30_000) }).toBeGreaterThanOrEqual(before + 5);
  });
});

describe("a task's attempts and a schedule's firings", () => {
  test('a task that failed once lists both attempts with their traces, and a trace link opens its signed record', {
    timeout: machineTimeout(60_000),
  }, async () => {
    await post('scheduler', '/queue', {
      id: 'flaky-task',
      task: { type: 'http', url: `${hookUrl}/flaky`, method: 'POST' },
      retry: { maxAttempts: 3, backoff: 'fixed', baseDelay: 10 },
    });
    const page = await d.open(everything, '#/scheduler/tasks/flaky-task');
    await page.waitForSelector('[data-testid="task-status"][data-state="succeeded"]', { timeout: machineTimeout(20_000) });
    await page.waitForSelector('[data-testid="attempts"] tr[data-attempt="2"][data-outcome="success"]', { timeout: machineTimeout(10_000) });
    const first = page.locator('tr[data-attempt="1"]');
    expect(await first.getAttribute('data-outcome')).toBe('failure');
    expect(await first.textContent()).toContain('HTTP 503');
    // Human labels, relative times with the exact time on hover.
    expect(await page.textContent('[data-testid="task-status"]')).toContain('Last status');
    expect(await page.textContent('[data-testid="task-status"]')).not.toContain('lastStatus');
    expect(await first.locator('.relative').first().getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(await first.locator('.relative').first().textContent()).toMatch(/just now|min ago/);
    const traceId = (await first.locator('a').textContent())!;
    const status = await get<{ history: { attempt: number; traceId: string }[] }>('scheduler', '/queue/flaky-task/status');
    expect(status.body.history.map((h) => h.attempt)).toEqual([1, 2]);
    expect(status.body.history[0]!.traceId).toBe(traceId);
    await d.shot(page, 'task-attempts');
    await first.locator('a').click();
    await page.waitForSelector('#record-title');
    expect(page.url()).toContain(`#/records/${traceId}`);
    await page.waitForSelector('dl.fields dt:has-text("Outcome")');
    const fields = await page.textContent('dl.fields');
    expect(fields).toContain('failure');
    expect(fields).toContain('scheduler');
    await page.close();
  });

  test('the scheduler table keeps "active" on one line at a phone\'s width', { timeout: machineTimeout(30_000) }, async () => {
    const page = await d.open(everything, '#/scheduler', 390);
    const cell = page.locator('tr[data-schedule="every-minute"] td.state');
    await cell.waitFor({ timeout: machineTimeout(10_000) });
    const lines = await cell.evaluate((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
    });
    expect(await cell.textContent()).toBe('active');
    expect(lines).toBe(1);
    await noSidewaysScroll(page);
    await page.close();
  });

  test("a schedule's page lists its firings, each a link to the task", { timeout: machineTimeout(90_000) }, async () => {
    const page = await d.open(everything, '#/scheduler/schedules/every-minute');
    await page.waitForSelector('[data-testid="schedule"][data-state="active"]');
    // The firing happens at the next minute boundary (cron has no seconds field).
    const firing = page.locator('[data-testid="firings"] tr[data-task]').first();
    await firing.waitFor({ timeout: machineTimeout(75_000) });
    const taskId = await firing.getAttribute('data-task');
    await d.shot(page, 'schedule-firings');
    await firing.locator('a').first().click();
    await page.waitForSelector('[data-testid="task-status"]', { timeout: machineTimeout(10_000) });
    // A firing's id holds '@' and ':': the page reads it back unescaped (it once asked for the escaped id).
    expect(decodeURIComponent(page.url())).toContain(`#/scheduler/tasks/${taskId}`);
    expect(await page.textContent('#task-title')).toBe(`Task ${taskId}`);
    expect(await page.textContent('[data-testid="task-status"]')).toContain('every-minute');
    // The routes the page reads: one schedule (404 for another id) and the queue filtered to its firings.
    expect((await get<{ error: { code: string } }>('scheduler', '/schedule/no-such-schedule')).body.error.code).toBe('NOT_FOUND');
    const only = await get<{ tasks: { scheduleId: string }[] }>('scheduler', '/queue?scheduleId=every-minute&limit=50');
    expect(only.body.tasks.length).toBeGreaterThan(0);
    expect(only.body.tasks.every((t) => t.scheduleId === 'every-minute')).toBe(true);
    expect((await get<{ tasks: unknown[] }>('scheduler', '/queue?scheduleId=no-such-schedule')).body.tasks).toEqual([]);
    await page.close();
  });
});

describe('a service down reads as urgent', () => {
  test('a stopped listener is named in a warning above the figures, its row red with a sign, not only a colour', {
    timeout: machineTimeout(30_000),
  }, async () => {
    const page = await d.open(everything, '#/');
    await page.waitForSelector('tr[data-service="bench"][data-state="ready"]', { timeout: machineTimeout(10_000) });
    expect(await page.locator('.attention-banner').count()).toBe(0);
    await d.t.suite.edges.find((e) => e.service === 'bench')!.stop();
    await page.waitForSelector('tr[data-service="bench"][data-state="unknown"]', { timeout: machineTimeout(8000) });
    const banner = page.locator('[data-testid="attention-banner"] li[data-service="bench"]');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(/bench is UNKNOWN/);
    expect(await page.getAttribute('tr[data-service="bench"]', 'class')).toContain('urgent');
    // The row re-renders as the next status arrives; an element read just as it was replaced is
    // detached and has no computed style (CI once read color ''), so the look is read from one still
    // in the page.
    const look = await vi.waitFor(
      async () => {
        const read = await page
          .locator('tr[data-service="bench"] .unknown')
          .first()
          .evaluate((e) =>
            e.isConnected
              ? { color: getComputedStyle(e).color, sign: getComputedStyle(e, '::before').content, weight: getComputedStyle(e).fontWeight }
              : undefined,
          );
        if (read === undefined) throw new Error('the row was replaced as it was read');
        return read;
      },
      { timeout: machineTimeout(5_000) },
    );
    // Red (the failure colour), bold, and a warning sign before the word.
    expect(look.color).toBe('rgb(179, 38, 30)');
    expect(look.sign).toContain('⚠');
    expect(Number(look.weight)).toBeGreaterThanOrEqual(700);
    expect(await page.getAttribute('tr[data-service="token"]', 'data-state')).toBe('ready');
    await d.shot(page, 'overview-urgent');
    await page.close();
  });
});
