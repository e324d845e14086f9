// The one ISO 8601 parser, and the service's timestamp form. Every time parameter on both sides
// (ads time params, audience effective_at/expires_at, webhook replay windows) goes through here.

// Date, then optionally a time with a zone. Seconds and a fraction are optional.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:([T ])(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

export interface IsoParts {
  ms: number;
  minute: string;
  second?: string;
  fraction?: string;
}

/**
 * Parses an ISO 8601 date-time with a zone (2026-01-31T14:00:00Z) to its parts, or undefined.
 * `loose` (the audience upload endpoints) also takes a date alone and a space for the T.
 * Days the month does not have are refused (Date.parse would roll 2026-02-30 into March).
 */
export function parseIsoParts(s: string, o: { loose?: boolean } = {}): IsoParts | undefined {
  const m = ISO.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, sep, hh, mm, ss, frac] = m;
  if (sep === undefined ? !o.loose : sep === ' ' && !o.loose) return undefined;
  if (!o.loose && frac !== undefined && frac.length > 4) return undefined;
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d))
    return undefined;
  if (Number(hh ?? 0) > 23 || Number(mm ?? 0) > 59 || Number(ss ?? 0) > 59) return undefined;
  const ms = Date.parse(sep === ' ' ? s.replace(' ', 'T') : s);
  if (Number.isNaN(ms)) return undefined;
  return { ms, minute: mm ?? '00', second: ss, fraction: frac };
}

/** Epoch ms of an ISO 8601 date-time (see parseIsoParts), or undefined. */
export function parseIsoTime(s: string, o: { loose?: boolean } = {}): number | undefined {
  return parseIsoParts(s, o)?.ms;
}

const INSTANT = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)(Z|[+-]\d{2}(?::?\d{2})?))?$/;

/**
 * A point in time as the ads API takes it (line items, stats; docs/contract.md, notes-2 4): a date alone
 * (midnight UTC) or a date-time whose offset may also be `±HH`; undefined otherwise.
 */
export function parseInstant(s: string): number | undefined {
  const m = INSTANT.exec(s);
  if (!m) return undefined;
  if (m[2] === undefined) return parseIsoTime(`${m[1]}T00:00:00Z`);
  const z3 = m[3]!;
  const zone = z3.length === 3 ? `${z3}:00` : z3.length === 5 ? `${z3.slice(0, 3)}:${z3.slice(3)}` : z3;
  return parseIsoTime(`${m[1]}T${m[2]}${zone}`);
}

/** ISO 8601 UTC to the second, as the service writes timestamps. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `ms` moved by `n` calendar months in UTC (Jan 31 + 1 month rolls into March, as Date does). */
export function addMonthsUtc(ms: number, n: number): number {
  const d = new Date(ms);
  d.setUTCMonth(d.getUTCMonth() + n);
  return d.getTime();
}

export type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd';

const UNIT_MS: Record<DurationUnit, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The one duration parser: "29h", "30m", "90s", "1d", "1500ms" or a bare number, in milliseconds
 * (rounded), or undefined. `bare` is the unit of a bare number: milliseconds for the sandbox clock
 * (POST /_sandbox/clock), seconds for --deadline and `auth login --timeout`; `units` the suffixes
 * taken (all by default).
 */
export function parseDuration(
  v: unknown,
  o: { bare?: DurationUnit; units?: readonly DurationUnit[] } = {},
): number | undefined {
  const bare = o.bare ?? 'ms';
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v * UNIT_MS[bare] : undefined;
  if (typeof v !== 'string') return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(v.trim());
  if (!m) return undefined;
  const unit = (m[2] as DurationUnit | undefined) ?? bare;
  if (o.units && !o.units.includes(unit)) return undefined;
  return Math.round(Number(m[1]) * UNIT_MS[unit]);
}

const RELATIVE = /^(now|today)(?:([+-])(\d{1,5})(m|h|d))?$/;
const REL_UNIT_MS: Record<string, number> = { m: UNIT_MS.m, h: UNIT_MS.h, d: UNIT_MS.d };

/**
 * A time relative to `nowMs`, as the CLI takes it wherever a time flag does (issue 46: examples
 * that work on any day): `now`, `now-2h`, `today` (midnight UTC), `today-7d`, `today+1d`; units
 * m, h, d. Epoch ms, or undefined when `s` is not of that form. Only the CLI reads this: what it
 * sends is the ISO 8601 time.
 */
export function parseRelativeTime(s: string, nowMs: number): number | undefined {
  const m = RELATIVE.exec(s.trim());
  if (!m) return undefined;
  const base = m[1] === 'today' ? Math.floor(nowMs / 86_400_000) * 86_400_000 : nowMs;
  if (m[2] === undefined) return base;
  const n = Number(m[3]) * REL_UNIT_MS[m[4]!]!;
  return m[2] === '-' ? base - n : base + n;
}
