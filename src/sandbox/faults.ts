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
  /** Module-specific knobs (e.g. `short_count_rate` for audience uploads). */
  [k: string]: unknown;
}

export interface FaultDecision {
  latencyMs: number;
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
    for (const k of ['error_rate', 'drop_rate'] as const) {
      if (s[k] !== undefined && (typeof s[k] !== 'number' || s[k]! < 0 || s[k]! > 1)) throw new Error(`${k} must be a number from 0 to 1`);
    }
    if (s.status !== undefined && (!Number.isInteger(s.status) || s.status < 400 || s.status > 599)) throw new Error('status must be 400-599');
    if (s.latency_ms !== undefined && (typeof s.latency_ms !== 'number' || s.latency_ms < 0)) throw new Error('latency_ms must be >= 0');
    if (s.rate_limit !== undefined && (!Number.isInteger(s.rate_limit) || s.rate_limit < 0)) throw new Error('rate_limit must be a whole number');
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

/** `error_rate=0.1,status=503,latency_ms=20` or a JSON object. */
export function parseFaultSpec(text: string): FaultSpec {
  const t = text.trim();
  if (t.startsWith('{')) return JSON.parse(t) as FaultSpec;
  const spec: FaultSpec = {};
  for (const part of t.split(',').filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) throw new Error(`expected key=value, got "${part}"`);
    const k = part.slice(0, i).trim();
    const v = part.slice(i + 1).trim();
    spec[k] = v === 'true' ? true : v === 'false' ? false : /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  }
  return spec;
}
