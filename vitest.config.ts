import { defineConfig } from 'vitest/config';

// This machine (and some CI images) set NODE_EXTRA_CA_CERTS to the whole system bundle, which
// node parses at every start: 40-60 ms of CPU in each CLI process the tests start and in every
// test worker. Nothing here talks to a public host; the tests that need a CA pass their own.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    include: [
      'test/unit/**/*.test.ts',
      'test/arch/**/*.test.ts',
      'test/e2e/**/*.test.ts',
      'test/browser/**/*.test.ts',
      'test/conformance/**/*.test.ts',
    ],
    // e2e tests spawn the real CLI dozens of times; on a loaded 2-core machine one test can take a
    // minute without anything being stuck (a stuck one still fails, and each CLI run has its own kill timer).
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: one worker on a 2-core machine. Much
    // e2e time is spent waiting on CLI processes and the sandbox, so more workers than cores
    // overlap it: on 2 quiet cores vitest took 164 s with 2 workers, 131 s with 3 and with 4.
    maxWorkers: 3,
    reporters: ['default'],
  },
});
