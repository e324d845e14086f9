// Ads analytics (docs/contract.md, notes-2 section 6): synchronous stats, asynchronous stats jobs and
// active entities. The ranges, id counts and metric groups are checked before sending; the
// sandbox's simulated metrics are in src/sandbox/ads/stats.ts.
import * as z from 'zod';
import type { ParamDef, ResourceDef, Rule, Values } from '../resource-types.js';
import { count, cursor, exclusive, p } from '../params.js';
import { parseInstant } from '../../contract/time.js';
import { customOp, deleteOp, listOp, resource } from '../ops.js';
import { listOrUndefined } from '../../contract/guards.js';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** Notes 6: sync range 7 days; async 90 days (45 when segmented); active entities 90 days. */
export const SYNC_RANGE_DAYS = 7;
export const JOB_RANGE_DAYS = 90;
export const JOB_SEGMENTED_RANGE_DAYS = 45;
export const ACTIVE_RANGE_DAYS = 90;
/** Notes 6: 1-20 entity ids per request; 100 QUEUED or PROCESSING jobs per account. */
export const STATS_IDS_MAX = 20;
export const CONCURRENT_JOBS_MAX = 100;

export const STATS_ENTITIES = [
  'ACCOUNT',
  'CAMPAIGN',
  'FUNDING_INSTRUMENT',
  'LINE_ITEM',
  'PROMOTED_ACCOUNT',
  'PROMOTED_TWEET',
  'MEDIA_CREATIVE',
  'ORGANIC_TWEET',
] as const;
export const ACTIVE_ENTITIES = [
  'CAMPAIGN',
  'FUNDING_INSTRUMENT',
  'LINE_ITEM',
  'PROMOTED_ACCOUNT',
  'PROMOTED_TWEET',
] as const;
export const GRANULARITIES = ['DAY', 'HOUR', 'TOTAL'] as const;
export const METRIC_GROUPS = [
  'BILLING',
  'ENGAGEMENT',
  'LIFE_TIME_VALUE_MOBILE_CONVERSION',
  'MOBILE_CONVERSION',
  'VIDEO',
  'WEB_CONVERSION',
] as const;
export const STATS_PLACEMENTS = ['ALL_ON_TWITTER', 'SPOTLIGHT', 'TREND', 'PUBLISHER_NETWORK'] as const;
export const SEGMENTATION_TYPES = ['AGE', 'GENDER', 'METROS', 'PLATFORMS', 'CONVERSION_TAGS'] as const;
export const JOB_STATUSES = ['QUEUED', 'PROCESSING', 'SUCCESS', 'FAILED', 'CANCELLED'] as const;

/** The metrics of each group (notes 6 "Metrics by group"), in the order responses carry them. */
export const METRICS: Record<(typeof METRIC_GROUPS)[number], readonly string[]> = {
  ENGAGEMENT: [
    'impressions',
    'engagements',
    'retweets',
    'replies',
    'likes',
    'follows',
    'card_engagements',
    'clicks',
    'app_clicks',
    'url_clicks',
    'qualified_impressions',
    'carousel_swipes',
    'tweets_send',
    'poll_card_vote',
    'unfollows',
  ],
  BILLING: ['billed_engagements', 'billed_charge_local_micro'],
  VIDEO: [
    'video_total_views',
    'video_views_25',
    'video_views_50',
    'video_views_75',
    'video_views_100',
    'video_cta_clicks',
    'video_content_starts',
    'video_3s100pct_views',
    'video_6s_views',
    'video_15s_views',
  ],
  WEB_CONVERSION: [
    'conversion_purchases',
    'conversion_sign_ups',
    'conversion_site_visits',
    'conversion_downloads',
    'conversion_custom',
    'conversion_add_to_carts',
    'conversion_checkouts_initiated',
    'conversion_content_views',
    'conversion_payment_info_additions',
    'conversion_add_to_wishlists',
    'conversion_searches',
    'conversion_landing_page_views',
    'conversion_subscriptions',
  ],
  MOBILE_CONVERSION: [
    'spent_credits',
    'installs',
    'content_views',
    'add_to_wishlists',
    'checkouts_initiated',
    'reservations',
    'tutorials_completed',
    'achievements_unlocked',
    'searches',
    'add_to_carts',
    'payment_info_additions',
    're_engages',
    'shares',
    'rates',
    'logins',
    'updates',
    'levels_achieved',
    'invites',
    'key_page_views',
    'downloads',
    'purchases',
    'sign_ups',
    'site_visits',
  ].map((m) => `mobile_conversion_${m}`),
  LIFE_TIME_VALUE_MOBILE_CONVERSION: [
    'purchases',
    'sign_ups',
    'updates',
    'tutorials_completed',
    'reservations',
    'add_to_carts',
    'add_to_wishlists',
    'checkouts_initiated',
    'levels_achieved',
    'achievements_unlocked',
    'shares',
    'invites',
    'payment_info_additions',
    'spent_credits',
    'rates',
  ].map((m) => `mobile_conversion_lifetime_value_${m}`),
};
/** ENGAGEMENT metrics that ACCOUNT and FUNDING_INSTRUMENT do not carry. */
export const CREATIVE_ONLY_METRICS = [
  'card_engagements',
  'clicks',
  'app_clicks',
  'url_clicks',
  'qualified_impressions',
  'carousel_swipes',
];
/** Conversion groups hold objects of these arrays (notes 6 Proposal). */
export const CONVERSION_KEYS = ['post_view', 'post_engagement', 'assisted', 'order_quantity', 'sale_amount'];

