// A run that stopped part-way (exit 4, 130, or an API error with a journal kept) still owes the
// pipeline its summary: with JSON output it is printed on stdout with a "status", then the
// error leaves through main.ts as usual (issue 33: the artifact is needed exactly then).
import type { Context } from '../../context.js';
import { ExitCode, XctlError } from '../../core/errors.js';
import { effectiveFormat, printOne } from '../../core/output.js';

export function statusOf(exit: number): string {
  // A --deadline stop (75) is resumable as a partial run is: the same command finishes it.
  if (exit === ExitCode.PARTIAL || exit === ExitCode.RETRY_LATER) return 'partial';
  if (exit === ExitCode.DIVERGED) return 'diverged';
  return exit === ExitCode.INTERRUPTED ? 'interrupted' : 'failed';
}

/** Runs `fn`; when it throws an error carrying a summary and the output is JSON, prints that first. */
export async function withPartialSummary<T>(ctx: Context, fields: string[], fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof XctlError && e.summary && e.exitCode !== ExitCode.USAGE) {
      const settings = await ctx.output().catch(() => undefined);
      const format = settings && effectiveFormat(ctx.io, settings);
      // A diverged run finished: its summary (with the service's size) is its answer in any format.
      const diverged = e.exitCode === ExitCode.DIVERGED;
      if (settings && (diverged || format === 'json' || format === 'jsonl' || settings.jq !== undefined)) {
        await printOne(
          ctx.io,
          settings,
          { status: statusOf(e.exitCode), ...e.summary },
          { knownFields: ['status', ...fields] },
        );
      }
    }
    throw e;
  }
}
