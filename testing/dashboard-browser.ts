import { pino } from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { ensureDashboardBuilt } from '../cli/dashboard-build.ts';
import { CHROMIUM, CHROMIUM_ARGS } from './dashboard-chromium.ts';
import { startTestSuite, type TestSuite } from './suite.ts';

/**
 * The dashboard in a real browser (Debian's chromium, driven by playwright-core) against a real suite
 * in the test's process, every listener on a port of its own choosing (port 0): the dashboard's
 * probes and proxy reach them at the ports they were bound to (cli/runtime.ts). The browser tests (integration/dashboard-*.test.ts) share this.
 */
export { CHROMIUM };

/** `UPDATE_DOCS=1` also writes each view's screenshot at 1280x800 into docs/screenshots/ (docs/DASHBOARD.md). */
export const UPDATE_DOCS = process.env.UPDATE_DOCS === '1';

/**
 * The browser files' one Chromium (testing/dashboard-chromium.ts, their vitest global setup),
 * connected to; else, for a file outside that project, a Chromium of its own. Closing a connected
 * browser closes its contexts and disconnects, leaving the browser to the other files.
 */
export async function testBrowser(): Promise<Browser> {
  const shared = inject('dashboardChromium');
  return shared ? chromium.connect(shared) : chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface DashboardBrowser {
  readonly t: TestSuite;
  readonly browser: Browser;
  /** A page at 1280x800 (or the given width), signed in with the token, at `hash` (`#/chain`). */
  open(token: string, hash?: string, width?: number): Promise<Page>;
  /** Writes docs/screenshots/<name>.png when UPDATE_DOCS=1. */
  shot(page: Page, name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startDashboardBrowser(env: Record<string, string> = {}): Promise<DashboardBrowser> {
  ensureDashboardBuilt(pino({ level: 'silent' }));
  // startTestSuite binds port 0 for every listener and reads the ports back.
  const t = await startTestSuite(env);
  const browser = await testBrowser();
  return {
    t,
    browser,
    async open(token, hash = '', width = 1280) {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      await page.goto(t.url('dashboard', `/${hash}`));
      await page.fill('#token', token);
      await page.press('#token', 'Enter');
      return page;
    },
    async shot(page, name) {
      if (UPDATE_DOCS) await page.screenshot({ path: `docs/screenshots/${name}.png` });
    },
    async stop() {
      await browser.close();
      await t.stop();
    },
  };
}
