import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.data/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A stray .only would run one test and pass the rest unseen (CI runs with CI=true, but a local
    // \`npm test\` must refuse it too).
    allowOnly: false,
    // 2 cores in CI: integration tests start real processes; keep parallelism modest.
    maxWorkers: 2,
  },
});
