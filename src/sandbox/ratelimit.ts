// Fixed-window rate limits per category and caller, reported in the real headers on every response.

export interface Limit {
  limit: number;
  windowMs: number;
}

// Categories from docs/contract.md, notes "Rate limits" where it names them; the rest are generous.
export const DEFAULT_LIMITS: Record<string, Limit> = {
  default: { limit: 900, windowMs: 15 * 60_000 },
  oauth: { limit: 900, windowMs: 15 * 60_000 },
  webhooks: { limit: 900, windowMs: 15 * 60_000 },
  activity: { limit: 900, windowMs: 15 * 60_000 },
  'ads-read': { limit: 10_000, windowMs: 15 * 60_000 },
  'ads-total-count': { limit: 200, windowMs: 15 * 60_000 },
  'ads-write': { limit: 450, windowMs: 60_000 },
  'audience-upload': { limit: 1500, windowMs: 60_000 },
  // docs/contract.md, notes-2: targeting lookups 400 / 15 min; synchronous analytics 250 / 15 min per user.
  'ads-targeting': { limit: 400, windowMs: 15 * 60_000 },
  'ads-stats': { limit: 250, windowMs: 15 * 60_000 },
  media: { limit: 900, windowMs: 15 * 60_000 },
};

export interface RateState {
  limit: number;
  remaining: number;
  reset: number; // unix seconds
  exceeded: boolean;
}

export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  readonly limits: Record<string, Limit> = { ...DEFAULT_LIMITS };
  /** Overrides every category's limit (faults `rate_limit`). */
  override?: number;

  take(category: string, caller: string, now: number): RateState {
    const l = this.limits[category] ?? this.limits.default!;
    const limit = this.override ?? l.limit;
    const key = `${category}|${caller}`;
    let w = this.windows.get(key);
    if (!w || now >= w.start + l.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return {
      limit,
      remaining: Math.max(0, limit - w.count),
      reset: Math.ceil((w.start + l.windowMs) / 1000),
      exceeded: w.count > limit,
    };
  }

  /** A category's reading for a caller, spending nothing: {limit, remaining, reset}. */
  peek(category: string, caller: string, now: number): { limit: number; remaining: number; reset: number } {
    const l = this.limits[category] ?? this.limits.default!;
    const limit = this.override ?? l.limit;
    const w = this.windows.get(`${category}|${caller}`);
    const live = w && now < w.start + l.windowMs;
    return {
      limit,
      remaining: live ? Math.max(0, limit - w.count) : limit,
      reset: Math.ceil((live ? w.start + l.windowMs : now + l.windowMs) / 1000),
    };
  }

  reset(): void {
    this.windows.clear();
  }
}
