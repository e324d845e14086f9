// Line items (docs/contract.md, notes-2 section 4): the contract of the six endpoints, their parameters
// and every rule that can be judged from the values alone. Rules that need stored state (the
// parent campaign, the limits, targeting) are the sandbox's: src/sandbox/ads/line-items.ts.
import type { ParamDef, ResourceDef, Rule, Values } from '../resource-types.js';
import { commonList, p } from '../params.js';
import { batchOp, createOp, deleteOp, getOp, listOp, resource, updateOp } from '../ops.js';
import { clearable } from '../rules/cards.js';
import { listOrUndefined, stringOrUndefined } from '../../contract/guards.js';

const LIS = '/accounts/:account_id/line_items';
const LI = `${LIS}/:line_item_id`;

/** Notes 4 "Batch": at most 40 items. */
export const LINE_ITEM_BATCH_MAX = 40;
/** Notes 4 "Limits": 100 line items per campaign, 256 active across the account. */
export const LINE_ITEMS_PER_CAMPAIGN_MAX = 100;
export const ACTIVE_LINE_ITEMS_MAX = 256;

export const OBJECTIVES = [
  'APP_ENGAGEMENTS',
  'APP_INSTALLS',
  'REACH',
  'FOLLOWERS',
  'ENGAGEMENTS',
  'VIDEO_VIEWS',
  'PREROLL_VIEWS',
  'WEBSITE_CLICKS',
] as const;
export const PRODUCT_TYPES = ['MEDIA', 'PROMOTED_ACCOUNT', 'PROMOTED_TWEETS'] as const;
export const PLACEMENTS = [
  'ALL_ON_TWITTER',
  'PUBLISHER_NETWORK',
  'TAP_BANNER',
  'TAP_FULL',
  'TAP_FULL_LANDSCAPE',
  'TAP_NATIVE',
  'TAP_MRECT',
  'TWITTER_PROFILE',
  'TWITTER_REPLIES',
  'TWITTER_SEARCH',
  'TWITTER_TIMELINE',
  'SPOTLIGHT',
  'TREND',
] as const;
export const BID_STRATEGIES = ['AUTO', 'MAX', 'TARGET'] as const;
export const GOALS = [
  'APP_CLICKS',
  'APP_INSTALLS',
  'APP_PURCHASES',
  'ENGAGEMENT',
  'FOLLOWERS',
  'LINK_CLICKS',
  'MAX_REACH',
  'PREROLL',
  'PREROLL_STARTS',
  'REACH_WITH_ENGAGEMENT',
  'SITE_VISITS',
  'VIDEO_VIEW',
  'VIEW_3S_100PCT',
  'VIEW_6S',
  'VIEW_15S',
  'WEBSITE_CONVERSIONS',
] as const;
/** ENGAGEMENT: the value records show for ENGAGEMENTS (notes 4); accepted back, never required. */
export const PAY_BY = ['APP_CLICK', 'ENGAGEMENT', 'IMPRESSION', 'LINK_CLICK'] as const;

/**
 * Placements each product type may use (Proposal: the notes list the placements and point at
 * GET /line_items/placements for the sets; the TAP_* placements are the MEDIA ones of the
 * publisher network, and a promoted account lives in timelines).
 */
export const PLACEMENTS_BY_PRODUCT: Record<(typeof PRODUCT_TYPES)[number], readonly string[]> = {
  PROMOTED_TWEETS: [
    'ALL_ON_TWITTER',
    'PUBLISHER_NETWORK',
    'TWITTER_PROFILE',
    'TWITTER_REPLIES',
    'TWITTER_SEARCH',
    'TWITTER_TIMELINE',
    'SPOTLIGHT',
    'TREND',
  ],
  PROMOTED_ACCOUNT: ['ALL_ON_TWITTER', 'TWITTER_TIMELINE'],
  MEDIA: [
    'ALL_ON_TWITTER',
    'PUBLISHER_NETWORK',
    'TAP_BANNER',
    'TAP_FULL',
    'TAP_FULL_LANDSCAPE',
    'TAP_NATIVE',
    'TAP_MRECT',
  ],
};

