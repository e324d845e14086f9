import { errorMessage } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import { FAULT_NAMES, SANDBOX_ADMIN_ENDPOINTS } from '../contract/sandbox-admin.js';
import { messageOf, validate } from '../contract/params.js';
// Fault injection: errors, latency, dropped connections and rate limits, for every non-admin request.

export interface FaultSpec {
  /** Probability (0-1) of answering with `status` instead of handling the request. */
  error_rate?: number;
  status?: number;
  latency_ms?: number;
  /** Probability (0-1) of closing the connection without an answer. */
  drop_rate?: number;
  /** Overrides every rate-limit category's limit. */
  rate_limit?: number;
  /** Only requests whose path matches this regular expression. */
  match?: string;
  /** Only requests with this method. */
  method?: string;
  /** At most this many faults (errors and drops), then the fault clears. */
  count?: number;
  /** Inject the error or drop after the handler ran (the write happened, the answer is lost). */
  after?: boolean;
  /**
   * A request whose client disconnected before it was handled is not applied (a real server may
   * drop it). With latency_ms, a client killed mid-request loses its requests in flight.
   */
  drop_if_gone?: boolean;
  /**
   * The n-th matching request (from 1, counted since the faults were set) is never handled: held
   * until its client goes away, then dropped. A kill point a test can choose: the client is
   * killed with that request in flight, whatever the machine's load.
   */
  hold?: number;
  /** Module-specific knobs (e.g. `short_count_rate` for audience uploads). */
  [k: string]: unknown;
}

export interface FaultDecision {
  latencyMs: number;
  dropIfGone?: boolean;
  hold?: boolean;
  error?: number;
  drop?: boolean;
  after: boolean;
}

export class Faults {
  spec: FaultSpec = {};
  injected = 0;
  /** Matching requests since the faults were set (`hold` counts them). */
  private seen = 0;
  private matcher?: RegExp;

  set(spec: FaultSpec): FaultSpec {
    const s: FaultSpec = { ...spec };
    checkFaultSpec(s);
    this.matcher = s.match ? new RegExp(s.match) : undefined;
    this.spec = s;
    this.injected = 0;
    this.seen = 0;
    return s;
  }

  applies(method: string, path: string): boolean {
    if (this.matcher && !this.matcher.test(path)) return false;
    if (this.spec.method && this.spec.method.toUpperCase() !== method) return false;
    return true;
  }

  decide(method: string, path: string): FaultDecision {
    const s = this.spec;
    const d: FaultDecision = { latencyMs: 0, after: !!s.after };
    if (!this.applies(method, path)) return d;
    d.hold = ++this.seen === s.hold;
    d.latencyMs = s.latency_ms ?? 0;
    d.dropIfGone = s.drop_if_gone === true;
    if (s.count !== undefined && this.injected >= s.count) return d;
    if (s.drop_rate && Math.random() < s.drop_rate) {
      d.drop = true;
      this.injected++;
    } else if (s.error_rate && Math.random() < s.error_rate) {
      d.error = s.status ?? 503;
      this.injected++;
    }
    return d;
  }

  /** A module-specific fault ("short_count_rate"...), counted against `count`. */
  roll(name: string, method: string, path: string): boolean {
    const rate = this.spec[name];
    if (typeof rate !== 'number' || !this.applies(method, path)) return false;
    if (this.spec.count !== undefined && this.injected >= this.spec.count) return false;
    if (Math.random() < rate) {
      this.injected++;
      return true;
    }
    return false;
  }
}

// Every fault the sandbox knows, and the check of a spec: the contract's (POST /_sandbox/faults).
export { FAULT_NAMES, type FaultName } from '../contract/sandbox-admin.js';

/** `name=value, ...`: the syntax, for errors and help. */
export const FAULT_SYNTAX = 'NAME=VALUE[,NAME=VALUE...] or a JSON object, e.g. error_rate=0.1,status=503,latency_ms=20';

/** The faults as `[name, "value: what it does"]` rows, for help texts. */
export function faultNameRows(): Array<[string, string]> {
  return Object.entries(FAULT_NAMES).map(([k, v]) => [k, `${v.value}: ${v.doc}`]);
}

/** Throws an Error naming the first unknown fault or bad value: validate() of POST /_sandbox/faults. */
export function checkFaultSpec(s: FaultSpec): void {
  const v = validate(SANDBOX_ADMIN_ENDPOINTS.setFaults, { body: s });
  if (!v) return;
  // A mistyped name (eror_rate): the closest known one, as for flags.
  const unknown = Object.keys(s).find((k) => !(k in FAULT_NAMES));
  throw new Error(
    `${messageOf(v, 'service')}${unknown !== undefined ? didYouMean(unknown, Object.keys(FAULT_NAMES)) : ''}`,
  );
}

/** `error_rate=0.1,status=503,latency_ms=20` or a JSON object; names and values checked. */
export function parseFaultSpec(text: string): FaultSpec {
  const t = text.trim();
  if (t.startsWith('{')) {
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch (e) {
      throw new Error(`not valid JSON: ${errorMessage(e)}`);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('the JSON must be an object');
    checkFaultSpec(v as FaultSpec);
    return v as FaultSpec;
  }
  const spec: FaultSpec = {};
  for (const part of t.split(',').filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) throw new Error(`expected key=value, got "${part}"`);
    const k = part.slice(0, i).trim();
    const v = part.slice(i + 1).trim();
    spec[k] = v === 'true' ? true : v === 'false' ? false : /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  }
  checkFaultSpec(spec);
  return spec;
}
