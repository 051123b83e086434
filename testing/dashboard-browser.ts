import { createServer } from 'node:net';
import { pino } from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { SERVICES, PORT_VARIABLES } from '../config/index.ts';
import { ensureDashboardBuilt } from '../cli/dashboard-build.ts';
import { startTestSuite, type TestSuite } from './suite.ts';

/**
 * The dashboard in a real browser (Debian's chromium, driven by playwright-core) against a real suite
 * in the test's process, every listener on a fixed free port so the dashboard's probes and proxy
 * reach them. The browser tests (integration/dashboard-*.test.ts) share this.
 */
export const CHROMIUM = '/usr/bin/chromium';

/** `UPDATE_DOCS=1` also writes each view's screenshot at 1280x800 into docs/screenshots/ (docs/DASHBOARD.md). */
export const UPDATE_DOCS = process.env.UPDATE_DOCS === '1';

export interface DashboardBrowser {
  readonly t: TestSuite;
  readonly browser: Browser;
  /** A page at 1280x800 (or the given width), signed in with the token, at `hash` (`#/chain`). */
  open(token: string, hash?: string, width?: number): Promise<Page>;
  /** Writes docs/screenshots/<name>.png when UPDATE_DOCS=1. */
  shot(page: Page, name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startDashboardBrowser(env: Record<string, string> = {}): Promise<DashboardBrowser> {
  ensureDashboardBuilt(pino({ level: 'silent' }));
  const ports: Record<string, string> = {};
  for (const s of SERVICES) ports[PORT_VARIABLES[s]] = String(await freePort());
  const t = await startTestSuite({ ...ports, ...env });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
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
