// The rules of flexible audiences and of audience estimates (docs/contract.md, ads 4.4, 4.3, 8), as plain
// functions over JSON values: the CLI runs them before sending and the sandbox runs them again.
import type { Rule, Violation } from '../resource-types.js';
import { isOneOf, isRecord } from '../../contract/guards.js';

/** Spec 8: "10 leaf custom audiences per flexible audience". */
export const MAX_FLEXIBLE_LEAVES = 10;
/** Spec 4.4 / 8: the custom audience batch takes at most 10 items. */
export const AUDIENCE_BATCH_MAX = 10;
/** Spec 4.4: lookback_window is 1, 7, 14 or 30 days. */
export const LOOKBACK_WINDOWS = [1, 7, 14, 30] as const;
export const BOOLEAN_OPERATORS = ['AND', 'OR'] as const;
/** Spec 4.4: NUM_GTE is the default comparator. */
export const FREQUENCY_COMPARATORS = ['NUM_GTE', 'NUM_GT', 'NUM_EQ', 'NUM_LTE', 'NUM_LT'] as const;
export const AUDIENCE_TYPES = ['FLEXIBLE', 'MOBILE_AUDIENCE'] as const;

const SEGMENT_KEYS = new Set([
  'custom_audience_id',
  'boolean_operator',
  'lookback_window',
  'frequency',
  'frequency_comparator',
  'negate',
  'child_segments',
]);
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface SegmentProblem {
  /** Where in the body: `segments.child_segments[1].lookback_window`. */
  path: string;
  message: string;
}

/** A whole number given as a JSON number or a string of digits (wire values are strings). */
function wholeNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return undefined;
}

/**
 * Checks a flexible audience's root segment and everything under it. A segment is either a
 * leaf (custom_audience_id) or a group (non-empty child_segments, which needs boolean_operator);
 * the root must be a group. Returns the first problem, or undefined.
 */
export function checkSegments(root: unknown): SegmentProblem | undefined {
  let leaves = 0;
  const walk = (s: unknown, path: string, isRoot: boolean): SegmentProblem | undefined => {
    if (!isRecord(s)) return { path, message: 'must be an object' };
    const seg = s;
    for (const k of Object.keys(seg))
      if (!SEGMENT_KEYS.has(k))
        return { path: `${path}.${k}`, message: `is not a segment field (fields: ${[...SEGMENT_KEYS].join(', ')})` };
    const kids = seg.child_segments;
    if (kids !== undefined && !Array.isArray(kids))
      return { path: `${path}.child_segments`, message: 'must be an array of segments' };
    const hasKids = Array.isArray(kids) && kids.length > 0;
    // Spec 4.4: child_segments is required (the root holds the combination).
    if (isRoot && !hasKids)
      return { path: `${path}.child_segments`, message: 'is required and must hold at least one segment' };
    if (seg.custom_audience_id !== undefined) {
      if (typeof seg.custom_audience_id !== 'string' || !ID.test(seg.custom_audience_id))
        return { path: `${path}.custom_audience_id`, message: 'must be a custom audience id (string)' };
      if (isRoot) return { path: `${path}.custom_audience_id`, message: 'belongs in a child segment, not the root' };
      if (hasKids)
        return {
          path,
          message: 'is either a custom audience (custom_audience_id) or a group (child_segments), not both',
        };
      leaves++;
    } else if (!hasKids) {
      return { path, message: 'needs custom_audience_id or a non-empty child_segments' };
    }
    // Spec 4.4: boolean_operator (AND, OR) is required when child_segments is non-empty.
    if (seg.boolean_operator !== undefined && !isOneOf(BOOLEAN_OPERATORS, seg.boolean_operator)) {
      return { path: `${path}.boolean_operator`, message: `must be one of ${BOOLEAN_OPERATORS.join(', ')}` };
    }
    if (hasKids && seg.boolean_operator === undefined)
      return { path: `${path}.boolean_operator`, message: 'is required when child_segments is non-empty (AND or OR)' };
    if (seg.lookback_window !== undefined) {
      const n = wholeNumber(seg.lookback_window);
      if (n === undefined || !isOneOf(LOOKBACK_WINDOWS, n))
        return { path: `${path}.lookback_window`, message: `must be one of ${LOOKBACK_WINDOWS.join(', ')} (days)` };
    }
    if (seg.frequency !== undefined) {
      const n = wholeNumber(seg.frequency);
      if (n === undefined || n < 1)
        return { path: `${path}.frequency`, message: 'must be a whole number of at least 1' };
    }
    if (seg.frequency_comparator !== undefined && !isOneOf(FREQUENCY_COMPARATORS, seg.frequency_comparator)) {
      return { path: `${path}.frequency_comparator`, message: `must be one of ${FREQUENCY_COMPARATORS.join(', ')}` };
    }
    if (seg.negate !== undefined && typeof seg.negate !== 'boolean')
      return { path: `${path}.negate`, message: 'must be true or false' };
    if (hasKids) {
      for (const [i, k] of (kids as unknown[]).entries()) {
        const p = walk(k, `${path}.child_segments[${i}]`, false);
        if (p) return p;
      }
    }
    return undefined;
  };
  const problem = walk(root, 'segments', true);
  if (problem) return problem;
  if (leaves > MAX_FLEXIBLE_LEAVES)
    return {
      path: 'segments',
      message: `must hold at most ${MAX_FLEXIBLE_LEAVES} custom audiences (leaf segments), got ${leaves}`,
    };
  return undefined;
}

