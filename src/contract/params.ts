// A v2 endpoint's parameters described once, as the ads table describes its own (src/ads/): where
// each one goes, whether it is required, and its rule in words. One validate() is run by the CLI
// (before sending; the subject is the flag the user typed) and by the sandbox (on receipt; the
// subject is the wire name), so both refuse the same inputs with the same words:
// `<subject> must be <rule> (got <value>)`.
import { NUMERIC_ID_RULE, isNumericId } from './ids.js';

export type ParamPlace = 'path' | 'query' | 'body';

export interface ParamSpec {
  /** The wire name; nested body fields are dotted: `filter.user_id`. */
  name: string;
  in: ParamPlace;
  /** The CLI's name for it in messages: `--user-id`, `<id>`. Default: the wire name. */
  flag?: string;
  /** The service's name for it in messages when not the wire name (a path key `:id`). */
  label?: string;
  required?: boolean;
  /** Completes "<subject> must be ...": `1-19 digits`, `1-150 characters`. */
  rule: string;
  ok(v: unknown, env: ValidateEnv): boolean;
  /** Refuses a value with words of its own before `ok` is asked (a renamed value, say). */
  refuse?(v: unknown, env: ValidateEnv): string | undefined;
  /** The platform's name or number for the failure (`WebhookIdInvalid`, 215), where it has one. */
  code?: string | number;
  /** How the refused value is shown: its JSON text by default (a length rule shows the length). */
  shown?(v: unknown): string;
}

/** A rule across parameters: the reason the value of `name` is refused, or undefined. */
export interface CrossRule {
  name: string;
  in: ParamPlace;
  flag?: string;
  label?: string;
  code?: string | number;
  refuse(input: EndpointInput, env: ValidateEnv): string | undefined;
}

/**
 * What a rule may depend on beyond the input: whether the service is on loopback (the sandbox,
 * where http://127.0.0.1 receivers stand in for public URLs) and the service's time now.
 * A rule that needs `now` is skipped without it.
 */
export interface ValidateEnv {
  loopback?: boolean;
  now?: number;
}

/** What an endpoint accepts and answers, beside its method, path and auth (endpoint.ts). */
export interface Described {
  params?: readonly ParamSpec[];
  rules?: readonly CrossRule[];
  /** The answer's shape, e.g. `{"data":{"subscription"}}`. */
  answer?: string;
}

export interface EndpointInput {
  path?: Record<string, string | undefined>;
  query?: Record<string, string | undefined>;
  body?: unknown;
}

export interface Invalid {
  /** The wire name and where it goes. */
  name: string;
  in: ParamPlace;
  flag?: string;
  label?: string;
  value: unknown;
  code?: string | number;
  /** The words after the subject: `must be 1-19 digits (got "x")`. */
  words: string;
}

/** The value of a parameter in an input (dotted names reach into the body). */
export function valueOf(input: EndpointInput, place: ParamPlace, name: string): unknown {
  if (place === 'path') return input.path?.[name];
  if (place === 'query') return input.query?.[name];
  let cur: unknown = input.body;
  for (const part of name.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The first parameter of `e` that `input` breaks (in declaration order), else undefined. */
export function validate(e: Described, input: EndpointInput, env: ValidateEnv = {}): Invalid | undefined {
  for (const p of e.params ?? []) {
    const v = valueOf(input, p.in, p.name);
    if (v === undefined) {
      if (p.required) return { ...who(p), value: v, words: `is required (${p.rule})` };
      continue;
    }
    const own = p.refuse?.(v, env);
    if (own !== undefined) return { ...who(p), value: v, words: own };
    if (!p.ok(v, env)) return { ...who(p), value: v, words: `must be ${p.rule} (got ${cut((p.shown ?? json)(v))})` };
  }
  for (const r of e.rules ?? []) {
    const why = r.refuse(input, env);
    if (why !== undefined) return { ...who(r), value: valueOf(input, r.in, r.name), words: why };
  }
  return undefined;
}

function who(p: {
  name: string;
  in: ParamPlace;
  flag?: string;
  label?: string;
  code?: string | number;
}): Pick<Invalid, 'name' | 'in' | 'flag' | 'label' | 'code'> {
  return { name: p.name, in: p.in, flag: p.flag, label: p.label, ...(p.code ? { code: p.code } : {}) };
}

/** The message as the CLI says it (the flag) or the service says it (the wire name). */
export function messageOf(v: Invalid, side: 'cli' | 'service'): string {
  return `${side === 'cli' ? (v.flag ?? v.label ?? v.name) : (v.label ?? v.name)} ${v.words}`;
}

function json(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}

/** Most of a refused value a message shows: a payload of megabytes is not echoed whole. */
const SHOWN_MAX = 200;

function cut(shown: string): string {
  return shown.length > SHOWN_MAX ? `${shown.slice(0, SHOWN_MAX)}... (${shown.length} characters)` : shown;
}

type Place = { in: ParamPlace; flag?: string; label?: string; required?: boolean; code?: string | number };

/** Builders of the usual rules. */
export const param = {
  /** A 64-bit id written as a string of digits. */
  id(name: string, o: Place): ParamSpec {
    return { name, ...o, rule: NUMERIC_ID_RULE, ok: isNumericId };
  },
  /** Text of min-max characters. */
  text(name: string, range: { min: number; max: number }, o: Place): ParamSpec {
    return {
      name,
      ...o,
      rule: `${range.min}-${range.max} characters`,
      ok: (v) => typeof v === 'string' && v.length >= range.min && v.length <= range.max,
      shown: (v) => (typeof v === 'string' ? String(v.length) : json(v)),
    };
  },
  /** One of a few words. */
  oneOf(name: string, values: readonly string[], o: Place): ParamSpec {
    return { name, ...o, rule: values.join(' or '), ok: (v) => typeof v === 'string' && values.includes(v) };
  },
  /** A whole number in a range, written in digits (query strings). */
  int(name: string, range: { min: number; max: number }, o: Place): ParamSpec {
    return {
      name,
      ...o,
      rule: `a whole number ${range.min}-${range.max}`,
      ok: (v) => typeof v === 'string' && /^\d+$/.test(v) && Number(v) >= range.min && Number(v) <= range.max,
    };
  },
};
