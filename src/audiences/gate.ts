// The reject-rate gate: a file where a fifth of the values cannot be used is almost surely
// mis-mapped (the wrong column, a missing --default-country), and sending the rest would end
// as exit 0 with most of the file lost. The first PRECHECK_VALUES values are checked before
// anything is sent; past them, the running rate is checked after every chunk.
import { PartialError, UsageError, type XctlError } from '../core/errors.js';

/** Values read and checked before the first batch is sent. */
export const PRECHECK_VALUES = 10_000;
/** Without --max-reject-rate: the gate and the values read before it applies. */
export const DEFAULT_MAX_REJECT_RATE = 0.2;
export const DEFAULT_GATE_MIN_VALUES = 1000;

export interface RejectGate {
  /** Highest allowed share of rejected values (1: no gate). */
  max: number;
  /** Values read before the gate applies (small files are not gated by default). */
  minValues: number;
  /** Set by --max-reject-rate (the error names the flag's value). */
  explicit: boolean;
}

/** --max-reject-rate RATE (0-1); absent: 0.2 once 1,000 values are read. */
export function parseRejectGate(flag: string | undefined): RejectGate {
  if (flag === undefined) return { max: DEFAULT_MAX_REJECT_RATE, minValues: DEFAULT_GATE_MIN_VALUES, explicit: false };
  const v = Number(flag);
  if (!/^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(flag) || !(v >= 0 && v <= 1)) {
    throw new UsageError(
      `--max-reject-rate must be a number from 0 to 1, e.g. 0.05 (got "${flag}"); 1 turns the gate off`,
      { flag: '--max-reject-rate' },
    );
  }
  return { max: v, minValues: 1, explicit: true };
}

/** The share of values rejected, rounded to 4 places (0 when none were read). */
export function rejectRate(values: number, rejected: number): number {
  return values > 0 ? Math.round((rejected / values) * 10000) / 10000 : 0;
}

/** True when the counts pass the gate (or it does not apply yet). */
export function withinGate(g: RejectGate, values: number, rejected: number): boolean {
  if (g.max >= 1 || values < g.minValues || values === 0) return true;
  return rejected / values <= g.max;
}

/**
 * The error that stops a run over the gate: before sending, a usage error (exit 2, nothing
 * sent); once batches went out, a partial one (resumable from the journal).
 */
export function gateError(g: RejectGate, values: number, rejected: number, sentBefore: boolean): XctlError {
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  const rate = `${rejected} of the first ${values} values were rejected (${pct(rejected / values)}), more than ${g.explicit ? `--max-reject-rate ${g.max}` : `the ${pct(g.max)} allowed by default`}`;
  const why =
    'a file where this many values cannot be used is most likely mis-mapped (the wrong column, a missing --default-country)';
  const check = 'see what would be sent and why values are rejected with `xctl audiences inspect FILE`';
  const off = `raise the limit with --max-reject-rate RATE (1 turns the gate off)`;
  if (!sentBefore)
    return new UsageError(`${rate}: nothing was sent; ${why}`, { flag: '--max-reject-rate', hint: `${check}; ${off}` });
  return new PartialError(`${rate.replace('the first ', '')}: the run stopped; ${why}`, {
    hint: `${check}; batches before it were sent and are in the journal: to send the rest anyway, re-run the same command with a higher --max-reject-rate (it resumes)`,
  });
}