/** Notes 4 "goal": the default "based on objective" (Proposal of the notes). */
export const DEFAULT_GOAL: Record<string, string> = {
  ENGAGEMENTS: 'ENGAGEMENT',
  FOLLOWERS: 'FOLLOWERS',
  REACH: 'MAX_REACH',
  WEBSITE_CLICKS: 'LINK_CLICKS',
  APP_INSTALLS: 'APP_INSTALLS',
  APP_ENGAGEMENTS: 'APP_CLICKS',
  VIDEO_VIEWS: 'VIDEO_VIEW',
  PREROLL_VIEWS: 'PREROLL',
};
/** Goals the notes tie to some objectives; any other goal is open to every objective. */
const GOAL_OBJECTIVES: Record<string, readonly string[]> = {
  SITE_VISITS: ['WEBSITE_CLICKS'],
  APP_PURCHASES: ['APP_INSTALLS'],
  APP_CLICKS: ['APP_INSTALLS', 'APP_ENGAGEMENTS'],
  APP_INSTALLS: ['APP_INSTALLS', 'APP_ENGAGEMENTS'],
};
/** bid_strategy MAX is not for these objectives; TARGET only for the union the notes give. */
const NO_MAX = ['REACH', 'FOLLOWERS'];
const TARGET_OK = ['REACH', 'FOLLOWERS', 'WEBSITE_CLICKS', 'APP_INSTALLS', 'APP_ENGAGEMENTS'];
/** pay_by per goal (notes 4): the values allowed and the default. */
const PAY_BY_RULES: Record<string, { allowed: readonly string[]; dflt: string }> = {
  APP_INSTALLS: { allowed: ['APP_CLICK', 'IMPRESSION'], dflt: 'IMPRESSION' },
  LINK_CLICKS: { allowed: ['LINK_CLICK', 'IMPRESSION'], dflt: 'IMPRESSION' },
  SITE_VISITS: { allowed: ['IMPRESSION'], dflt: 'IMPRESSION' },
};
/** frequency_cap only for these objectives; duration_in_days one of these. */
const FREQUENCY_CAP_OBJECTIVES = ['REACH', 'ENGAGEMENTS', 'VIDEO_VIEWS', 'PREROLL_VIEWS'];
export const FREQUENCY_DAYS = [1, 7, 30];
const APP_OBJECTIVES = ['APP_INSTALLS', 'APP_ENGAGEMENTS'];

export const effectiveGoal = (v: Values): string | undefined =>
  stringOrUndefined(v.goal) ?? DEFAULT_GOAL[String(v.objective)];

/** The bid strategy a line item gets when none is sent (Proposal of the notes). */
export function defaultBidStrategy(objective: string, bid: unknown): string {
  if (bid === undefined || bid === null) return 'AUTO';
  return NO_MAX.includes(objective) ? 'TARGET' : 'MAX';
}

/** pay_by when none is sent: the goal's default, ENGAGEMENT for ENGAGEMENTS (as records show). */
export function defaultPayBy(objective: string, goal: string | undefined): string {
  if (goal && PAY_BY_RULES[goal]) return PAY_BY_RULES[goal]!.dflt;
  return objective === 'ENGAGEMENTS' ? 'ENGAGEMENT' : 'IMPRESSION';
}

const bad = (
  param: string,
  message: string,
  code:
    | 'INVALID_PARAMETER'
    | 'MISSING_PARAMETER'
    | 'INVALID_PLACEMENT_TYPE'
    | 'INCLUSIVE_PARAMETERS'
    | 'INVALID_TIME_WINDOW'
    | 'SPEND_EXCEEDS_BUDGET' = 'INVALID_PARAMETER',
) => ({ param, code, message });
const given = (x: unknown) => x !== undefined && x !== null;

/**
 * Every rule of the notes that the values of one request (or of a stored line item with its
 * patch applied: the sandbox runs the same list on the result of a PUT) can decide.
 */
