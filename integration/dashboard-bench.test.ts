import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { startDashboardBrowser, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { startTargetServer, type TargetServer } from '../testing/target-server.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The benchmark and connector views in a real browser against a real suite (testing/dashboard-browser.ts):
 * runs of a fast and a slow local server (loopback is allowed in the embedded mode) measured by the
 * suite's own runner, a run's page with its percentile table and uPlot charts, live progress, a
 * comparison, and the connectors with verify.
 */
let d: DashboardBrowser;
let fast: TargetServer;
let slow: TargetServer;
let runner: string;
let reader: string;
let fastJob: string;
let slowJob: string;
/** The slow server's delay, and the calls of each of the two compared runs. */
const SLOW_MS = 150;
const RUNS = 40;

async function submit(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(d.t.url('bench', '/run'), {
    method: 'POST',
    headers: { authorization: `Bearer ${runner}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { jobId: string }).jobId;
}

async function finished(jobId: string): Promise<string> {
  const until = Date.now() + machineTimeout(20_000);
  for (;;) {
    const res = await fetch(d.t.url('bench', `/run/${jobId}`), { headers: { authorization: `Bearer ${reader}` } });
    const { status } = (await res.json()) as { status: string };
    if (status === 'succeeded' || status === 'failed') return status;
    if (Date.now() > until) throw new Error(`job ${jobId} still ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A core benchmark run, small, waited for until `GET /bench/core` shows it. */
async function coreRun(): Promise<string> {
  const res = await fetch(d.t.url('bench', '/bench/core'), {
    method: 'POST',
    headers: { authorization: `Bearer ${runner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ iterations: 20, chainLength: 10 }),
  });
  expect(res.status).toBe(202);
  const { runId } = (await res.json()) as { runId: string };
  const until = Date.now() + machineTimeout(20_000);
  while (Date.now() < until) {
    const latest = await fetch(d.t.url('bench', '/bench/core'));
    if (latest.ok && ((await latest.json()) as { runId: string }).runId === runId) return runId;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`core run ${runId} not stored in time`);
}

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

beforeAll(async () => {
  d = await startDashboardBrowser({ SUITE_BENCH_POLL_MS: '50' });
  // Delays long beside timer jitter, so the slow server is slower by far more than the verdict's 5%,
  // and runs of 40 calls: a stall of up to ~3 s in one call of the fast run (seen beside a CPU hog,
  // where 30 calls against a 60 ms server gave Welch's test no significance) leaves it significant.
  fast = await startTargetServer({ delayMs: 5 });
  slow = await startTargetServer({ delayMs: SLOW_MS });
  runner = (await d.t.mint(['bench:run', 'bench:read', 'connector:read'], { sub: 'bench-person' })).token;
  reader = (await d.t.mint(['bench:read'], { sub: 'bench-reader' })).token;
  fastJob = await submit({ provider: 'http', url: fast.url, name: 'checkout-fast', testRuns: RUNS, warmupRuns: 2, concurrency: 4 });
  slowJob = await submit({ provider: 'http', url: slow.url, name: 'checkout-slow', testRuns: RUNS, warmupRuns: 2, concurrency: 4 });
  expect(await finished(fastJob)).toBe('succeeded');
  expect(await finished(slowJob)).toBe('succeeded');
  await coreRun();
  await coreRun();
}, machineTimeout(60_000));

afterAll(async () => {
  await d?.stop();
  await fast?.close();
  await slow?.close();
});

describe('the benchmark and connector views in a browser', () => {
  test('both runs appear in the history, and a name filter keeps only its run', async () => {
    const page = await d.open(reader, '#/bench');
    await page.waitForSelector(`tr[data-job="${fastJob}"]`);
    await page.waitForSelector(`tr[data-job="${slowJob}"]`);
    expect(await page.textContent(`tr[data-job="${slowJob}"] [data-testid="row-status"]`)).toBe('succeeded');
    await d.shot(page, 'bench-runs');
    await page.fill('input[name="name"]', 'checkout-slow');
    await page.click('button:has-text("Filter")');
    await page.waitForSelector(`tr[data-job="${fastJob}"]`, { state: 'detached' });
    expect(await page.locator('table.bench-history tbody tr').count()).toBe(1);
    expect(page.url()).toContain('name=checkout-slow');
    // The core benchmark panel: the six operations of the latest run, and its verdict against the one before.
    expect(await page.locator('table.bench-core-ops tbody tr').count()).toBe(6);
    expect(await page.textContent('[data-testid="core-verdict"]')).toMatch(/^(regression|improvement|no significant change)$/);
    await page.close();
  });

  test("a run's page shows the percentile table, the facts and two uPlot charts with text alternatives", async () => {
    const page = await d.open(reader, `#/bench/runs/${slowJob}`);
    await page.waitForSelector('[data-testid="percentile-table"]');
    const header = await page.locator('[data-testid="percentile-table"] thead th').allTextContents();
    expect(header).toEqual(['summary', 'n', 'mean', 'stddev', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max']);
    const measured = await page.locator('[data-testid="percentile-table"] tbody tr').first().locator('td').allTextContents();
    expect(measured[0]).toBe(String(RUNS));
    // The slow server answers after SLOW_MS at least: the median cannot be below it.
    expect(Number.parseFloat(measured[3]!)).toBeGreaterThanOrEqual(SLOW_MS);
    await page.waitForSelector('[data-testid="chart-percentiles"] canvas');
    await page.waitForSelector('[data-testid="chart-histogram"] canvas');
    expect(await page.locator('.bench-chart canvas').count()).toBe(2);
    for (const id of ['chart-percentiles', 'chart-histogram']) {
      const chart = page.locator(`[data-testid="${id}"]`);
      expect(await chart.getAttribute('role')).toBe('img');
      const described = await chart.getAttribute('aria-describedby');
      expect(await page.locator(`table#${described}`).count()).toBe(1);
    }
    // The histogram's table counts every measured call.
    const counts = await page.locator('table.bench-buckets tbody td:nth-child(3)').allTextContents();
    expect(counts.reduce((a, c) => a + Number(c), 0)).toBe(RUNS);
    expect(await page.textContent('[data-testid="errors"]')).toBe('none');
    await d.shot(page, 'bench');
    await page.close();
  });

  test('a run submitted through the API shows live progress, then its result, without a reload', async () => {
    const page = await d.open(reader, '#/bench');
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    // About 3.6 s of calls, one at a time.
    const liveRuns = 24;
    const jobId = await submit({ provider: 'http', url: slow.url, name: 'live-run', testRuns: liveRuns, warmupRuns: 0, concurrency: 1 });
    await page.goto(d.t.url('dashboard', `/#/bench/runs/${jobId}`));
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    await page.waitForSelector('[data-testid="run-progress"]');
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 1;
    });
    const seen = new Set<number>();
    await expect
      .poll(
        async () => {
          const v = await page.evaluate(() => (document.querySelector('[data-testid="run-progress"]') as HTMLProgressElement | null)?.value ?? -1);
          if (v > 0 && v < liveRuns) seen.add(v);
          return seen.size;
        },
        { timeout: machineTimeout(10_000), interval: 100 },
      )
      .toBeGreaterThanOrEqual(2);
    await page.waitForSelector('[data-testid="percentile-table"]', { timeout: machineTimeout(15_000) });
    expect(await page.textContent('[data-testid="run-status"]')).toBe('succeeded');
    expect(await page.locator('.bench-chart canvas').count()).toBe(2);
    // The same document all along: the marker set while it ran is still there.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    await page.close();
  });

  test('compare shows a regression for slow against fast, and says plainly when a run is unknown', async () => {
    const page = await d.open(reader, '#/bench/compare');
    await page.waitForSelector('select[name="baseline"]');
    await page.selectOption('select[name="baseline"]', fastJob);
    await page.selectOption('select[name="candidate"]', slowJob);
    await page.click('button:has-text("Compare")');
    await expect.poll(() => page.textContent('[data-testid="compare-verdict"]'), { timeout: machineTimeout(10_000) }).toBe('regression');
    expect(page.url()).toContain(`baseline=${fastJob}`);
    const named = await page.locator('[data-testid="compare-table"] tbody tr').first().locator('td').allTextContents();
    expect(named).toEqual(['checkout-fast', 'checkout-slow']);
    expect(Number(await page.textContent('[data-testid="welch-p"]'))).toBeLessThan(0.05);
    await d.shot(page, 'bench-compare');
    await page.goto(d.t.url('dashboard', `/#/bench/compare?baseline=${fastJob}&candidate=bench_00000000000000000000000000000000`));
    await expect.poll(() => page.textContent('[data-testid="compare-error"]'), { timeout: machineTimeout(10_000) }).toContain('No such run');
    await page.close();
  });

  test('a run still going cannot be compared yet, and the page says so', async () => {
    // About 6 s of calls: still queued or running when the page asks (it is left to end on its own).
    const jobId = await submit({ provider: 'http', url: slow.url, testRuns: 40, warmupRuns: 0, concurrency: 1 });
    const page = await d.open(reader, `#/bench/compare?baseline=${fastJob}&candidate=${jobId}`);
    await expect.poll(() => page.textContent('[data-testid="compare-error"]'), { timeout: machineTimeout(10_000) }).toContain('Not finished');
    await page.close();
  });

  test('the connectors view lists every connector, and verify shows its result', async () => {
    const page = await d.open(runner, '#/connectors');
    for (const id of ['webhook', 'http', 'slack', 'github', 'postgres']) await page.waitForSelector(`article[data-connector="${id}"]`);
    expect(await page.textContent('article[data-connector="http"] [data-testid="configured"]')).toBe('configured');
    expect(await page.textContent('article[data-connector="slack"] [data-testid="configured"]')).toBe('not configured');
    await page.click('button:has-text("Verify http")');
    await expect.poll(() => page.textContent('[data-testid="verify-http"]'), { timeout: machineTimeout(5000) }).toMatch(/^valid: /);
    await page.click('button:has-text("Verify slack")');
    await expect.poll(() => page.textContent('[data-testid="verify-slack"]'), { timeout: machineTimeout(5000) }).toContain('CONNECTOR_NOT_CONFIGURED');
    await d.shot(page, 'connectors');
    // Verify needs connector:read: a bench reader is told so.
    const narrow = await d.open(reader, '#/connectors/http');
    await narrow.click('button:has-text("Verify http")');
    await expect.poll(() => narrow.textContent('[data-testid="verify-http"]'), { timeout: machineTimeout(5000) }).toContain('Not permitted');
    await page.close();
    await narrow.close();
  });

  test('a token without bench:read sees "not permitted" on the benchmark views', async () => {
    const other = (await d.t.mint(['connector:read'], { sub: 'no-bench' })).token;
    const page = await d.open(other, '#/bench');
    await page.waitForSelector('.not-permitted');
    expect(await page.textContent('.not-permitted')).toContain('Not permitted: this token cannot read the benchmark runs (scope bench:read)');
    await page.goto(d.t.url('dashboard', `/#/bench/runs/${fastJob}`));
    await expect.poll(() => page.textContent('.not-permitted')).toContain('this benchmark run (scope bench:read)');
    await page.close();
  });

  test('at a phone width (390 px) the benchmark and connectors views do not scroll sideways', async () => {
    for (const hash of [`#/bench/runs/${slowJob}`, `#/bench/compare?baseline=${fastJob}&candidate=${slowJob}`, '#/connectors', '#/bench']) {
      const page = await d.open(runner, hash, 390);
      await page.waitForSelector('main h1');
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(300);
      expect(await overflow(page), hash).toBeLessThanOrEqual(0);
      await page.close();
    }
  });
});
