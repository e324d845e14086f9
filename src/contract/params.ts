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
  /**
   * Values that meet the rule and values that break it, one per constraint (range ends, a wrong
   * type, a repeated item...): what test/unit/contract-walk.test.ts sends to the sandbox. The
   * builders below derive them from the constraint; a hand-written spec names its own.
   */
  samples?: Samples;
}

export interface Samples {
  ok: readonly unknown[];
  bad: readonly unknown[];
}

/**
 * A JSON object of the body that takes only the fields named (the platform's OpenAPI
 * specification says `additionalProperties: false`): `at` is its dotted place, '' for the body
 * itself, `add[]` for each item of the array `add`. Another field is refused, named by its
 * dotted place (`filter.colour`, `add[1].colour`).
 */
export interface ClosedObject {
  at: string;
  fields: readonly string[];
  /** Only when this holds (a body with two forms, say). */
  when?(input: EndpointInput): boolean;
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
  /** The body's objects that take no field beyond their own. */
  closed?: readonly ClosedObject[];
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
  for (const c of e.closed ?? []) {
    if (c.when && !c.when(input)) continue;
    const extra = unknownField(input.body, c);
    if (extra) return { name: extra.name, in: 'body', value: extra.value, words: extra.words };
  }
  for (const r of e.rules ?? []) {
    const why = r.refuse(input, env);
    if (why !== undefined) return { ...who(r), value: valueOf(input, r.in, r.name), words: why };
  }
  return undefined;
}

/** The first field of a closed object that it does not take. */
function unknownField(body: unknown, c: ClosedObject): { name: string; value: unknown; words: string } | undefined {
  const [head, tail] = c.at.endsWith('[]') ? [c.at.slice(0, -2), true] : [c.at, false];
  const at = head === '' ? body : valueOf({ body }, 'body', head);
  const objects: Array<[string, unknown]> = tail
    ? Array.isArray(at)
      ? at.map((o, i) => [`${head}[${i}]`, o])
      : []
    : [[head, at]];
  for (const [place, o] of objects) {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) continue;
    const extra = Object.entries(o).find(([f]) => !c.fields.includes(f));
    if (extra === undefined) continue;
    const where = place === '' ? 'the body' : place;
    return {
      name: place === '' ? extra[0] : `${place}.${extra[0]}`,
      value: extra[1],
      words: `is not a field the service takes (${where} takes ${c.fields.join(', ')})`,
    };
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

/** The version of the platform's OpenAPI specification the v2 descriptions follow. */
export const OPENAPI_VERSION = '2.167';

/** `n` short ids, comma-separated (too many, for a maxItems sample). */
const manyIds = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1)).join(',');

/** What a comma list of a query takes: its items (a list of words, or ids), how many, repeats. */
export interface ListShape {
  /** The words an item may be (an enum), or 'id' for 1-19 digits. */
  items: readonly string[] | 'id';
  /** What an item is called in the rule: `user fields`, `rule ids`. */
  noun: string;
  /** minItems (default 1: an empty list is refused) and maxItems. */
  min?: number;
  max?: number;
  /** uniqueItems: a value given twice is refused. */
  unique?: boolean;
}

function listItemOk(items: ListShape['items'], v: string): boolean {
  return items === 'id' ? isNumericId(v) : items.includes(v);
}

function listRefusal(shape: ListShape, v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const parts = v === '' ? [] : v.split(',');
  const min = shape.min ?? 1;
  if (parts.length < min) return `must name at least ${min} of the ${shape.noun} (got none)`;
  const bad = parts.find((x) => !listItemOk(shape.items, x));
  if (bad !== undefined)
    return shape.items === 'id'
      ? `value [${bad}] is not ${NUMERIC_ID_RULE}`
      : `value [${bad}] is not one of [${shape.items.join(',')}]`;
  if (shape.unique) {
    const twice = parts.find((x, i) => parts.indexOf(x) !== i);
    if (twice !== undefined) return `must not name a value twice (got [${twice}] twice)`;
  }
  if (shape.max !== undefined && parts.length > shape.max)
    return `must name at most ${shape.max} ${shape.noun} (got ${parts.length})`;
  return undefined;
}

