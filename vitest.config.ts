import { defineConfig } from 'vitest/config';

/**
 * Tests that time the event loop (gaps between /healthz answers while a hostile input is
 * processed). They run after the rest, alone, as `--project timing`: beside the other test
 * files (child processes, browsers, a minute of polling load) a 2-core machine leaves
 * scheduling gaps of 100–250 ms that are not stalls of ours.
 */
const TIMING = ['test/security/event-loop-stall.test.ts', 'test/security/hostile-repository-job.test.ts'];

/**
 * Under CI each run also writes vitest's JSON report, so `.ci/run` can list the slowest
 * files (scripts/slowest-test-files.mjs): the suite's wall time is CI's feedback loop, and
 * without per-file times nobody can tell which files to make faster.
 */
const ciReport = `test-results/vitest-${process.pid}.json`;

export default defineConfig({
  test: {
    reporters: process.env.CI ? ['default', ['json', { outputFile: ciReport }]] : ['default'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], exclude: TIMING } },
      { extends: true, test: { name: 'timing', include: TIMING } },
    ],
  },
});
