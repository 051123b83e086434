import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { startDashboardBrowser, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { startTargetServer, type TargetServer } from '../testing/target-server.ts';
import { axeViolations, describeViolations, type Violation } from '../testing/axe.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * Accessibility of every view, in a real browser against a real suite (testing/dashboard-browser.ts):
 * axe-core's WCAG 2.0 and 2.1 A and AA rules (and its best practices: landmarks, heading order) on
 * every route of dashboard/src/routes.ts, each filled with data made through the API in this file,
 * at 1280x800 and at a phone's 390 px; then the keyboard: a skip link first, and every control of a
 * rich view reached by Tab with a visible focus indicator and an accessible name.
 */

let d: DashboardBrowser;
let everything: string;
let hook: Server;
let target: TargetServer;
const made = {} as Record<'record' | 'tenant' | 'task' | 'jobA' | 'jobB' | 'dispute' | 'contract' | 'chain', string>;

async function post<T = Record<string, unknown>>(
  listener: 'token' | 'scheduler' | 'bench' | 'trust',
  path: string,
  body: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${everything}` },
): Promise<T> {
  const res = await fetch(d.t.url(listener, path), { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  expect(res.status < 300, `${listener} ${path}: ${res.status} ${text}`).toBe(true);
  return JSON.parse(text) as T;
}

async function benchFinished(jobId: string): Promise<void> {
  const until = Date.now() + machineTimeout(20_000);
  for (;;) {
    const res = await fetch(d.t.url('bench', `/run/${jobId}`), { headers: { authorization: `Bearer ${everything}` } });
    const { status } = (await res.json()) as { status: string };
    if (status === 'succeeded') return;
    if (status === 'failed' || Date.now() > until) throw new Error(`bench job ${jobId} ended ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every route path declared in routes.ts and the trust views' routes, read from the source, so a new view cannot be left out of this test. */
function declaredRoutes(): string[] {
  const paths: string[] = [];
  for (const file of ['dashboard/src/routes.ts', 'dashboard/src/views/trust/routes.ts']) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\{ path: '([^']+)'/g)) paths.push(m[1]!);
  }
  return paths;
}

/** The page each route is checked at, with the data made in beforeAll. */
function pageOf(path: string): string {
  const ids: Record<string, string> = {
    '/records/:id': made.record,
    '/tenants/:id': made.tenant,
    '/scheduler/tasks/:id': made.task,
    '/scheduler/schedules/:id': 'a11y-nightly',
    '/bench/runs/:jobId': made.jobA,
    '/connectors/:id': 'http',
    '/trust/subjects/:id': 'a11y-agent',
    '/trust/disputes/:id': made.dispute,
    '/trust/contracts/:id': made.contract,
    '/trust/chains/:id': made.chain,
  };
  if (path === '/bench/compare') return `#/bench/compare?baseline=${made.jobA}&candidate=${made.jobB}`;
  const id = ids[path];
  if (path.includes(':') && id === undefined) throw new Error(`no data for the route ${path}: add it to pageOf`);
  return `#${id === undefined ? path : path.replace(/:[a-zA-Z]+/, encodeURIComponent(id))}`;
}

/** Waits until no read of the view is still loading (every `Loaded` has its answer). */
async function settled(page: Page, route: string): Promise<void> {
  const timeout = machineTimeout(10_000);
  await page.waitForSelector('main h1', { timeout }).catch(() => {
    throw new Error(`${route}: no h1 in main within ${timeout} ms`);
  });
  await expect.poll(() => page.evaluate(() => /Loading |Comparing…/.test(document.querySelector('main')!.textContent ?? '')), { timeout }).toBe(false);
}