export const LINE_ITEM_RULES: Rule[] = [
  (v) => {
    const pl = listOrUndefined(v.placements);
    if (!pl) return undefined;
    if (new Set(pl).size !== pl.length)
      return bad('placements', 'must not repeat a placement', 'INVALID_PLACEMENT_TYPE');
    const allowed = PLACEMENTS_BY_PRODUCT[v.product_type as keyof typeof PLACEMENTS_BY_PRODUCT];
    const off = allowed ? pl.find((x) => !allowed.includes(x)) : undefined;
    if (off)
      return bad(
        'placements',
        `${off} is not a placement of product_type ${String(v.product_type)} (allowed: ${allowed!.join(', ')})`,
        'INVALID_PLACEMENT_TYPE',
      );
    if (pl.length === 1 && pl[0] === 'TWITTER_PROFILE')
      return bad('placements', 'cannot be TWITTER_PROFILE alone', 'INVALID_PLACEMENT_TYPE');
    if (pl.includes('ALL_ON_TWITTER') && pl.some((x) => x.startsWith('TWITTER_')))
      return bad('placements', 'ALL_ON_TWITTER already holds every TWITTER_* placement', 'INVALID_PLACEMENT_TYPE');
    if (v.objective === 'REACH' && !pl.includes('TWITTER_TIMELINE') && !pl.includes('ALL_ON_TWITTER'))
      return bad(
        'placements',
        'must include TWITTER_TIMELINE (or be ALL_ON_TWITTER) for objective REACH',
        'INVALID_PLACEMENT_TYPE',
      );
    return undefined;
  },
  (v) => {
    const s = stringOrUndefined(v.bid_strategy);
    if ((s === 'MAX' || s === 'TARGET') && !given(v.bid_amount_local_micro))
      return bad('bid_amount_local_micro', `is required when bid_strategy is ${s}`, 'MISSING_PARAMETER');
    if (v.bid_amount_local_micro === 0) return bad('bid_amount_local_micro', 'must be greater than 0');
    if (s === 'MAX' && NO_MAX.includes(String(v.objective)))
      return bad('bid_strategy', `MAX is not available for objective ${String(v.objective)}`);
    if (s === 'TARGET' && v.objective !== undefined && !TARGET_OK.includes(String(v.objective)))
      return bad('bid_strategy', `TARGET is only for objectives ${TARGET_OK.join(', ')}`);
    return undefined;
  },
  (v) => {
    const g = stringOrUndefined(v.goal);
    const only = g ? GOAL_OBJECTIVES[g] : undefined;
    if (only && v.objective !== undefined && !only.includes(String(v.objective)))
      return bad('goal', `${g} is only for objective ${only.join(' or ')}`);
    if (effectiveGoal(v) === 'WEBSITE_CONVERSIONS' && !given(v.primary_web_event_tag))
      return bad('primary_web_event_tag', 'is required when goal is WEBSITE_CONVERSIONS', 'MISSING_PARAMETER');
    return undefined;
  },
  (v) => {
    if (!given(v.pay_by)) return undefined;
    const goal = effectiveGoal(v);
    // What the service itself sends (the derived default) is accepted back: load, change, save.
    // A PUT names no objective: the sandbox decides on the stored record, objective included.
    const derived =
      v.objective !== undefined
        ? [defaultPayBy(String(v.objective), goal)]
        : goal && !PAY_BY_RULES[goal]
          ? ['ENGAGEMENT', 'IMPRESSION']
          : [];
    if (derived.includes(String(v.pay_by))) return undefined;
    const rule = goal ? PAY_BY_RULES[goal] : undefined;
    if (!rule)
      return goal
        ? bad('pay_by', `cannot be set for goal ${goal} (only for APP_INSTALLS, LINK_CLICKS and SITE_VISITS)`)
        : undefined;
    if (!rule.allowed.includes(String(v.pay_by)))
      return bad('pay_by', `must be ${rule.allowed.join(' or ')} for goal ${goal}`);
    if (goal === 'LINK_CLICKS' && v.pay_by === 'LINK_CLICK' && v.bid_strategy === 'TARGET')
      return bad('pay_by', 'LINK_CLICK cannot be used with bid_strategy TARGET');
    return undefined;
  },
  (v) => {
    if (given(v.frequency_cap) && !given(v.duration_in_days))
      return bad('frequency_cap', 'needs duration_in_days', 'INCLUSIVE_PARAMETERS');
    if (given(v.duration_in_days) && !given(v.frequency_cap))
      return bad('duration_in_days', 'needs frequency_cap', 'INCLUSIVE_PARAMETERS');
    if (
      given(v.frequency_cap) &&
      v.objective !== undefined &&
      !FREQUENCY_CAP_OBJECTIVES.includes(String(v.objective))
    ) {
      return bad('frequency_cap', `is only for objectives ${FREQUENCY_CAP_OBJECTIVES.join(', ')}`);
    }
    return undefined;
  },
  (v) => {
    if (
      APP_OBJECTIVES.includes(String(v.objective)) &&
      !given(v.android_app_store_identifier) &&
      !given(v.ios_app_store_identifier)
    ) {
      return bad(
        'android_app_store_identifier',
        `or ios_app_store_identifier is required for objective ${String(v.objective)}`,
        'MISSING_PARAMETER',
      );
    }
    return undefined;
  },
  (v) => {
    const pl = listOrUndefined(v.placements);
    if (pl?.includes('PUBLISHER_NETWORK')) {
      if (!given(v.categories))
        return bad('categories', 'are required with placement PUBLISHER_NETWORK (IAB categories)', 'MISSING_PARAMETER');
      if (!given(v.advertiser_domain))
        return bad('advertiser_domain', 'is required with placement PUBLISHER_NETWORK', 'MISSING_PARAMETER');
    }
    if (v.objective === 'PREROLL_VIEWS') {
      const c = v.categories as string[] | undefined | null;
      if (!c || c.length < 1 || c.length > 2)
        return bad(
          'categories',
          'must hold one or two advertiser business categories for objective PREROLL_VIEWS',
          c ? 'INVALID_PARAMETER' : 'MISSING_PARAMETER',
        );
    }
    return undefined;
  },
  (v) => {
    if (
      typeof v.start_time === 'string' &&
      typeof v.end_time === 'string' &&
      Date.parse(v.end_time) <= Date.parse(v.start_time)
    ) {
      return bad('end_time', 'must be after start_time', 'INVALID_TIME_WINDOW');
    }
    return undefined;
  },
  (v) => {
    const d = v.daily_budget_amount_local_micro;
    const t = v.total_budget_amount_local_micro;
    if (typeof d === 'number' && typeof t === 'number' && d > t)
      return bad(
        'daily_budget_amount_local_micro',
        'must be at most total_budget_amount_local_micro',
        'SPEND_EXCEEDS_BUDGET',
      );
    return undefined;
  },
];

