import { defineConfig } from 'vitest/config';
import { machineTimeout } from './testing/machine-time.ts';

/** The files that drive Chromium: they share one (testing/dashboard-chromium.ts). */
const BROWSER_FILES = ['integration/dashboard-*.test.ts', 'integration/consent-page-browser.test.ts', 'integration/suite/oauth-consent-browser.test.ts'];

export default defineConfig({
  test: {
    exclude: ['node_modules/**', '.data/**'],
    // What a test or hook may take on a quiet machine, times how much slower this one runs now
    // (testing/machine-time.ts): a fixed 30 s failed tests of 3 s at load 5-12 (issue 35 item 12).
    testTimeout: machineTimeout(30_000),
    hookTimeout: machineTimeout(60_000),
    // expect.poll's own default is 1 s whatever the machine: a dashboard re-read after a click took
    // longer beside a CPU hog (two browser tests failed so). 5 s on a quiet machine, scaled.
    expect: { poll: { timeout: machineTimeout(5_000) } },
    pool: 'forks',
    // A stray .only would run one test and pass the rest unseen (CI runs with CI=true, but a local
    // \`npm test\` must refuse it too).
    allowOnly: false,
    // 2 cores in CI: integration tests start real processes; keep parallelism modest.
    maxWorkers: 2,
    // Two projects of one pool, run side by side: they differ only in the browser files' global
    // setup, which starts their Chromium when a run includes one of them (and only then).
    projects: [
      // (`extends` merges arrays: each project names its own files, not the root.)
      { extends: true, test: { name: 'suite', include: ['**/*.test.ts'], exclude: BROWSER_FILES } },
      { extends: true, test: { name: 'chromium', include: BROWSER_FILES, globalSetup: ['testing/dashboard-chromium.ts'] } },
    ],
  },
});
