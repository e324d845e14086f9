// How an upload ends, decided in one place from what happened: the exit (by the error to
// throw: 0 none, 2 bad input, 4 partial, 130 interrupted, or the API error's own), the
// journal's fate, and the line that tells the user how to resume.
import { ExitCode, InterruptedError, PartialError, XctlError } from '../core/errors.js';

export interface EndState {
  dryRun: boolean;
  /** Ctrl-C arrived (the batches in flight were drained). */
  interrupted: boolean;
  /** The first batch that could not be delivered. */
  failure?: { batch: number; cause: Error; fatal: boolean };
  /** Input that stopped the run. */
  inputError?: XctlError;
  journal?: { file: string; ackedBatches: number; isDefault: boolean };
  isStdin: boolean;
  read: number;
  valid: number;
  acknowledged: number;
  /** How to resume, when the caller knows better than "re-run the same command". */
  resumeHint?: string;
}

/** none: no journal; close: keep it to resume; remove: nothing in it is worth keeping; done: mark it finished and keep it. */
export type JournalAction = 'none' | 'close' | 'remove' | 'done';

export interface Outcome {
  exit: number;
  journal: JournalAction;
  /** Thrown by the caller (main.ts maps it to the exit). */
  error?: XctlError;
  /** Printed on stderr before the error. */
  notice?: string;
}

export function uploadOutcome(s: EndState): Outcome {
  const j = s.journal;
  const kept = !!j && j.ackedBatches > 0;
  const resumeHint =
    s.resumeHint ??
    (j
      ? `re-run the same command to resume from the journal ${j.file}`
      : s.isStdin
        ? 'stdin input cannot resume without --journal: run again with --journal FILE'
        : 'run again');
  const done = s.dryRun ? `${s.read} records read` : `${s.acknowledged} of ${s.valid} valid records acknowledged`;
  // A journal that acknowledges nothing would only make the next run look like a resume.
  const keepOrDrop: JournalAction = !j ? 'none' : kept ? 'close' : 'remove';
  if (s.inputError) return { exit: s.inputError.exitCode, journal: keepOrDrop, error: s.inputError };
  if (s.interrupted) {
    const error = new InterruptedError('interrupted');
    return {
      exit: error.exitCode,
      journal: j ? 'close' : 'none',
      error,
      notice: s.dryRun ? `stopped: ${done}` : `stopped after draining the batches in flight: ${done}; ${resumeHint}`,
    };
  }
  if (s.failure) {
    const cause = s.failure.cause;
    if (s.failure.fatal && cause instanceof XctlError) {
      const error = kept ? withHint(cause, `${cause.hint ? cause.hint + '; ' : ''}${done}; ${resumeHint}`) : cause;
      return { exit: error.exitCode, journal: keepOrDrop, error };
    }
    const error = new PartialError(`gave up on batch ${s.failure.batch + 1}: ${cause.message}; ${done}`, {
      hint: kept || s.acknowledged > 0 ? resumeHint : 'nothing was acknowledged: run the same command again',
    });
    return { exit: error.exitCode, journal: keepOrDrop, error };
  }
  return { exit: ExitCode.OK, journal: !j ? 'none' : j.isDefault ? 'remove' : 'done' };
}

/**
 * A run stopped by --deadline rather than Ctrl-C: "retry later" (exit 75) with the resume note,
 * not "interrupted".
 */
export function deadlineOutcome(error: XctlError | undefined, signal: AbortSignal): XctlError | undefined {
  const reason: unknown = signal.reason;
  if (
    !(error instanceof InterruptedError) ||
    !(reason instanceof XctlError) ||
    reason.exitCode !== ExitCode.RETRY_LATER
  )
    return error;
  return reason;
}

/** A copy of the error with another hint (the original may be shared; this function stays pure). */
function withHint<E extends XctlError>(e: E, hint: string): E {
  const copy = Object.create(Object.getPrototypeOf(e) as object, Object.getOwnPropertyDescriptors(e)) as E;
  copy.hint = hint;
  return copy;
}