beforeAll(async () => {
  d = await startDashboardBrowser();
  everything = (await d.t.mint(['*'], { sub: 'a11y-person' })).token;
  hook = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  target = await startTargetServer({ delayMs: 2 });
  made.record = (
    await post<{ id: string }>('token', '/executions', {
      subject: 'a11y-agent',
      module: 'a11y-test',
      action: 'deliver',
      input: { n: 1 },
      outcome: 'failure',
      scope: ['files:write'],
    })
  ).id;
  made.tenant = (await post<{ id: string }>('token', '/admin/tenants', { name: 'Access Ltd', plan: 'free' }, { 'x-suite-admin-key': d.t.adminKey })).id;
  // A suspended tenant too: its status carries a reason, which the list shows on hover and on focus.
  const suspended = await post<{ id: string }>('token', '/admin/tenants', { name: 'Paused Co', plan: 'free' }, { 'x-suite-admin-key': d.t.adminKey });
  await post('token', `/admin/tenants/${suspended.id}/status`, { status: 'suspended', reason: 'unpaid invoice 42' }, { 'x-suite-admin-key': d.t.adminKey });
  made.task = 'a11y-task';
  await post('scheduler', '/queue', {
    id: made.task,
    task: { type: 'http', url: `http://127.0.0.1:${(hook.address() as { port: number }).port}/ping`, method: 'POST' },
  });
  await post('scheduler', '/schedule', { id: 'a11y-nightly', cron: '0 2 * * *', task: { type: 'http', url: 'http://127.0.0.1:9/never', method: 'POST' } });
  made.jobA = (
    await post<{ jobId: string }>('bench', '/run', { provider: 'http', url: target.url, name: 'a11y-a', testRuns: 20, warmupRuns: 1, concurrency: 2 })
  ).jobId;
  made.jobB = (
    await post<{ jobId: string }>('bench', '/run', { provider: 'http', url: target.url, name: 'a11y-b', testRuns: 20, warmupRuns: 1, concurrency: 2 })
  ).jobId;
  await post('trust', '/events', { subjectId: 'a11y-agent', kind: 'task-succeeded', summary: 'Delivered', proof: { executionId: made.record } });
  made.contract = (
    await post<{ id: string }>('trust', '/contracts', {
      title: 'Delivery',
      agentId: 'a11y-agent',
      operatorId: 'a11y-ops',
      terms: [{ id: 'sla', text: 'Within a day' }],
    })
  ).id;
  await post('trust', `/contracts/${made.contract}/breach`, { party: 'agent', term: 'sla', description: 'Late' });
  made.dispute = (
    await post<{ id: string }>('trust', '/disputes', {
      title: 'Order 1',
      question: 'Refund?',
      irreversible: false,
      opinions: [
        { participant: 'r1', modelFamily: 'gpt-4', position: 'refund' },
        { participant: 'r2', modelFamily: 'claude', position: 'deny' },
      ],
    })
  ).id;
  made.chain = 'a11y-chain';
  const root = await post<{ id: string }>('trust', '/interactions', {
    caller: 'planner',
    callee: 'researcher',
    chainId: made.chain,
    outcome: 'success',
    executionId: made.record,
  });
  await post('trust', `/interactions/${root.id}/observe`, { observer: 'auditor-1', outcome: 'success' });
  await benchFinished(made.jobA);
  await benchFinished(made.jobB);
}, machineTimeout(60_000));

afterAll(async () => {
  await d?.browser.close();
  await d?.t.stop();
  await target?.close();
  hook?.closeAllConnections();
  await new Promise((resolve) => hook?.close(resolve));
});

/** Waits for the next two frames: a layout after a viewport change is done, and observers (charts) have run. */
const frames = (page: Page) => page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));

describe('accessibility of every view (axe-core, WCAG 2.0/2.1 A and AA)', () => {
  // Each route is loaded once and checked at both widths: the view's layout answers a resize as it
  // answers a load at that width (CSS media queries and ResizeObservers; no view reads the width at
  // load). A load per width cost as much again in page loads, reads and axe injections.
  test("every route shows no axe violation at 1280 px nor at a phone's 390 px, filled with real data", { timeout: machineTimeout(150_000) }, async () => {
    const routes = declaredRoutes();
    expect(routes.length).toBeGreaterThan(20);
    const page = await d.open(everything, '#/', 1280);
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    const all: Violation[] = [];
    for (const route of routes) {
      // A fresh document each time (the token stays in the tab's session storage), so nothing of the last view lingers.
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto('about:blank');
      await page.goto(d.t.url('dashboard', `/${pageOf(route)}`));
      await settled(page, route);
      // Checked with the view's content read, not with a refusal or an error in its place.
      const refused = await page.evaluate(() => [
        ...(document.querySelector('main')!.textContent!.match(/Not permitted[^.]*|could not be read[^.]*/g) ?? []),
        ...Array.from(document.querySelectorAll('main .unknown'), (e) => `UNKNOWN: ${e.getAttribute('title')}`),
      ]);
      expect(refused, route).toEqual([]);
      all.push(...(await axeViolations(page, `${route} at 1280 px`)));
      await page.setViewportSize({ width: 390, height: 800 });
      await frames(page);
      expect(await page.evaluate(() => window.innerWidth), route).toBe(390);
      all.push(...(await axeViolations(page, `${route} at 390 px`)));
    }
    expect(all, describeViolations(all)).toEqual([]);
    await page.close();
  });
});

