// What the real process would end with, for an in-process run: main.ts maps an XctlError to its
// exit code and prints "error: message" and "hint: ..."; commander's own errors (an unknown
// option, a missing argument, a bad choice) are exit 2 with commander's words.
import { XctlError } from '../../src/core/errors.js';

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
        // program.ts's outputError puts commander's "Did you mean" on the error's line
        error: String(c.message)
          .replace(/^error: /, '')
          .replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)'),
      };
    throw e;
  }
}