/** Builders of the usual rules, each with the samples its constraint gives. */
export const param = {
  /** A 64-bit id written as a string of digits. */
  id(name: string, o: Place): ParamSpec {
    return {
      name,
      ...o,
      rule: NUMERIC_ID_RULE,
      ok: isNumericId,
      samples: { ok: ['1234567890123456789'], bad: ['12ab', '12345678901234567890', ...(o.in === 'body' ? [12] : [])] },
    };
  },
  /** Text of min-max characters. */
  text(name: string, range: { min: number; max: number }, o: Place): ParamSpec {
    return {
      name,
      ...o,
      rule: `${range.min}-${range.max} characters`,
      ok: (v) => typeof v === 'string' && v.length >= range.min && v.length <= range.max,
      shown: (v) => (typeof v === 'string' ? String(v.length) : json(v)),
      samples: {
        ok: [...new Set(['x'.repeat(Math.max(range.min, 1)), 'x'.repeat(range.max)])],
        bad: [...(range.min > 0 ? [''] : []), 'x'.repeat(range.max + 1), ...(o.in === 'body' ? [7] : [])],
      },
    };
  },
  /** One of a few words. */
  oneOf(name: string, values: readonly string[], o: Place): ParamSpec {
    return {
      name,
      ...o,
      rule: values.join(' or '),
      ok: (v) => typeof v === 'string' && values.includes(v),
      samples: { ok: [values[0]], bad: ['nope', ...(o.in === 'body' ? [1] : [])] },
    };
  },
  /** A whole number in a range, written in digits (query strings). */
  int(name: string, range: { min: number; max: number }, o: Place): ParamSpec {
    return {
      name,
      ...o,
      rule: `a whole number ${range.min}-${range.max}`,
      ok: (v) => typeof v === 'string' && /^\d+$/.test(v) && Number(v) >= range.min && Number(v) <= range.max,
      samples: {
        ok: [String(range.min), String(range.max)],
        bad: [String(range.min - 1), String(range.max + 1), 'abc'],
      },
    };
  },
  /** A boolean of the query: true or false (1 and 0 too, as the platform reads them). */
  bool(name: string, o: Place): ParamSpec {
    return {
      name,
      ...o,
      rule: 'true or false',
      ok: (v) => typeof v === 'string' && /^(true|false|1|0)$/i.test(v),
      samples: { ok: ['true', 'false'], bad: ['notabool'] },
    };
  },
  /** A JSON boolean of the body. */
  flag(name: string, o: Place): ParamSpec {
    return {
      name,
      ...o,
      rule: 'true or false (a JSON boolean)',
      ok: (v) => typeof v === 'boolean',
      samples: { ok: [true, false], bad: ['notabool', 1] },
    };
  },
  /** An opaque page token of the query: `length` characters, or at least `min`. */
  token(name: string, size: { min: number; max?: number }, o: Place): ParamSpec {
    const rule =
      size.max === size.min
        ? `a page token of ${size.min} characters`
        : `a page token of at least ${size.min} characters`;
    return {
      name,
      ...o,
      rule,
      ok: (v) => typeof v === 'string' && v.length >= size.min && (size.max === undefined || v.length <= size.max),
      shown: (v) => (typeof v === 'string' ? `${v.length} characters` : json(v)),
      samples: { ok: [], bad: ['x'.repeat(size.min - 1), ...(size.max ? ['x'.repeat(size.max + 1)] : [])] },
    };
  },
  /**
   * A comma list of the query (the specification's `style: form, explode: false` arrays): its
   * items, at least one unless `min: 0`, at most `max`, each once when `unique`.
   */
  list(name: string, shape: ListShape, o: Place): ParamSpec {
    const bounds = shape.max === undefined ? `${shape.min ?? 1} or more` : `${shape.min ?? 1}-${shape.max}`;
    const first = shape.items === 'id' ? '1234567890123456789' : shape.items[0]!;
    const second = shape.items === 'id' ? '1234567890123456788' : (shape.items[1] ?? first);
    return {
      name,
      ...o,
      rule: `a comma list of ${bounds} ${shape.noun}${shape.unique ? ', each once' : ''}`,
      ok: (v) => typeof v === 'string',
      refuse: (v) => listRefusal(shape, v),
      samples: {
        ok: [first, ...(second !== first ? [`${first},${second}`] : [])],
        bad: [
          ...((shape.min ?? 1) > 0 ? [''] : []),
          shape.items === 'id' ? 'abc' : 'nope',
          ...(shape.unique ? [`${first},${first}`] : []),
          ...(shape.max !== undefined && shape.items === 'id' ? [manyIds(shape.max + 1)] : []),
        ],
      },
    };
  },
};
