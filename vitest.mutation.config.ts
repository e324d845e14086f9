import { defineConfig } from 'vitest/config';

// The unit tests alone, for mutation testing (npm run mutation): StrykerJS runs them once per
// mutant, so the e2e, conformance and browser suites (seconds per test) are left out.
// MUTATION_TESTS (comma-separated files or globs) narrows them to the tests of one module: a
// mutant of a module-level constant (a regular expression) runs every selected test, and on 2
// cores the whole unit suite per mutant is too slow. A narrowed run can only score lower.
const focus = process.env.MUTATION_TESTS?.split(',').filter(Boolean);

export default defineConfig({
  test: {
    include: focus?.length ? focus : ['test/unit/**/*.test.ts'],
    // Tests of the tree itself (the generated WebAssembly module matches its generator, the docs
    // match the folders, the import graph) read the checkout, not the mutant's sandbox copy.
    exclude: [
      'test/unit/sha256x4.test.ts',
      'test/unit/docs-layout.test.ts',
      'test/unit/ads-contract-imports.test.ts',
      'test/arch/import-graph.test.ts',
    ],
    testTimeout: 60_000,
    pool: 'forks',
  },
});
