// Parameter builders (each a zod schema whose issues state the rule), cross-field rule helpers,
// and the one validation function the CLI and the sandbox both run.
import * as z from 'zod';
import type { ParamDef, ParamKind, Rule, RuleEnv, Values, Violation } from './resource-types.js';
import { isoSeconds, parseInstant, parseIsoParts } from '../contract/time.js';
import { NUMERIC_ID } from '../contract/ids.js';
import { isOneOf } from '../contract/guards.js';

export function kebab(name: string): string {
  return '--' + name.replace(/_/g, '-');
}

// Wire values are strings (argv, query, form); JSON bodies may carry numbers and booleans.
const toStr = (v: unknown) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v);
const wire = (inner: z.ZodType<unknown>): z.ZodType<unknown> => z.preprocess(toStr, inner) as z.ZodType<unknown>;
const str = () => z.string({ error: 'must be a string' });

interface Common {
  required?: boolean;
  help?: string;
  default?: unknown;
  writeOnly?: boolean;
  /** 'now' (ISO time of the CLI's clock) or a fixed value the CLI sends when the flag is absent. */
  cliDefault?: string;
}

function def(
  name: string,
  kind: ParamKind,
  build: () => z.ZodType<unknown>,
  o: Common & { rule?: string; enumValues?: readonly string[] },
): ParamDef {
  const d = { name, flag: kebab(name), kind } as ParamDef;
  lazySchema(d, () => wire(build()));
  if (o.required) d.required = true;
  if (o.default !== undefined) d.default = o.default;
  if (o.rule) d.rule = o.rule;
  if (o.help) d.help = o.help;
  if (o.enumValues) d.enumValues = o.enumValues;
  if (o.writeOnly) d.writeOnly = true;
  if (o.cliDefault !== undefined) {
    const v = o.cliDefault;
    d.cliDefault = v === 'now' ? (env) => isoSeconds(env.nowMs) : () => v;
  }
  return d;
}

/**
 * Gives a parameter a schema built on first use. The ads table holds a few hundred parameters;
 * a command validates the handful it was given, so it builds only those (zod schemas cost
 * microseconds each to construct, which adds up to tens of milliseconds for the whole table).
 */
export function lazySchema(d: ParamDef, build: () => z.ZodType<unknown>): ParamDef {
  let built: z.ZodType<unknown> | undefined;
  Object.defineProperty(d, 'schema', {
    enumerable: true,
    configurable: true,
    get: () => (built ??= build()),
    set: (v: z.ZodType<unknown>) => {
      built = v;
    },
  });
  return d;
}

