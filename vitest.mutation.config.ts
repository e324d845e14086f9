import { defineConfig } from 'vitest/config';

// The unit tests alone, for mutation testing (npm run mutation): StrykerJS runs them once per
// mutant, so the e2e, conformance and browser suites (seconds per test) are left out.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
  },
});
