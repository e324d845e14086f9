import { errorMessage } from '../core/errors.js';
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
  /** Module-specific knobs (e.g. `short_count_rate` for audience uploads). */
  [k: string]: unknown;
}

export interface FaultDecision {
  latencyMs: number;
  dropIfGone?: boolean;
  error?: number;
  drop?: boolean;
  after: boolean;
}

export class Faults {
  spec: FaultSpec = {};
  injected = 0;
  private matcher?: RegExp;

  set(spec: FaultSpec): FaultSpec {
    const s: FaultSpec = { ...spec };
    checkFaultSpec(s);
    this.matcher = s.match ? new RegExp(s.match) : undefined;
    this.spec = s;
    this.injected = 0;
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

/**
 * Every fault the sandbox knows, with the value it takes: the one list `--faults`, `sandbox faults
 * set`, POST /_sandbox/faults and their help read. A name not here would be stored and ignored,
 * so it is refused.
 */
export const FAULT_NAMES = {
  error_rate: { value: '0-1', doc: 'probability of answering with `status` instead of handling the request' },
  status: { value: '400-599', doc: 'the status of injected errors (default 503)' },
  latency_ms: { value: 'ms >= 0', doc: 'delay before each matching request is handled' },
  drop_rate: { value: '0-1', doc: 'probability of closing the connection without an answer' },
  rate_limit: { value: 'whole number', doc: "every rate-limit category's limit per window" },
  match: { value: 'regexp', doc: 'only requests whose path matches' },
  method: { value: 'GET|POST|PUT|DELETE', doc: 'only requests with this method' },
  count: { value: 'whole number', doc: 'at most this many faults, then they stop' },
  after: { value: 'true|false', doc: 'inject after the handler ran (the write happened, the answer is lost)' },
  drop_if_gone: {
    value: 'true|false',
    doc: 'a request whose client disconnected before it was handled is not applied',
  },
  short_count_rate: { value: '0-1', doc: 'audience uploads: probability of acknowledging fewer users than sent' },
  stream_drop_rate: { value: '0-1', doc: 'activity stream: probability of dropping the stream after an event' },
} as const satisfies Record<string, { value: string; doc: string }>;

export type FaultName = keyof typeof FAULT_NAMES;

/** `name=value, ...`: the syntax, for errors and help. */
export const FAULT_SYNTAX = 'NAME=VALUE[,NAME=VALUE...] or a JSON object, e.g. error_rate=0.1,status=503,latency_ms=20';

/** The faults as `[name, "value: what it does"]` rows, for help texts. */
export function faultNameRows(): Array<[string, string]> {
  return Object.entries(FAULT_NAMES).map(([k, v]) => [k, `${v.value}: ${v.doc}`]);
}

const isRate = (v: unknown) => typeof v === 'number' && v >= 0 && v <= 1;
const isWhole = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Throws an Error naming the first unknown fault or bad value. */
export function checkFaultSpec(s: FaultSpec): void {
  for (const k of Object.keys(s)) {
    if (!(k in FAULT_NAMES))
      throw new Error(`unknown fault "${k.slice(0, 40)}"; known: ${Object.keys(FAULT_NAMES).join(', ')}`);
  }
  for (const k of ['error_rate', 'drop_rate', 'short_count_rate', 'stream_drop_rate'] as const) {
    if (s[k] !== undefined && !isRate(s[k])) throw new Error(`${k} must be a number from 0 to 1`);
  }
  if (s.status !== undefined && (!Number.isInteger(s.status) || s.status < 400 || s.status > 599))
    throw new Error('status must be 400-599');
  if (s.latency_ms !== undefined && (typeof s.latency_ms !== 'number' || !(s.latency_ms >= 0)))
    throw new Error('latency_ms must be >= 0');
  if (s.rate_limit !== undefined && !isWhole(s.rate_limit)) throw new Error('rate_limit must be a whole number');
  if (s.count !== undefined && !isWhole(s.count)) throw new Error('count must be a whole number');
  if (s.after !== undefined && typeof s.after !== 'boolean') throw new Error('after must be true or false');
  if (s.drop_if_gone !== undefined && typeof s.drop_if_gone !== 'boolean')
    throw new Error('drop_if_gone must be true or false');
  if (s.method !== undefined && (typeof s.method !== 'string' || !/^[A-Za-z]{1,10}$/.test(s.method)))
    throw new Error('method must be an HTTP method such as GET');
  if (s.match !== undefined) {
    if (typeof s.match !== 'string') throw new Error('match must be a regular expression (a string)');
    try {
      new RegExp(s.match);
    } catch (e) {
      throw new Error(`match is not a valid regular expression: ${errorMessage(e)}`);
    }
  }
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