/** Metric groups an entity supports (ACCOUNT only ENGAGEMENT; FUNDING_INSTRUMENT also BILLING). */
const GROUPS_OF: Partial<Record<string, readonly string[]>> = {
  ACCOUNT: ['ENGAGEMENT'],
  FUNDING_INSTRUMENT: ['ENGAGEMENT', 'BILLING'],
};

/**
 * A stats time (notes 6): ISO 8601 at a whole hour, or a date alone (midnight in the account's
 * timezone; kept as given, since only the service knows that timezone).
 */
function statsTime(name: string, flag: string, o: { required?: boolean; help?: string } = {}): ParamDef {
  const hours = p.time(name, { ...o, wholeHours: true });
  const d = p.str(name, o);
  d.schema = z.preprocess(
    (x) => (typeof x === 'number' ? String(x) : x),
    z.string({ error: 'must be a string' }).superRefine((s, ctx) => {
      if (/^\d{4}-\d{2}-\d{2}$/.test(s)) {
        if (parseInstant(s) === undefined)
          ctx.addIssue({ code: 'custom', message: 'must be a real date such as 2026-05-19' });
        return;
      }
      const r = hours.schema.safeParse(s);
      if (!r.success)
        ctx.addIssue({
          code: 'custom',
          message: r.error.issues[0]?.message ?? 'must be an ISO 8601 time at a whole hour, or a date',
        });
    }),
  ) as ParamDef['schema'];
  d.kind = 'time';
  d.rule = 'ISO 8601 at a whole hour, or a date (midnight in the account timezone)';
  d.flag = flag;
  return d;
}

const ms = (x: unknown) => (typeof x === 'string' ? parseInstant(x) : undefined);

/** end after start, and the range at most `days` (more when `segmentedDays` and segmented). */
function rangeRule(days: number, segmentedDays?: number): Rule {
  return (v) => {
    const a = ms(v.start_time);
    const b = ms(v.end_time);
    if (a === undefined || b === undefined) return undefined;
    if (b <= a) return { param: 'end_time', code: 'INVALID_TIME_WINDOW', message: 'must be after start_time' };
    const max = segmentedDays !== undefined && v.segmentation_type !== undefined ? segmentedDays : days;
    // A date alone is midnight in the account timezone: allow one hour of daylight-saving slack.
    const slack =
      /^\d{4}-\d{2}-\d{2}$/.test(String(v.start_time)) !== /^\d{4}-\d{2}-\d{2}$/.test(String(v.end_time))
        ? DAY_MS
        : HOUR_MS;
    if (
      b - a >
      max * DAY_MS +
        (typeof v.start_time === 'string' && typeof v.end_time === 'string' && /T/.test(`${v.start_time}${v.end_time}`)
          ? 0
          : slack)
    ) {
      return {
        param: 'end_time',
        code: 'INVALID_TIME_WINDOW',
        message: `must be at most ${max} days after start_time${segmentedDays !== undefined && max === segmentedDays ? ' (segmented)' : ''}`,
      };
    }
    return undefined;
  };
}

const groupsFitEntity: Rule = (v) => {
  const allowed = GROUPS_OF[String(v.entity)];
  const off = allowed ? listOrUndefined(v.metric_groups)?.find((g) => !allowed.includes(g)) : undefined;
  return off
    ? {
        param: 'metric_groups',
        code: 'INVALID_PARAMETER',
        message: `${off} is not available for entity ${String(v.entity)} (only ${allowed!.join(', ')})`,
      }
    : undefined;
};

const segmentationFits: Rule = (v: Values) => {
  if (
    v.segmentation_type === 'CONVERSION_TAGS' &&
    !listOrUndefined(v.metric_groups)?.every((g) => g === 'WEB_CONVERSION')
  ) {
    return {
      param: 'segmentation_type',
      code: 'INVALID_PARAMETER',
      message: 'CONVERSION_TAGS is only for metric_groups WEB_CONVERSION',
    };
  }
  if (v.segmentation_type === 'METROS' && v.country === undefined)
    return {
      param: 'country',
      code: 'MISSING_PARAMETER',
      message: "is required with segmentation_type METROS (the country's LOCATION value, US = 96683cc9126741d1)",
    };
  return undefined;
};