/** The parameters of POST (create) or PUT (update: all optional, the fixed three absent). */
export function lineItemParams(create: boolean): ParamDef[] {
  const opt = <T extends ParamDef>(d: T) => (create ? d : clearable(d));
  return [
    ...(create
      ? [
          p.id('campaign_id', {
            required: true,
            help: 'all line items of a campaign share objective and product_type',
          }),
          p.enumOf('objective', OBJECTIVES, { required: true }),
          p.enumOf('product_type', PRODUCT_TYPES, { required: true }),
          p.list('placements', { of: PLACEMENTS, max: PLACEMENTS.length, required: true }),
        ]
      : [p.list('placements', { of: PLACEMENTS, max: PLACEMENTS.length })]),
    p.str('name', { min: 1, max: 255 }),
    create
      ? p.instant('start_time', { help: 'when delivery may begin (default: now)', cliDefault: 'now' })
      : p.instant('start_time'),
    opt(p.instant('end_time', { help: 'exclusive end of delivery' })),
    opt(
      p.micro('bid_amount_local_micro', {
        help: 'bid in micros of the funding instrument currency ($5.50 = 5500000); required with MAX or TARGET',
      }),
    ),
    p.enumOf('bid_strategy', BID_STRATEGIES, {
      help: 'default: MAX with a bid (TARGET for REACH and FOLLOWERS), else AUTO',
    }),
    p.enumOf('goal', GOALS, { help: 'default from the objective' }),
    p.enumOf('pay_by', PAY_BY, { help: 'APP_INSTALLS, LINK_CLICKS and SITE_VISITS goals only' }),
    create
      ? p.enumOf('entity_status', ['ACTIVE', 'DRAFT', 'PAUSED'], {
          default: 'ACTIVE',
          help: 'xctl sends PAUSED unless told',
          cliDefault: 'PAUSED',
        })
      : p.enumOf('entity_status', ['ACTIVE', 'PAUSED']),
    opt(
      p.str('android_app_store_identifier', {
        pattern: /^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/,
        patternRule: 'an Android package name such as com.example.app',
      }),
    ),
    opt(p.str('ios_app_store_identifier', { pattern: /^\d{1,12}$/, patternRule: 'the numeric App Store id' })),
    opt(p.list('categories', { pattern: /^[A-Za-z0-9_-]{1,64}$/, patternRule: 'a category id such as IAB3-1' })),
    opt(
      p.str('advertiser_domain', {
        pattern: /^(?!https?:)[a-z0-9-]+(\.[a-z0-9-]+)+$/i,
        patternRule: 'a domain without scheme such as example.com',
      }),
    ),
    opt(p.long('advertiser_user_id')),
    opt(p.str('primary_web_event_tag', { min: 1, max: 64 })),
    opt(p.enumOf('audience_expansion', ['BROAD', 'DEFINED', 'EXPANDED'])),
    opt(
      p.int('frequency_cap', {
        min: 1,
        max: 1000,
        help: 'impressions per user; REACH, ENGAGEMENTS, VIDEO_VIEWS, PREROLL_VIEWS',
      }),
    ),
    opt(p.int('duration_in_days', { allowed: FREQUENCY_DAYS, help: 'frequency cap period: 1, 7 or 30' })),
    p.bool('standard_delivery', { help: 'only with campaign budget_optimization LINE_ITEM' }),
    opt(
      p.micro('daily_budget_amount_local_micro', {
        help: 'only with campaign budget_optimization LINE_ITEM; at most the total',
      }),
    ),
    opt(p.micro('total_budget_amount_local_micro')),
  ];
}

