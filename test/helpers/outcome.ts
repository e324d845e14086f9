// What the real process would end with, for an in-process run: main.ts maps an XctlError to its
// exit code and prints "error: message" and "hint: ..."; commander's own errors (an unknown
// option, a missing argument, a bad choice) are exit 2 with commander's words.
import { expect } from 'vitest';
import { XctlError } from '../../src/core/errors.js';
import { commanderMessage } from '../../src/program.js';

export interface Outcome {
  code: number;
  /** The error line without "error: " (undefined on success). */
  error?: string;
  hint?: string;
}

export async function outcome(p: Promise<unknown>): Promise<Outcome> {
  try {
    await p;
    return { code: 0 };
  } catch (e) {
    if (e instanceof XctlError) return { code: e.exitCode, error: e.message, hint: e.hint };
    const c = e as { code?: unknown; message?: string };
    if (typeof c.code === 'string' && c.code.startsWith('commander.'))
      return {
        code: 2,
        // as program.ts's outputError prints it
        error: commanderMessage(String(c.message)).replace(/^error: /, ''),
      };
    throw e;
  }
}

/** One case of a bad-input corpus run in-process: the argv, its exit code, what its error line says. */
export interface CorpusCase {
  args: string[];
  code: number;
  /** What the error line must say. */
  re: RegExp;
  env?: Record<string, string>;
}

/**
 * Runs each case in a fresh context (`make`), expecting its exit code and a one-line error that
 * matches; `also` checks more of the same run (its label names the command and its outcome).
 */
export async function expectCorpus<C extends { run(argv: string[]): Promise<unknown>; cleanup(): void }>(
  cases: CorpusCase[],
  make: (c: CorpusCase) => C,
  also: (t: C, label: string, o: Outcome) => void = () => {},
): Promise<void> {
  for (const c of cases) {
    const t = make(c);
    try {
      const o = await outcome(t.run(c.args));
      const label = `xctl ${c.args.join(' ')}: ${JSON.stringify(o)}`;
      expect(o.code, label).toBe(c.code);
      expect(o.error, label).toMatch(c.re);
      expect(o.error, label).not.toContain('\n');
      also(t, label, o);
    } finally {
      t.cleanup();
    }
  }
}
