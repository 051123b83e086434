import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SERVICES, PORT_VARIABLES } from '../config/index.ts';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { startDashboardBrowser, UPDATE_DOCS, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The dashboard in a real browser (Debian's chromium, driven by playwright-core) against a real suite
 * in this process (testing/dashboard-browser.ts): the overview, the chain, a record, the verifier.
 */
let d: DashboardBrowser;
let t: TestSuite;
let browser: Browser;
let reader: string;
const shot = (page: Page, name: string) => d.shot(page, name);

async function signIn(page: Page, token: string, hash = ''): Promise<void> {
  await page.goto(t.url('dashboard', `/${hash}`));
  await page.fill('#token', token);
  await page.press('#token', 'Enter');
}

async function record(token: string, subject: string): Promise<{ id: string; seq: number }> {
  const res = await fetch(t.url('token', '/executions'), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subject, module: 'dashboard-test', action: 'append', input: { n: subject }, outcome: 'success' }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; seq: number };
}

beforeAll(async () => {
  d = await startDashboardBrowser();
  t = d.t;
  browser = d.browser;
  reader = (await t.mint(['execution:read', 'execution:record'], { sub: 'dashboard-person' })).token;
});

afterAll(async () => {
  await d?.stop();
});

describe('the dashboard in a browser', () => {
  test('the overview shows every service ready, from the running suite over the live socket', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, reader);
    for (const s of ['token', 'scheduler', 'bench', 'connector', 'trust']) {
      await page.waitForSelector(`tr[data-service="${s}"][data-state="ready"]`, { timeout: machineTimeout(10_000) });
    }
    expect(await page.textContent('[data-testid="who"]')).toContain('dashboard-person');
    // Key figures this token may not read say so, rather than showing a zero.
    await page.waitForSelector('[data-figure="queued"][data-state="not-permitted"]');
    // The chain's head follows appends live.
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    const made = await record(reader, 'overview-subject');
    await expect.poll(() => page.textContent('[data-testid="chain-head"]'), { timeout: machineTimeout(5000) }).toContain(`record ${made.seq}, hash`);
    if (UPDATE_DOCS) {
      const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime);
      console.log(`overview: first contentful paint ${paint?.toFixed(0)} ms after navigation`);
    }
    // The token is in the tab's session storage, nowhere else.
    expect(await page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).toEqual([1, 0, '']);
    await page.close();
  });

  test('a trace recorded through the API appears in the chain view without a reload', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, reader, '#/chain');
    await page.waitForSelector('table.chain');
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    const made = await record(reader, 'live-subject');
    await page.waitForSelector(`tr[data-id="${made.id}"]`, { timeout: machineTimeout(5000) });
    await shot(page, 'chain');
    await page.click('text=Verify the chain');
    await expect.poll(() => page.textContent('[data-testid="verify-result"]'), { timeout: machineTimeout(15_000) }).toMatch(/^valid: \d+ records checked/);
    await page.close();
  });

  test('a record opens with its fields, five conditions and explanation', async () => {
    const made = await record(reader, 'record-subject');
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, reader, `#/records/${made.id}`);
    await page.waitForSelector('ul.conditions');
    expect(await page.locator('ul.conditions li').count()).toBe(5);
    expect(await page.textContent('dl.fields')).toContain('record-subject');
    await shot(page, 'record');
    await page.close();
  });

  test('a record reads at 1280x800: its receipt verdict on the first screen, cost, governance and attester as labelled fields, no JSON one-liners', async () => {
    const res = await fetch(t.url('token', '/executions'), {
      method: 'POST',
      headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        subject: 'readable-subject',
        module: 'dashboard-test',
        action: 'http.GET',
        input: { q: 1 },
        outcome: 'success',
        cost: { amount: 120, currency: 'EUR', source: 'provider-invoice' },
        governance: { policyRef: 'policy-9', policyVersion: '3', decision: 'PERMITTED', evidence: ['ticket-42'], evaluatedBy: 'opa' },
      }),
    });
    expect(res.status).toBe(201);
    const made = (await res.json()) as { id: string };
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, reader, `#/records/${made.id}`);
    await page.waitForSelector('dl.fields dl.nested');
    const verdict = page.locator('[data-receipt]');
    await verdict.waitFor();
    expect((await verdict.boundingBox())!.y, 'the receipt verdict is on the first screen').toBeLessThan(800);
    const fields = (await page.textContent('dl.fields'))!;
    expect(fields).not.toContain('{"');
    expect(fields).toContain('provider-invoice');
    for (const label of ['Amount', 'Currency', 'Policy ref', 'Decision', 'Evaluated by', 'Sub', 'Proven']) {
      expect(await page.locator('dl.nested dt', { hasText: label }).count(), label).toBeGreaterThan(0);
    }
    // One line each: the id in the title's field and the action are not broken mid-word.
    const lineHeight = async (selector: string) => {
      const box = (await page.locator(selector).first().boundingBox())!;
      return box.height;
    };
    const idHeight = await lineHeight(`dl.fields dd:has-text("${made.id}") code`);
    expect(await lineHeight('dl.fields dd:has-text("http.GET") code')).toBeLessThanOrEqual(idHeight);
    expect(idHeight).toBeLessThan(30);
    await shot(page, 'record-readable');
    await page.close();
  });

  test('a record shows its lineage both ways and compares pasted content with its hashes', async () => {
    const post = async (body: Record<string, unknown>) => {
      const res = await fetch(t.url('token', '/executions'), {
        method: 'POST',
        headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
        body: JSON.stringify({ module: 'dashboard-test', action: 'step', ...body }),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string };
    };
    const producer = await post({ subject: 'producer', input: { q: 1 }, output: { moved: 'lineage-browser' }, outcome: 'failure' });
    const consumer = await post({ subject: 'consumer', input: { moved: 'lineage-browser' }, outcome: 'success' });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, reader, `#/records/${consumer.id}`);
    await page.waitForSelector(`[data-testid="lineage"] [data-lineage-id="${producer.id}"]`);
    await page.fill('#replay-input', JSON.stringify({ moved: 'lineage-browser' }));
    await page.click('button:text-is("Compare")');
    await expect.poll(() => page.textContent('[data-testid="replay-result"]')).toMatch(/^Input matches; output not compared/);
    await page.fill('#replay-input', JSON.stringify({ moved: 'something else' }));
    await page.click('button:text-is("Compare")');
    await expect.poll(() => page.textContent('[data-testid="replay-result"]')).toMatch(/^Input does not match/);
    // The producer's blast radius names the consumer; its link opens the consumer's record.
    await page.evaluate((id) => {
      location.hash = `#/records/${id}`;
    }, producer.id);
    await page.click(`[data-testid="lineage"] [data-lineage-id="${consumer.id}"] a`, { timeout: machineTimeout(5000) });
    await page.waitForSelector(`h1:has-text("Record ${consumer.id}")`, { timeout: machineTimeout(5000) });
    await page.close();
  });

  test('the verifier accepts a good record and rejects a tampered one, in the browser', async () => {
    const made = await record(reader, 'verify-subject');
    const res = await fetch(t.url('token', `/executions/${made.id}`), { headers: { authorization: `Bearer ${reader}` } });
    const good = (await res.json()) as Record<string, unknown>;
    const page = await browser.newPage();
    await page.goto(t.url('dashboard', '/#/verify'));
    await page.fill('#verify-input', JSON.stringify(good));
    await page.click('text=Verify in the browser');
    await expect.poll(() => page.textContent('[data-testid="verifier-report"] p')).toBe('Valid: 1 record checked.');
    await page.fill('#verify-input', JSON.stringify({ ...good, outcome: 'failure' }));
    await page.click('text=Verify in the browser');
    await expect.poll(() => page.textContent('[data-testid="verifier-report"] p')).toMatch(new RegExp(`^Invalid at record ${made.seq}: hash mismatch`));
    await page.close();
  });

  test('the verifier accepts an exported chain and names the tampered record', async () => {
    for (const n of [1, 2, 3]) await record(reader, `export-${n}`);
    const res = await fetch(t.url('token', '/executions/export'), { headers: { authorization: `Bearer ${reader}` } });
    const file = await res.text();
    const lines = file.split('\n');
    const records = lines.filter((l) => /^[0-9a-f]/.test(l)).length;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(t.url('dashboard', '/#/verify'));
    await page.fill('#verify-input', file);
    await page.click('text=Verify in the browser');
    await expect.poll(() => page.textContent('[data-testid="verifier-report"] p')).toBe(`Valid: ${records} records checked.`);
    // Record 2's signed bytes changed: its hash no longer matches; the ones before it still pass.
    const tampered = lines.map((l) => (l.includes('"seq":2,') ? l.replace('"outcome":"success"', '"outcome":"failure"') : l)).join('\n');
    await page.fill('#verify-input', tampered);
    await page.click('text=Verify in the browser');
    await expect.poll(() => page.textContent('[data-testid="verifier-report"] p')).toMatch(/^Invalid at record 2: hash mismatch/);
    await shot(page, 'verifier');
    await page.close();
  });

  test('a token without execution:read sees "not permitted" on the chain view', async () => {
    const other = (await t.mint(['trust:read'], { sub: 'narrow-person' })).token;
    const page = await browser.newPage();
    await signIn(page, other, '#/chain');
    await page.waitForSelector('.not-permitted');
    expect(await page.textContent('.not-permitted')).toContain('CAPABILITY_INSUFFICIENT');
    await page.close();
  });

  test('when the live socket ends (the token revoked), every figure turns UNKNOWN instead of keeping the last values', async () => {
    const minted = await t.mint(['execution:read'], { sub: 'soon-revoked' });
    const page = await browser.newPage();
    await signIn(page, minted.token);
    await page.waitForSelector('tr[data-service="token"][data-state="ready"]', { timeout: machineTimeout(10_000) });
    const res = await fetch(t.url('token', '/auth/token/revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ jti: minted.jti }),
    });
    expect(res.status).toBe(200);
    await page.waitForSelector('tr[data-service="token"][data-state="unknown"]', { timeout: machineTimeout(5000) });
    expect(await page.locator('tr[data-state="ready"]').count()).toBe(0);
    expect(await page.getAttribute('tr[data-service="token"] .unknown', 'title')).toContain('token revoked');
    await page.close();
  });

  test('at a phone width nothing scrolls sideways, and the views are reached by keyboard', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(page, reader);
    await page.waitForSelector('tr[data-service="token"][data-state="ready"]', { timeout: machineTimeout(10_000) });
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    // Tab from the start of the page to the "Trace chain" link, then Enter.
    await page.focus('body');
    let focused = '';
    // From wherever focus was (the page holds many focusable figures), Tab cycles back to the header.
    for (let i = 0; i < 60 && focused !== 'Trace chain'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.textContent ?? '');
    }
    expect(focused).toBe('Trace chain');
    await page.keyboard.press('Enter');
    await page.waitForSelector('table.chain');
    expect(page.url()).toMatch(/#\/chain$/);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.close();
  });

  test('a stopped service shows UNKNOWN with the reason on hover within a few seconds, and recovers when it returns', {
    timeout: machineTimeout(60_000),
  }, async () => {
    const watcher = (await t.mint(['execution:read', 'trust:read', 'queue:read', 'schedule:read', 'bench:read'], { sub: 'figures-person' })).token;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, watcher);
    await page.waitForSelector('tr[data-service="trust"][data-state="ready"]', { timeout: machineTimeout(10_000) });
    await page.waitForSelector('[data-figure="anomalies"][data-state="value"]');
    await page.waitForSelector('[data-figure="queued"][data-state="value"]');
    await shot(page, 'overview');
    const edge = t.suite.edges.find((e) => e.service === 'trust');
    // The port it was given (the suite's port variables are 0: the system chose it).
    const trustPort = edge!.port;
    await edge!.stop();
    const started = Date.now();
    await page.waitForSelector('tr[data-service="trust"][data-state="unknown"]', { timeout: machineTimeout(8000) });
    expect(Date.now() - started).toBeLessThan(8000);
    const title = await page.getAttribute('tr[data-service="trust"] .unknown', 'title');
    expect(title).toMatch(/could not be reached/);
    // The others stay ready: only the stopped one is unknown; so are its key figures, not the others'.
    expect(await page.getAttribute('tr[data-service="token"]', 'data-state')).toBe('ready');
    await page.waitForSelector('[data-figure="anomalies"][data-state="unknown"]', { timeout: machineTimeout(8000) });
    expect(await page.getAttribute('[data-figure="anomalies"] .unknown', 'title')).toMatch(/trust listener could not be reached/);
    expect(await page.getAttribute('[data-figure="queued"]', 'data-state')).toBe('value');
    // The trust listener comes back (a second suite, every role, its trust edge on the same port).
    // It shares the first suite's signing secret, so the page's token is valid there too.
    const back = await startTestSuite({
      ...Object.fromEntries(SERVICES.map((s) => [PORT_VARIABLES[s], '0'])),
      [PORT_VARIABLES.trust]: String(trustPort),
      SUITE_HMAC_SECRET: t.config.hmacSecrets[0] as string,
    });
    try {
      await page.waitForSelector('tr[data-service="trust"][data-state="ready"]', { timeout: machineTimeout(8000) });
      await page.waitForSelector('[data-figure="anomalies"][data-state="value"]', { timeout: machineTimeout(8000) });
    } finally {
      await back.stop();
    }
    await page.close();
  });
});
