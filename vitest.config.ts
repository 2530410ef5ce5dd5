import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every test file gets its own database cloned from a migrated template, so files run in parallel.
    fileParallelism: true,
    // In CI a JSON report too, from which .ci/run prints the plain "N passed, N failed" line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.ci/test-results.json' }]] : ['default'],
  },
});