/** Replaces a parameter's schema by one built from it, still on first use. */
export function wrapSchema(d: ParamDef, wrap: (inner: z.ZodType<unknown>) => z.ZodType<unknown>): ParamDef {
  const before = Object.getOwnPropertyDescriptor(d, 'schema');
  const inner = before?.get ? (before.get as () => z.ZodType<unknown>) : () => before?.value as z.ZodType<unknown>;
  return lazySchema(d, () => wrap(inner()));
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;

export const p = {
  /** Free text; `max` and `min` are character counts (spec section 8 "Text lengths"). */
  str(name: string, o: Common & { max?: number; min?: number; pattern?: RegExp; patternRule?: string } = {}): ParamDef {
    const build = () => {
      let s = str();
      if (o.min !== undefined)
        s = s.min(o.min, { error: o.min === 1 ? 'must not be empty' : `must be at least ${o.min} characters` });
      if (o.max !== undefined) s = s.max(o.max, { error: `must be at most ${o.max} characters` });
      if (o.pattern) s = s.regex(o.pattern, { error: `must be ${o.patternRule ?? `like ${o.pattern}`}` });
      return s;
    };
    const rule = [
      o.min !== undefined && o.max !== undefined
        ? `${o.min}-${o.max} chars`
        : o.max !== undefined
          ? `max ${o.max} chars`
          : '',
      o.patternRule ?? '',
    ]
      .filter(Boolean)
      .join('; ');
    return def(name, 'string', build, { ...o, rule });
  },
  /** An identifier (string of letters, digits, - and _). */
  id(name: string, o: Common = {}): ParamDef {
    return def(name, 'id', () => str().regex(ID, { error: 'must be an id (letters, digits, - and _)' }), o);
  },
  /** A 64-bit integer identifier, kept as a string of digits (user_id, tweet ids). */
  long(name: string, o: Common = {}): ParamDef {
    return def(name, 'long', () => str().regex(NUMERIC_ID, { error: 'must be a whole number (digits only)' }), {
      ...o,
      rule: 'long',
    });
  },
  /** An integer in a range. */
  int(name: string, o: Common & { min?: number; max?: number; allowed?: number[] } = {}): ParamDef {
    const build = () => {
      let n = z.number();
      if (o.min !== undefined)
        n = n.min(o.min, {
          error: o.max !== undefined ? `must be between ${o.min} and ${o.max}` : `must be at least ${o.min}`,
        });
      if (o.max !== undefined)
        n = n.max(o.max, {
          error: o.min !== undefined ? `must be between ${o.min} and ${o.max}` : `must be at most ${o.max}`,
        });
      let s: z.ZodType<unknown> = str()
        .regex(/^-?\d+$/, { error: 'must be a whole number' })
        .transform(Number)
        .pipe(n);
      if (o.allowed) {
        const allowed = o.allowed;
        s = s.refine((x) => isOneOf(allowed, x), { error: `must be one of ${allowed.join(', ')}` });
      }
      return s;
    };
    const rule = [
      o.min !== undefined ? `${o.min}-${o.max ?? ''}` : '',
      o.default !== undefined ? `default ${o.default}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    return def(name, 'int', build, { ...o, rule });
  },
  /** Money in micros of the funding instrument's currency: a non-negative integer. */
  /** Micros; a budget (`*_budget_*`) is more than 0: the platform refuses a zero budget. */
  micro(name: string, o: Common = {}): ParamDef {
    const budget = /budget/.test(name);
    const build = () =>
      str()
        .regex(/^\d{1,16}$/, { error: 'must be a whole number of micros (amount x 1,000,000)' })
        .refine((x) => !budget || /[1-9]/.test(x), {
          error: 'must be more than 0 (the platform refuses a zero budget)',
        })
        .transform(Number);
    return def(name, 'micro', build, { ...o, rule: budget ? 'micros, more than 0' : 'micros' });
  },
  bool(name: string, o: Common = {}): ParamDef {
    const build = () =>
      str()
        .regex(/^(true|false)$/i, { error: 'must be true or false' })
        .transform((x) => x.toLowerCase() === 'true');
    return def(name, 'bool', build, { ...o, rule: o.default !== undefined ? `default ${o.default}` : undefined });
  },
  enumOf(name: string, values: readonly string[], o: Common = {}): ParamDef {
    const build = () => str().refine((x) => values.includes(x), { error: `must be one of ${values.join(', ')}` });
    return def(name, 'enum', build, {
      ...o,
      enumValues: values,
      rule: o.default !== undefined ? `default ${o.default}` : undefined,
    });
  },
  /**
   * A comma-separated list (spec 2.1: up to 200 entries unless stated). Items are ids, longs,
   * enum values or match `pattern`.
   */
  list(
    name: string,
    o: Common & { max?: number; of?: 'id' | 'long' | readonly string[]; pattern?: RegExp; patternRule?: string } = {},
  ): ParamDef {
    const max = o.max ?? 200;
    const of = o.of ?? 'id';
    const values = typeof of === 'string' ? undefined : of;
    // JSON bodies (batches) may carry the list as an array of strings.
    const build = () =>
      z
        .preprocess((x) => (Array.isArray(x) && x.every((e) => typeof e === 'string') ? x.join(',') : x), str())
        .transform((x) => x.split(',').map((e) => e.trim()))
        .superRefine((items, ctx) => {
          if (items.length === 0 || items.some((e) => e === ''))
            return void ctx.addIssue({
              code: 'custom',
              message: 'must be a comma-separated list with no empty entries',
            });
          if (items.length > max)
            return void ctx.addIssue({
              code: 'custom',
              message: `must list at most ${max} entries (got ${items.length})`,
            });
          for (const e of items) {
            const bad = o.pattern
              ? !o.pattern.test(e)
              : values
                ? !isOneOf(values, e)
                : of === 'long'
                  ? !NUMERIC_ID.test(e)
                  : !ID.test(e);
            if (bad) {
              const what =
                o.patternRule ?? (values ? `one of ${values.join(', ')}` : of === 'long' ? 'a whole number' : 'an id');
              return void ctx.addIssue({ code: 'custom', message: `entry "${e}" must be ${what}` });
            }
          }
        });
    return def(name, 'list', build, {
      ...o,
      enumValues: values,
      rule: `comma list, max ${max}`,
    });
  },
  /** A JSON value of a JSON-bodied operation (arrays, objects), checked by the given schema. */
  json(name: string, schema: z.ZodType<unknown>, o: Common & { rule?: string } = {}): ParamDef {
    const d = def(name, 'json', () => schema, o);
    d.schema = schema; // JSON values are not wire strings
    return d;
  },
  /**
   * A point in time as the ads API takes it (notes 4): ISO 8601 with any offset (`Z`, `±HHMM`,
   * `±HH:MM`, `±HH`) or a date alone (midnight UTC); the value becomes ISO UTC to the second,
   * as the service echoes and stores it.
   */
  instant(name: string, o: Common = {}): ParamDef {
    const build = () =>
      str().transform((x, ctx) => {
        const ms = parseInstant(x);
        if (ms === undefined) {
          ctx.addIssue({
            code: 'custom',
            message: 'must be an ISO 8601 time such as 2026-05-19T14:00:00Z (or a date such as 2026-05-19)',
          });
          return z.NEVER;
        }
        return isoSeconds(ms);
      });
    return def(name, 'time', build, { ...o, rule: 'ISO 8601 or a date' });
  },
  /** ISO 8601 date-time; `wholeHours` for endpoints that take hour boundaries only. */
  time(name: string, o: Common & { wholeHours?: boolean; minuteGranularity?: boolean } = {}): ParamDef {
    const build = () =>
      str().superRefine((x, ctx) => {
        const t = parseIsoParts(x);
        if (!t)
          return void ctx.addIssue({
            code: 'custom',
            message: 'must be an ISO 8601 time such as 2026-01-31T14:00:00Z',
          });
        if (
          o.wholeHours &&
          (t.minute !== '00' || (t.second !== undefined && t.second !== '00') || /[1-9]/.test(t.fraction ?? ''))
        ) {
          ctx.addIssue({ code: 'custom', message: 'must be a whole hour (minutes and seconds 00)' });
        }
      });
    return def(name, 'time', build, { ...o, rule: o.wholeHours ? 'ISO 8601, whole hours' : 'ISO 8601' });
  },
};

// Common parameters of spec 2.1, in the order the spec lists them.
export const count = (max = 1000, dflt = 200) =>
  p.int('count', { min: 1, max, default: dflt, help: 'records per request' });
export const cursor = () => p.str('cursor', { min: 1, help: 'next-page cursor from next_cursor' });
export const sortBy = () =>
  p.str('sort_by', {
    pattern: /^[a-z_]+-(asc|desc)$/,
    patternRule: '<attribute>-asc or <attribute>-desc',
    help: 'sort order',
  });
export const withDeleted = () => p.bool('with_deleted', { default: false, help: 'include deleted records' });
export const withTotalCount = () =>
  p.bool('with_total_count', { default: false, help: 'include total_count (not with --cursor; 200 per 15 min)' });

/** count, cursor, sort_by, with_deleted, with_total_count (spec 2.1). */
export function commonList(
  o: { count?: number; countDefault?: number; sort?: boolean; deleted?: boolean; total?: boolean } = {},
): ParamDef[] {
  const out = [count(o.count, o.countDefault), cursor()];
  if (o.sort !== false) out.push(sortBy());
  if (o.deleted !== false) out.push(withDeleted());
  if (o.total !== false) out.push(withTotalCount());
  return out;
}

// ---- cross-field rules ----

/** Spec 2.1: with_total_count is exclusive with cursor (also any other exclusive pair). */
export function exclusive(a: string, b: string, why?: string): Rule {
  return (v) => {
    const on = (x: unknown) => x !== undefined && x !== false;
    if (on(v[a]) && on(v[b]))
      return {
        param: a,
        code: 'INVALID_PARAMETER',
        message: `cannot be used together with ${b}${why ? ` (${why})` : ''}`,
      };
    return undefined;
  };
}

/** `a` may be given only when `b` is (or when b equals `value`). */
export function needs(a: string, b: string, value?: unknown, why?: string): Rule {
  return (v) => {
    if (v[a] === undefined) return undefined;
    const okay = value === undefined ? v[b] !== undefined : (v[b] ?? undefined) === value;
    if (okay) return undefined;
    return {
      param: a,
      code: 'INVALID_PARAMETER',
      message: why ?? (value === undefined ? `needs ${b}` : `only when ${b} is ${String(value)}`),
    };
  };
}

/** The numeric value of `a` must not exceed that of `b` when both are given. */
export function atMost(a: string, b: string): Rule {
  return (v) => {
    const x = v[a];
    const y = v[b];
    if (typeof x === 'number' && typeof y === 'number' && x > y) {
      return { param: a, code: 'INVALID_PARAMETER', message: `must be at most ${b}` };
    }
    return undefined;
  };
}

export interface Validated {
  values: Values;
  violations: Violation[];
}

/**
 * Validates raw wire values (by spec name) against parameter definitions and rules. Unknown
 * names are ignored here (the CLI cannot produce them; the sandbox ignores extras, as the
 * service does with parameters it does not know).
 */
export function validateParams(
  params: ParamDef[],
  raw: Record<string, unknown>,
  rules: Rule[] = [],
  o: { skipRequired?: boolean; nowMs?: number } = {},
): Validated {
  const values: Values = {};
  const violations: Violation[] = [];
  for (const d of params) {
    const r = raw[d.name];
    if (r === undefined || r === null) {
      if (d.required && !o.skipRequired)
        violations.push({ param: d.name, code: 'MISSING_PARAMETER', message: 'is required' });
      continue;
    }
    const res = d.schema.safeParse(r);
    if (res.success) values[d.name] = res.data;
    else
      violations.push({
        param: d.name,
        code: 'INVALID_PARAMETER',
        message: res.error.issues[0]?.message ?? 'is invalid',
      });
  }
  if (violations.length === 0) {
    // Time rules ("at most one year ahead") use the caller's clock: the CLI's, or the sandbox's.
    const env: RuleEnv = { nowMs: o.nowMs ?? Date.now() };
    for (const rule of rules) {
      const v = rule(values, env);
      if (v) violations.push({ ...v, crossField: true });
    }
  }
  return { values, violations };
}
