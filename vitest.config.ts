import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/unit/**/*.test.ts',
      'test/e2e/**/*.test.ts',
      'test/browser/**/*.test.ts',
      'test/conformance/**/*.test.ts',
    ],
    // e2e tests spawn the real CLI dozens of times; on a loaded 2-core machine one test can take a
    // minute without anything being stuck (a stuck one still fails, and each CLI run has its own kill timer).
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
