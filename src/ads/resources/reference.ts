// Reference data (spec 4.2): `xctl ads ref <noun>`. Read-only; the sandbox's data and behaviour
// are in src/sandbox/ads/reference.ts.
import type { ResourceDef, Rule } from '../resource-types.js';
import { p } from '../params.js';
import { parseIsoTime } from '../../contract/time.js';
import { customOp, getOp, listOp, resource } from '../ops.js';
import { RESOURCES as ACCOUNT_RESOURCES } from './accounts.js';
import { PRODUCT_TYPES } from './line-items.js';
import { listOrUndefined } from '../../contract/guards.js';

/** Spec section 8: keyword insights take 10 keywords combined and a range of at most 7 days. */
export const KEYWORDS_MAX = 10;
export const INSIGHTS_RANGE_MS = 7 * 24 * 3600_000;

const biddingRules = resource({
  name: 'bidding_rules',
  dataType: 'bidding_rule',
  noun: 'bidding-rules',
  group: 'ref',
  defaultVerb: 'list',
  description: 'minimum and maximum CPE bids per currency (refresh at least monthly)',
  columns: ['currency', 'minimum_cpe_bid_local_micro', 'maximum_cpe_bid_local_micro'],
  operations: () => [
    listOp(
      '/bidding_rules',
      [p.str('currency', { pattern: /^[A-Z]{3}$/, patternRule: 'an ISO 4217 code such as USD' })],
      { description: 'bidding rules' },
    ),
  ],
});

const contentCategories = resource({
  name: 'content_categories',
  dataType: 'content_category',
  noun: 'content-categories',
  group: 'ref',
  defaultVerb: 'list',
  description: 'content categories and the IAB categories each maps to (for IAB_CATEGORY targeting)',
  columns: ['id', 'name', 'iab_categories'],
  operations: () => [listOp('/content_categories', [], { description: 'content categories' })],
});

const businessCategories = resource({
  name: 'advertiser_business_categories',
  dataType: 'advertiser_business_category',
  noun: 'business-categories',
  group: 'ref',
  defaultVerb: 'list',
  description: 'advertiser business categories (one or two per PREROLL_VIEWS line item)',
  columns: ['id', 'name', 'iab_categories'],
  operations: () => [listOp('/advertiser_business_categories', [], { description: 'advertiser business categories' })],
});

const publishers = resource({
  name: 'publishers',
  dataType: 'publisher',
  noun: 'publishers',
  group: 'ref',
  defaultVerb: 'list',
  description: 'publishers of the content that preroll ads run with',
  columns: ['id', 'name', 'screen_name'],
  operations: () => [listOp('/publishers', [], { description: 'publishers' })],
});

const placements = resource({
  name: 'placements',
  dataType: 'placement',
  noun: 'placements',
  group: 'ref',
  defaultVerb: 'list',
  description: 'placements valid for each product type',
  columns: ['product_type', 'placements'],
  operations: () => [
    listOp('/line_items/placements', [p.enumOf('product_type', PRODUCT_TYPES)], {
      description: 'placements by product type',
    }),
  ],
});

const COUNTRY = /^[A-Z]{2}$/;
const curatedCategories = resource({
  name: 'curated_categories',
  dataType: 'curated_category',
  noun: 'curated-categories',
  group: 'ref',
  defaultVerb: 'list',
  idParam: 'curated_category_id',
  description: 'curated categories available in countries (for line-item-categories)',
  columns: ['id', 'name', 'country_codes', 'description'],
  operations: () => [
    listOp(
      '/accounts/:account_id/curated_categories',
      [
        p.list('country_codes', {
          required: true,
          pattern: COUNTRY,
          patternRule: 'a two-letter ISO country code such as US',
        }),
        p.str('cursor', { min: 1 }),
      ],
      { description: 'curated categories of the given countries' },
    ),
    getOp('/accounts/:account_id/curated_categories/:curated_category_id', [], { description: 'one curated category' }),
  ],
});

// `ads ref features` is the account's features endpoint, shown where reference data is looked up.
const accountFeaturesOp = () =>
  ACCOUNT_RESOURCES.find((r) => r.name === 'accounts')!.operations.find((o) => o.verb === 'features')!;
const features = resource({
  name: 'accounts',
  dataType: 'account',
  noun: 'features',
  group: 'ref',
  defaultVerb: 'list',
  description: 'features granted to the account (same as `ads accounts features`)',
  columns: ['value'],
  operations: () => [{ ...accountFeaturesOp(), verb: 'list' }],
});

const keywordsTotal: Rule = (v) => {
  const n = (listOrUndefined(v.keywords)?.length ?? 0) + (listOrUndefined(v.negative_keywords)?.length ?? 0);
  return n > KEYWORDS_MAX
    ? {
        param: 'keywords',
        code: 'INVALID_PARAMETER',
        message: `must be at most ${KEYWORDS_MAX} combined with negative_keywords (got ${n})`,
      }
    : undefined;
};
const insightsRange: Rule = (v) => {
  if (typeof v.start_time !== 'string' || typeof v.end_time !== 'string') return undefined;
  const span = parseIsoTime(v.end_time)! - parseIsoTime(v.start_time)!;
  if (span <= 0) return { param: 'end_time', code: 'INVALID_PARAMETER', message: 'must be after start_time' };
  if (span > INSIGHTS_RANGE_MS)
    return { param: 'end_time', code: 'INVALID_PARAMETER', message: 'must be at most 7 days after start_time' };
  return undefined;
};

const keywordInsights = resource({
  name: 'keyword_insights',
  dataType: 'keyword_insight',
  noun: 'keyword-insights',
  group: 'ref',
  defaultVerb: 'search',
  description: 'search volume of keywords and 30 related keywords, in one country',
  columns: ['keyword', 'related', 'total_volume'],
  operations: () => [
    customOp(
      'search',
      'GET',
      'list',
      '/insights/keywords/search',
      [
        p.enumOf('granularity', ['DAY', 'HOUR'], { required: true }),
        p.list('keywords', {
          required: true,
          max: KEYWORDS_MAX,
          pattern: /^[^,]{1,100}$/,
          patternRule: 'a keyword of 1-100 characters',
        }),
        p.time('start_time', { required: true }),
        p.time('end_time', { help: 'default now; at most 7 days after start_time' }),
        p.str('location', { min: 1, max: 64, help: 'country-level targeting value' }),
        p.list('negative_keywords', {
          max: KEYWORDS_MAX,
          pattern: /^[^,]{1,100}$/,
          patternRule: 'a keyword of 1-100 characters',
        }),
      ],
      { description: 'keyword insights', rules: [keywordsTotal, insightsRange] },
    ),
  ],
});

export const RESOURCES: ResourceDef[] = [
  biddingRules,
  contentCategories,
  businessCategories,
  publishers,
  placements,
  curatedCategories,
  features,
  keywordInsights,
];