/** The custom audience ids of a segment tree's leaves, in order. */
export function segmentLeaves(root: unknown): string[] {
  const out: string[] = [];
  const walk = (s: unknown) => {
    if (!s || typeof s !== 'object') return;
    const seg = s as Record<string, unknown>;
    if (typeof seg.custom_audience_id === 'string') out.push(seg.custom_audience_id);
    if (Array.isArray(seg.child_segments)) seg.child_segments.forEach(walk);
  };
  walk(root);
  return out;
}

/**
 * The segment tree with the spec's defaults written in (frequency 1, frequency_comparator
 * NUM_GTE, negate true), as the service stores it. Spec 4.4 states negate defaults to true.
 */
export function withSegmentDefaults(s: unknown): unknown {
  if (!s || typeof s !== 'object') return s;
  const seg = { ...(s as Record<string, unknown>) };
  if (seg.custom_audience_id !== undefined) {
    seg.frequency = wholeNumber(seg.frequency) ?? 1;
    seg.frequency_comparator ??= 'NUM_GTE';
    seg.negate ??= true;
    if (seg.lookback_window !== undefined) seg.lookback_window = wholeNumber(seg.lookback_window);
  }
  if (Array.isArray(seg.child_segments)) seg.child_segments = seg.child_segments.map(withSegmentDefaults);
  return seg;
}

/** Leaves that omit negate (whose default, true, excludes them): the CLI warns about these. */
export function leavesWithoutNegate(root: unknown): string[] {
  const out: string[] = [];
  const walk = (s: unknown, path: string) => {
    if (!s || typeof s !== 'object') return;
    const seg = s as Record<string, unknown>;
    if (seg.custom_audience_id !== undefined && seg.negate === undefined) out.push(path);
    if (Array.isArray(seg.child_segments))
      seg.child_segments.forEach((k, i) => walk(k, `${path}.child_segments[${i}]`));
  };
  walk(root, 'segments');
  return out;
}

/**
 * The batch item rule over `child_segments` (docs/contract.md, ads 4.4: required on Create, an array of
 * segments, each a leaf or a group) and the optional `segments` root (an object with
 * boolean_operator and child_segments); at most 10 leaves across both. Runs after the parameters
 * themselves parsed.
 */
export function flexibleRule(o: { childRequired: boolean }): Rule {
  return (v) => {
    if (v.child_segments === undefined) {
      if (o.childRequired)
        return { param: 'child_segments', code: 'INVALID_PARAMETER', message: 'is required (an array of segments)' };
    } else {
      const kids = checkChildSegments(v.child_segments);
      if (kids) return { param: 'child_segments', code: 'INVALID_PARAMETER', message: kids };
    }
    if (v.segments !== undefined) {
      const p = checkSegments(v.segments);
      // "segments at child_segments[1].lookback_window: must be one of 1, 7, 14, 30 (days)"
      if (p) {
        const at = p.path === 'segments' ? '' : `at ${p.path.slice('segments.'.length)}: `;
        return { param: 'segments', code: 'INVALID_PARAMETER', message: `${at}${p.message}` };
      }
    }
    const leaves = flexibleLeaves(v).length;
    if (leaves > MAX_FLEXIBLE_LEAVES)
      return {
        param: 'child_segments',
        code: 'INVALID_PARAMETER',
        message: `and segments must hold at most ${MAX_FLEXIBLE_LEAVES} custom audiences (leaf segments), got ${leaves}`,
      };
    return undefined;
  };
}

