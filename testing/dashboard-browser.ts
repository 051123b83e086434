import { createRequire } from 'node:module';
import { pino } from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureDashboardBuilt } from '../cli/dashboard-build.ts';
import { startTestSuite, type TestSuite } from './suite.ts';

/**
 * The dashboard in a real browser (Debian's chromium, driven by playwright-core) against a real suite
 * in the test's process, every listener on a port of its own choosing (port 0): the dashboard's
 * probes and proxy reach them at the ports they were bound to (cli/runtime.ts). The browser tests (integration/dashboard-*.test.ts) share this.
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

export async function startDashboardBrowser(env: Record<string, string> = {}): Promise<DashboardBrowser> {
  ensureDashboardBuilt(pino({ level: 'silent' }));
  // startTestSuite binds port 0 for every listener and reads the ports back.
  const t = await startTestSuite(env);
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

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core');
/** axe-core's WCAG 2.0 and 2.1 A and AA rules, and its best practices (landmarks, heading order). */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export interface Violation { route: string; id: string; impact: string; targets: string[]; help: string }

/** axe-core's violations on the page as it is now, each with the elements it names. */
export async function axeViolations(page: Page, route: string): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_PATH });
  const found = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run(c: Document, o: unknown): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  }, AXE_TAGS);
  return found.map((v) => ({ route, ...v }));
}

export const describeViolations = (all: Violation[]) => all.map((v) => `${v.route}: ${v.id} (${v.impact}) ${v.help}: ${v.targets.join(', ')}`).join('\n');
