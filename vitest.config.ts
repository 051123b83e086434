import { defineConfig } from 'vitest/config';
import { machineTimeout } from './testing/machine-time.ts';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.data/**'],
    // What a test or hook may take on a quiet machine, times how much slower this one runs now
    // (testing/machine-time.ts): a fixed 30 s failed tests of 3 s at load 5-12 (issue 35 item 12).
    testTimeout: machineTimeout(30_000),
    hookTimeout: machineTimeout(60_000),
    pool: 'forks',
    // A stray .only would run one test and pass the rest unseen (CI runs with CI=true, but a local
    // \`npm test\` must refuse it too).
    allowOnly: false,
    // 2 cores in CI: integration tests start real processes; keep parallelism modest.
    maxWorkers: 2,
  },
});