/** The words after `child_segments` for a list of segments that breaks the rules, or undefined. */
function checkChildSegments(kids: unknown): string | undefined {
  if (!Array.isArray(kids) || kids.length === 0) return 'must be a non-empty array of segments';
  const p = checkSegments({ boolean_operator: 'AND', child_segments: kids });
  if (!p || p.path === 'segments') return undefined; // the leaf count is judged across both
  return `at ${p.path.slice('segments.child_segments'.length)}: ${p.message}`;
}

/** Every leaf of a flexible audience: those of child_segments, then those of segments. */
export function flexibleLeaves(v: { child_segments?: unknown; segments?: unknown }): string[] {
  return [...segmentLeaves({ child_segments: v.child_segments }), ...segmentLeaves(v.segments)];
}

// ---- audience estimates (spec 4.3: targeting_criteria with at least one primary criterion) ----

/**
 * Primary targeting types (the platform's campaign targeting guide: followers, custom
 * audiences, interests, keywords, conversations, events, TV, engagement). An estimate needs one.
 */
export const PRIMARY_TARGETING_TYPES = [
  'FOLLOWERS_OF_USER',
  'SIMILAR_TO_FOLLOWERS_OF_USER',
  'CUSTOM_AUDIENCE',
  'CUSTOM_AUDIENCE_EXPANDED',
  'INTEREST',
  'BROAD_KEYWORD',
  'EXACT_KEYWORD',
  'PHRASE_KEYWORD',
  'UNORDERED_KEYWORD',
  'CONVERSATION',
  'EVENT',
  'TV_SHOW',
  'ENGAGEMENT_TYPE',
  'CAMPAIGN_ENGAGEMENT',
  'USER_ENGAGEMENT',
] as const;
/** Secondary types narrow a primary one (location, demographics, devices, content). */
export const SECONDARY_TARGETING_TYPES = [
  'LOCATION',
  'GENDER',
  'AGE',
  'LANGUAGE',
  'PLATFORM',
  'PLATFORM_VERSION',
  'DEVICE',
  'NETWORK_OPERATOR',
  'WIFI_ONLY',
  'APP_STORE_CATEGORY',
  'NEGATIVE_PHRASE_KEYWORD',
  'NEGATIVE_EXACT_KEYWORD',
  'NEGATIVE_UNORDERED_KEYWORD',
  'IAB_CATEGORY',
] as const;
const ALL_TYPES: readonly string[] = [...PRIMARY_TARGETING_TYPES, ...SECONDARY_TARGETING_TYPES];
export const OPERATOR_TYPES = ['EQ', 'NE'] as const;

export interface Criterion {
  targeting_type: string;
  targeting_value: string;
  operator_type?: 'EQ' | 'NE';
}

/** Checks targeting_criteria: a non-empty array of {targeting_type, targeting_value[, operator_type]} with a primary one. */
export function checkTargetingCriteria(v: unknown): string | undefined {
  if (!Array.isArray(v) || v.length === 0)
    return 'must be a non-empty array of {"targeting_type","targeting_value"} objects';
  for (const [i, c] of v.entries()) {
    if (!isRecord(c)) return `[${i}] must be an object`;
    const t = c.targeting_type;
    const val = c.targeting_value;
    const op = c.operator_type;
    if (t === undefined) return `[${i}].targeting_type is required`;
    if (typeof t !== 'string' || !ALL_TYPES.includes(t))
      return `[${i}].targeting_type must be a targeting type such as ${PRIMARY_TARGETING_TYPES.slice(0, 4).join(', ')}, LOCATION (got ${JSON.stringify(t)})`;
    if (typeof val !== 'string' || val.length === 0) return `[${i}].targeting_value is required (a non-empty string)`;
    if (op !== undefined && !isOneOf(OPERATOR_TYPES, op)) return `[${i}].operator_type must be EQ or NE`;
  }
  if (!v.some((c) => isRecord(c) && isOneOf(PRIMARY_TARGETING_TYPES, c.targeting_type))) {
    return `needs at least one primary criterion (${PRIMARY_TARGETING_TYPES.join(', ')})`;
  }
  return undefined;
}

export const targetingRule: Rule = (v): Violation | undefined => {
  if (v.targeting_criteria === undefined) return undefined;
  const m = checkTargetingCriteria(v.targeting_criteria);
  return m ? { param: 'targeting_criteria', code: 'INVALID_PARAMETER', message: m } : undefined;
};
