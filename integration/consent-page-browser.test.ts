import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSENT_PAGE_HEADERS, csrfToken, renderConsentPage } from '../core/authorization/index.ts';
import { testBrowser } from '../testing/dashboard-browser.ts';
import { axeViolations, describeViolations } from '../testing/axe.ts';

// The consent page's rendering and headers in a real Chromium, before the grants serve it: axe on
// the document as rendered, and a frame attempt refused by the browser on the headers alone.
let server: Server;
let browser: Browser;
let base: string;

beforeAll(async () => {
  const html = renderConsentPage({
    action: '/consent',
    requestId: 'r',
    csrf: csrfToken(new Uint8Array(32), 'r'),
    clientName: 'Desk App',
    scopes: ['tool:search', 'tool:invoice:read'],
    resource: 'https://suite.example/mcp',
    maxLifetimeSeconds: 3600,
  });
  server = createServer((req, res) => {
    if (req.url === '/consent') {
      res.writeHead(200, CONSENT_PAGE_HEADERS).end(html);
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>attacker</title><iframe id="f" src="/consent" title="consent"></iframe>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  browser = await testBrowser();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('the consent page in Chromium', () => {
  it('passes axe', async () => {
    // The page's own CSP forbids injected scripts (axe included): the audit context bypasses it.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${base}/consent`);
    const violations = await axeViolations(page, '/consent');
    expect(violations, describeViolations(violations)).toEqual([]);
    expect(await page.getByLabel('Admin key').count()).toBe(1);
    expect(await page.getByLabel('tool:search').isChecked()).toBe(true);
    await context.close();
  });

  it('lets a person untick a scope by its label', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/consent`);
    await page.getByLabel('tool:invoice:read').uncheck();
    expect(await page.getByLabel('tool:invoice:read').isChecked()).toBe(false);
    await page.close();
  });

  it("is not rendered inside another site's frame", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/attacker`);
    await page.waitForLoadState('load');
    const frame = page.frames().find((f) => f !== page.mainFrame());
    // Chromium replaces a refused frame's document with an empty error page: no form reaches the person.
    expect(frame).toBeDefined();
    const buttons = await frame!.locator('button').count();
    expect(buttons).toBe(0);
    await page.close();
  });
});