describe('accessibility of the states a view passes through', () => {
  test('the sign-in form, views refused to a narrow token, a minted token, a validation and a refusal show no axe violation', {
    timeout: machineTimeout(40_000),
  }, async () => {
    const all: Violation[] = [];
    const signedOut = await d.browser.newPage({ viewport: { width: 390, height: 800 } });
    await signedOut.goto(d.t.url('dashboard', '/#/'));
    await signedOut.waitForSelector('#token');
    all.push(...(await axeViolations(signedOut, 'signed out')));
    await signedOut.close();

    const narrow = (await d.t.mint(['execution:read'], { sub: 'a11y-narrow' })).token;
    const refused = await d.open(narrow, '#/scheduler');
    for (const hash of ['#/scheduler', '#/tokens', '#/bench', '#/trust', '#/tenants']) {
      await refused.goto('about:blank');
      await refused.goto(d.t.url('dashboard', `/${hash}`));
      await settled(refused, hash);
      await refused.waitForSelector('main .not-permitted');
      all.push(...(await axeViolations(refused, `${hash} refused`)));
    }
    await refused.close();

    const page = await freshView('#/tokens');
    await page.fill('#mint-sub', 'a11y-delegate');
    await page.fill('#mint-extra', 'execution:read');
    await page.click('button:text("Mint a narrower token")');
    const minted = (await (await page.waitForSelector('#minted-narrower')).inputValue()).trim();
    await page.fill('#validate-token', minted);
    await page.click('button:text("Validate")');
    await page.waitForSelector('[data-testid="validate-result"] dl.claims');
    all.push(...(await axeViolations(page, '#/tokens with a minted token and its claims')));
    await page.fill('#validate-token', 'not-a-token');
    await page.click('button:text("Validate")');
    await page.waitForSelector('[data-testid="validate-result"]:has-text("Not valid")');
    all.push(...(await axeViolations(page, '#/tokens with a token refused by validation')));
    await page.close();
    expect(all, describeViolations(all)).toEqual([]);
  });
});

/** A signed-in page at `hash` in a fresh document (focus at its start), once every read of the view has its answer. */
async function freshView(hash: string): Promise<Page> {
  const page = await d.open(everything, '#/');
  await page.waitForSelector('[data-testid="connection"]:has-text("open")');
  await page.goto('about:blank');
  await page.goto(d.t.url('dashboard', `/${hash}`));
  await settled(page, hash);
  return page;
}

interface Stop {
  n: string | null;
  inMain: boolean;
  tag: string;
  ring: boolean;
  box: boolean;
  name: string;
}