const lineItems = resource({
  name: 'line_items',
  dataType: 'line_item',
  noun: 'line-items',
  idParam: 'line_item_id',
  description: 'line items: what is promoted, where, for which objective, at what bid',
  columns: [
    'id',
    'name',
    'campaign_id',
    'objective',
    'product_type',
    'placements',
    'bid_amount_local_micro',
    'entity_status',
    'start_time',
  ],
  operations: () => [
    listOp(
      LIS,
      [
        p.list('campaign_ids'),
        ...commonList(),
        p.list('funding_instrument_ids'),
        p.list('line_item_ids'),
        p.str('q', { min: 1, max: 255, help: 'name prefix, case-insensitive' }),
        p.bool('with_draft', { default: false, help: 'include DRAFT line items' }),
      ],
      { description: 'list line items' },
    ),
    getOp(LI, [p.bool('with_deleted', { default: false })], { description: 'one line item' }),
    createOp(LIS, lineItemParams(true), {
      description: 'create a line item (PAUSED unless --entity-status says otherwise)',
      rules: LINE_ITEM_RULES,
    }),
    updateOp(LI, lineItemParams(false), {
      description: 'change a line item (an empty value unsets an optional field)',
      rules: LINE_ITEM_RULES,
    }),
    deleteOp(LI, [], { description: 'delete a line item (irreversible)' }),
    batchOp(
      `/batch${LIS}`,
      LINE_ITEM_BATCH_MAX,
      {
        Create: { params: lineItemParams(true), rules: LINE_ITEM_RULES },
        Update: {
          params: [p.id('line_item_id', { required: true }), ...lineItemParams(false)],
          rules: LINE_ITEM_RULES,
        },
        Delete: { params: [p.id('line_item_id', { required: true })] },
      },
      {
        description: `create, update and delete up to ${LINE_ITEM_BATCH_MAX} line items at once, all or nothing (--file ops.json|-)`,
      },
    ),
  ],
});

export const RESOURCES: ResourceDef[] = [lineItems];
