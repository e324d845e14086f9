// Every global flag has an environment variable, so that a CI job sets them once for all its
// steps (issue 33). A flag on the command line wins over its variable. Boolean variables take
// 1/true/yes (and 0/false/no to say no), never "any value": XCTL_YES=0 must not confirm.
import { UsageError } from './errors.js';
import { parseDuration } from '../contract/time.js';

/** The globals that have a variable (a subset of context.ts GlobalOptions, which extends it). */
export interface EnvGlobals {
  quiet?: boolean;
  verbose?: boolean;
  yes?: boolean;
  sandbox?: boolean;
  progress?: boolean;
  maxWait?: string;
  deadline?: string;
}

type Env = Record<string, string | undefined>;

/** The boolean globals and their variables; `invert`: the variable says no to the flag's value. */
const BOOLEAN_VARS: Array<[keyof EnvGlobals, string, boolean?]> = [
  ['quiet', 'XCTL_QUIET'],
  ['verbose', 'XCTL_VERBOSE'],
  ['yes', 'XCTL_YES'],
  ['sandbox', 'XCTL_SANDBOX'],
  ['progress', 'XCTL_NO_PROGRESS', true],
];

/** The value globals and their variables (XCTL_BASE_URL, XCTL_ACCOUNT_ID, XCTL_OUTPUT and XCTL_PROFILE are read where they are used). */
const VALUE_VARS: Array<[keyof EnvGlobals, string]> = [
  ['maxWait', 'XCTL_MAX_WAIT'],
  ['deadline', 'XCTL_DEADLINE'],
];

function flag(env: Env, name: string): boolean | undefined {
  const v = env[name];
  if (v === undefined || v.trim() === '') return undefined;
  if (/^(1|true|yes|on)$/i.test(v.trim())) return true;
  if (/^(0|false|no|off)$/i.test(v.trim())) return false;
  throw new UsageError(`${name} must be 1 or 0 (true/false, yes/no) (got "${v}")`);
}

/** The globals with each flag the command line left unset taken from its variable. */
export function withEnvGlobals<G extends EnvGlobals>(g: G, env: Env): G {
  const out: G = { ...g };
  const rec = out as Record<string, unknown>;
  for (const [key, name, invert] of BOOLEAN_VARS) {
    const v = flag(env, name);
    if (v === undefined) continue;
    // commander sets a negatable flag (--no-progress) to true by default: only false is explicit.
    if (invert ? rec[key] !== false : rec[key] === undefined) rec[key] = invert ? !v : v;
  }
  for (const [key, name] of VALUE_VARS)
    if (rec[key] === undefined && env[name] !== undefined && env[name] !== '') rec[key] = env[name];
  return out;
}

/** --deadline / XCTL_DEADLINE: 90, 90s, 15m, 2h (whole or decimal; a bare number is seconds), as milliseconds. */
export function parseDeadline(v: string, flagName = '--deadline'): number {
  const ms = parseDuration(v, { bare: 's', units: ['ms', 's', 'm', 'h'] });
  if (ms === undefined || !(ms > 0))
    throw new UsageError(`${flagName} must be a duration such as 90s, 15m or 2h (got "${v}")`, { flag: '--deadline' });
  return ms;
}