/** Where focus is now: the element's mark, whether its focus ring is drawn, and its accessible name as the browser computes it. */
async function focusNow(page: Page): Promise<Stop> {
  const where = await page.evaluate(() => {
    const e = document.activeElement as HTMLElement;
    const s = getComputedStyle(e);
    const r = e.getBoundingClientRect();
    return {
      n: e.getAttribute('data-a11y-n'),
      inMain: !!e.closest('main') && e.tagName !== 'MAIN',
      tag: e.tagName.toLowerCase(),
      ring: e.matches(':focus-visible') && ((s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== 'none'),
      box: r.width > 0 && r.height > 0,
    };
  });
  // The first line of Playwright's ARIA snapshot is `- role "name"`: the name the accessibility tree
  // gives it; a tab stop with no role (a figure with its reason) is `- text: …`, read as its text.
  const snapshot = where.tag === 'body' ? '' : await page.locator(':focus').ariaSnapshot();
  const name = (/^- [\w-]+ "(.+?)"/.exec(snapshot) ?? /^- text: "?(.+?)"?$/m.exec(snapshot))?.[1] ?? '';
  return { ...where, name };
}

describe('the keyboard', () => {
  test('the first Tab reaches "Skip to content", shown when focused, and Enter moves focus to the view without changing the route', async () => {
    const page = await freshView('#/tokens');
    await page.keyboard.press('Tab');
    const first = await focusNow(page);
    expect(first.name).toBe('Skip to content');
    expect(first.ring && first.box).toBe(true);
    const box = (await page.locator(':focus').boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(page.url()).toMatch(/#\/tokens$/);
    // The next Tab is inside the view, past the navigation.
    await page.keyboard.press('Tab');
    expect((await focusNow(page)).inMain).toBe(true);
    await page.close();
  });

  for (const view of ['#/tokens', '#/scheduler']) {
    test(`every control of ${view} is reached by Tab in turn, each with a visible focus ring and an accessible name`, {
      timeout: machineTimeout(40_000),
    }, async () => {
      const page = await freshView(view);
      // Mark every control a keyboard should reach in the view: links, enabled fields and buttons, anything given a tab stop.
      const controls = await page.evaluate(() => {
        const all = document.querySelectorAll<HTMLElement>(
          'main a[href], main button:not([disabled]), main input:not([disabled]):not([type="hidden"]), main select:not([disabled]), main textarea:not([disabled]), main summary, main [tabindex]:not([tabindex="-1"])',
        );
        const shown = Array.from(all).filter((e) => e.getClientRects().length > 0);
        shown.forEach((e, i) => {
          e.setAttribute('data-a11y-n', String(i));
        });
        return shown.length;
      });
      // The tokens view has 16 (its forms), the scheduler 5 with this data (a schedule's two buttons, the state filter, a task, the log's pages).
      expect(controls).toBeGreaterThanOrEqual(5);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      const reached = new Set<string>();
      const faults: string[] = [];
      for (let i = 0; i < controls + 5; i += 1) {
        await page.keyboard.press('Tab');
        const stop = await focusNow(page);
        if (!stop.inMain) break;
        if (stop.n !== null) reached.add(stop.n);
        if (!stop.ring) faults.push(`${stop.tag}#${stop.n} "${stop.name}": no visible focus ring`);
        if (stop.name.trim() === '') faults.push(`${stop.tag}#${stop.n}: no accessible name`);
      }
      expect(faults).toEqual([]);
      const missed = await page.evaluate(
        (seen) =>
          Array.from(document.querySelectorAll('[data-a11y-n]'))
            .filter((e) => !seen.includes(e.getAttribute('data-a11y-n')!))
            .map((e) => e.outerHTML.slice(0, 120)),
        [...reached],
      );
      expect(missed).toEqual([]);
      expect(reached.size).toBe(controls);
      await page.close();
    });
  }
});

// Last in the file: the trust listener does not come back.
describe('accessibility of figures that cannot be read', () => {
  test('with the trust listener stopped, the overview and the trust view show UNKNOWN with no axe violation', { timeout: machineTimeout(30_000) }, async () => {
    await d.t.suite.edges.find((e) => e.service === 'trust')!.stop();
    const all: Violation[] = [];
    const page = await d.open(everything, '#/');
    await page.waitForSelector('tr[data-service="trust"] .unknown', { timeout: machineTimeout(10_000) });
    all.push(...(await axeViolations(page, '#/ with trust stopped')));
    await page.goto('about:blank');
    await page.goto(d.t.url('dashboard', '/#/trust'));
    await page.waitForSelector('main .unknown', { timeout: machineTimeout(10_000) });
    all.push(...(await axeViolations(page, '#/trust with trust stopped')));
    // The reason is on hover for a mouse; a screen reader reads it with the figure, and a keyboard
    // reaching the figure sees it while it has focus.
    const figure = page.locator('main .unknown').first();
    expect(await figure.ariaSnapshot()).toMatch(/UNKNOWN ?: SERVICE_UNAVAILABLE.*could not be reached/);
    const reason = figure.locator('.visually-hidden');
    expect((await reason.boundingBox())!.width).toBeLessThanOrEqual(1);
    await page.keyboard.press('Tab');
    for (let i = 0; i < 30 && !(await figure.evaluate((e) => e === document.activeElement)); i += 1) await page.keyboard.press('Tab');
    expect((await focusNow(page)).ring).toBe(true);
    expect((await reason.boundingBox())!.width).toBeGreaterThan(50);
    await page.close();
    expect(all, describeViolations(all)).toEqual([]);
  });
});
