import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';

/**
 * The vitest global setup of the files that drive Chromium (vitest.config.ts, project `chromium`):
 * one Chromium for all of them, which each file connects to (testing/dashboard-browser.ts) instead
 * of launching its own. Vitest runs it once per run that includes one of those files, so a file
 * run alone (`npx vitest run integration/dashboard-trust.test.ts`) gets it too. Each file still
 * opens its pages in contexts of its own, which share no cookie, storage or cache with another's.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's WebSocket endpoint (BrowserType.connect). */
    dashboardChromium: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  project.provide('dashboardChromium', server.wsEndpoint());
  return () => server.close();
}