function queryParams(): ParamDef[] {
  return [
    p.enumOf('entity', STATS_ENTITIES, { required: true }),
    { ...p.list('entity_ids', { max: STATS_IDS_MAX, required: true }), flag: '--ids' },
    statsTime('start_time', '--start', { required: true }),
    statsTime('end_time', '--end', { required: true, help: 'exclusive' }),
    p.enumOf('granularity', GRANULARITIES, { required: true, cliDefault: 'DAY', help: 'xctl sends DAY unless told' }),
    p.list('metric_groups', {
      of: METRIC_GROUPS,
      max: METRIC_GROUPS.length,
      required: true,
      cliDefault: 'ENGAGEMENT,BILLING',
      help: 'xctl sends ENGAGEMENT,BILLING unless told',
    }),
    p.enumOf('placement', STATS_PLACEMENTS, {
      required: true,
      cliDefault: 'ALL_ON_TWITTER',
      help: 'one placement per request',
    }),
  ];
}

const ACCT = '/stats/accounts/:account_id';

const stats = resource({
  name: 'stats',
  dataType: 'stats',
  noun: 'stats',
  defaultVerb: 'query',
  description: 'analytics: metrics of entities over a time range (sync), stats jobs (async), active entities',
  columns: ['id', 'start', 'impressions', 'engagements', 'clicks', 'billed_engagements', 'billed_charge_local_micro'],
  operations: () => [
    customOp('query', 'GET', 'one', ACCT, queryParams(), {
      description: `metrics of up to ${STATS_IDS_MAX} entities over at most ${SYNC_RANGE_DAYS} days, one row per entity and time bucket`,
      rules: [rangeRule(SYNC_RANGE_DAYS), groupsFitEntity],
      rate: 'ads-stats',
      output: 'stats',
    }),
    customOp(
      'active-entities',
      'GET',
      'list',
      `${ACCT}/active_entities`,
      [
        p.enumOf('entity', ACTIVE_ENTITIES, { required: true }),
        // Whole hours, or dates as the Ads SDK's example and tests send (as sync stats take them).
        statsTime('start_time', '--start-time', { required: true }),
        statsTime('end_time', '--end-time', { required: true }),
        p.list('campaign_ids'),
        p.list('funding_instrument_ids'),
        p.list('line_item_ids'),
      ],
      {
        description: `entities whose metrics may have changed in a range of at most ${ACTIVE_RANGE_DAYS} days (ask stats for those only)`,
        rules: [
          rangeRule(ACTIVE_RANGE_DAYS),
          exclusive('campaign_ids', 'funding_instrument_ids'),
          exclusive('campaign_ids', 'line_item_ids'),
          exclusive('funding_instrument_ids', 'line_item_ids'),
        ],
        columns: ['entity_id', 'activity_start_time', 'activity_end_time', 'placements'],
      },
    ),
  ],
});

const JOBS = '/stats/jobs/accounts/:account_id';

const statsJobs = resource({
  name: 'stats_jobs',
  dataType: 'job',
  noun: 'job',
  group: 'stats',
  idParam: 'job_id',
  description: `asynchronous stats jobs: ranges up to ${JOB_RANGE_DAYS} days, segmentation, a gzipped result file`,
  columns: ['id_str', 'status', 'entity', 'granularity', 'start_time', 'end_time', 'segmentation_type', 'expires_at'],
  operations: () => [
    customOp(
      'create',
      'POST',
      'one',
      JOBS,
      [
        ...queryParams(),
        p.enumOf('segmentation_type', SEGMENTATION_TYPES),
        p.str('country', {
          pattern: /^[0-9a-f]{16}$/,
          patternRule: 'a country LOCATION targeting value (US = 96683cc9126741d1)',
        }),
        p.str('platform', { min: 1, max: 32, help: 'a PLATFORM targeting value' }),
      ],
      {
        std: 'create',
        description: `start a stats job (at most ${CONCURRENT_JOBS_MAX} queued or processing per account)`,
        rules: [rangeRule(JOB_RANGE_DAYS, JOB_SEGMENTED_RANGE_DAYS), groupsFitEntity, segmentationFits],
      },
    ),
    listOp(JOBS, [p.list('job_ids', { of: 'long' }), count(), cursor()], {
      description: 'list stats jobs, newest first',
    }),
    deleteOp(`${JOBS}/:job_id`, [], { verb: 'cancel', description: 'cancel a QUEUED or PROCESSING job' }),
  ],
});

export const RESOURCES: ResourceDef[] = [stats, statsJobs];
