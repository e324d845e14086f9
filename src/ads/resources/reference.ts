// Reference data (spec 4.2): `xctl ads ref <noun>`. Read-only; the sandbox serves fixtures.
import { createHash } from 'node:crypto';
import type { ResourceDef, Rule, SandboxOps } from '../resource-types.js';
import { p } from '../params.js';
import { parseIsoTime, isoSeconds } from '../../contract/time.js';
import { customOp, getOp, listOp } from '../ops.js';
import { RESOURCES as ACCOUNT_RESOURCES } from './accounts.js';
import { PLACEMENTS_BY_PRODUCT, PRODUCT_TYPES } from './line-items.js';

/** Spec section 8: keyword insights take 10 keywords combined and a range of at most 7 days. */
export const KEYWORDS_MAX = 10;
export const INSIGHTS_RANGE_MS = 7 * 24 * 3600_000;

type Row = Record<string, unknown> & { id: string };
const fixed = (rows: Array<Record<string, unknown> & { id: string }>) => (now: string) => rows.map((r) => ({ ...r, created_at: now, updated_at: now, deleted: false }));

const biddingRules: ResourceDef = {
  name: 'bidding_rules',
  dataType: 'bidding_rule',
  noun: 'bidding-rules',
  group: 'ref',
  defaultVerb: 'list',
  description: 'minimum and maximum CPE bids per currency (refresh at least monthly)',
  columns: ['currency', 'minimum_cpe_bid_local_micro', 'maximum_cpe_bid_local_micro'],
  operations: [listOp('/bidding_rules', [p.str('currency', { pattern: /^[A-Z]{3}$/, patternRule: 'an ISO 4217 code such as USD' })], { description: 'bidding rules' })],
  fixtures: fixed(
    [
      ['USD', 10_000, 1_000_000_000],
      ['EUR', 10_000, 900_000_000],
      ['GBP', 10_000, 800_000_000],
      ['JPY', 1_000_000, 100_000_000_000],
    ].map(([c, min, max]) => ({ id: String(c), currency: c, minimum_cpe_bid_local_micro: min, maximum_cpe_bid_local_micro: max })),
  ),
  sandbox: { listFilter: (e, ops) => ops.values.currency === undefined || e.currency === ops.values.currency },
};

const contentCategories: ResourceDef = {
  name: 'content_categories',
  dataType: 'content_category',
  noun: 'content-categories',
  group: 'ref',
  defaultVerb: 'list',
  description: 'content categories and the IAB categories each maps to (for IAB_CATEGORY targeting)',
  columns: ['id', 'name', 'iab_categories'],
  operations: [listOp('/content_categories', [], { description: 'content categories' })],
  fixtures: fixed([
    { id: 's5', name: 'Automotive', iab_categories: ['IAB2'] },
    { id: 's7', name: 'Business', iab_categories: ['IAB3'] },
    { id: 's9', name: 'Education', iab_categories: ['IAB5'] },
    { id: 's13', name: 'Food & Drink', iab_categories: ['IAB8'] },
    { id: 's21', name: 'News', iab_categories: ['IAB12'] },
    { id: 's27', name: 'Sports', iab_categories: ['IAB17'] },
    { id: 's30', name: 'Technology & Computing', iab_categories: ['IAB19'] },
  ]),
};

const businessCategories: ResourceDef = {
  name: 'advertiser_business_categories',
  dataType: 'advertiser_business_category',
  noun: 'business-categories',
  group: 'ref',
  defaultVerb: 'list',
  description: 'advertiser business categories (one or two per PREROLL_VIEWS line item)',
  columns: ['id', 'name', 'iab_categories'],
  operations: [listOp('/advertiser_business_categories', [], { description: 'advertiser business categories' })],
  fixtures: fixed([
    { id: 'bc-auto', name: 'Automotive', iab_categories: ['IAB2'] },
    { id: 'bc-finance', name: 'Finance', iab_categories: ['IAB13'] },
    { id: 'bc-retail', name: 'Retail', iab_categories: ['IAB22'] },
    { id: 'bc-tech', name: 'Technology', iab_categories: ['IAB19'] },
    { id: 'bc-travel', name: 'Travel', iab_categories: ['IAB20'] },
  ]),
};

const publishers: ResourceDef = {
  name: 'publishers',
  dataType: 'publisher',
  noun: 'publishers',
  group: 'ref',
  defaultVerb: 'list',
  description: 'publishers of the content that preroll ads run with',
  columns: ['id', 'name', 'screen_name'],
  operations: [listOp('/publishers', [], { description: 'publishers' })],
  fixtures: fixed([
    { id: 'pub-1', name: 'Sandbox Sports Network', screen_name: 'sandbox_sports' },
    { id: 'pub-2', name: 'Sandbox News Daily', screen_name: 'sandbox_news' },
    { id: 'pub-3', name: 'Sandbox Music', screen_name: 'sandbox_music' },
  ]),
};

const placements: ResourceDef = {
  name: 'placements',
  dataType: 'placement',
  noun: 'placements',
  group: 'ref',
  defaultVerb: 'list',
  description: 'placements valid for each product type',
  columns: ['product_type', 'placements'],
  operations: [listOp('/line_items/placements', [p.enumOf('product_type', PRODUCT_TYPES)], { description: 'placements by product type' })],
  // The line items' placement table, one valid set per placement (TWITTER_PROFILE is never valid alone).
  fixtures: fixed(
    PRODUCT_TYPES.map((t) => ({ id: t, product_type: t, placements: PLACEMENTS_BY_PRODUCT[t].filter((x) => x !== 'TWITTER_PROFILE').map((x) => [x]) })),
  ),
  sandbox: {
    listFilter: (e, ops) => ops.values.product_type === undefined || e.product_type === ops.values.product_type,
    present: ({ id: _id, created_at: _c, updated_at: _u, deleted: _d, ...rest }) => rest,
  },
};

const COUNTRY = /^[A-Z]{2}$/;
const curatedCategories: ResourceDef = {
  name: 'curated_categories',
  dataType: 'curated_category',
  noun: 'curated-categories',
  group: 'ref',
  defaultVerb: 'list',
  idParam: 'curated_category_id',
  description: 'curated categories available in countries (for line-item-categories)',
  columns: ['id', 'name', 'country_codes', 'description'],
  operations: [
    listOp(
      '/accounts/:account_id/curated_categories',
      [p.list('country_codes', { required: true, pattern: COUNTRY, patternRule: 'a two-letter ISO country code such as US' }), p.str('cursor', { min: 1 })],
      { description: 'curated categories of the given countries' },
    ),
    getOp('/accounts/:account_id/curated_categories/:curated_category_id', [], { description: 'one curated category' }),
  ],
  fixtures: fixed([
    { id: 'cc-sports', name: 'Sports fans', description: 'People who follow sports', country_codes: ['US', 'GB', 'CA'] },
    { id: 'cc-tech', name: 'Tech enthusiasts', description: 'Early adopters of technology', country_codes: ['US', 'DE', 'JP'] },
    { id: 'cc-food', name: 'Foodies', description: 'People who love food', country_codes: ['FR', 'US'] },
  ]),
  sandbox: {
    listFilter: (e, ops) => (e.country_codes as string[]).some((c) => (ops.values.country_codes as string[]).includes(c)),
  },
};

// `ads ref features` is the account's features endpoint, shown where reference data is looked up.
const accountFeaturesOp = ACCOUNT_RESOURCES.find((r) => r.name === 'accounts')!.operations.find((o) => o.verb === 'features')!;
const features: ResourceDef = {
  name: 'accounts',
  dataType: 'account',
  noun: 'features',
  group: 'ref',
  defaultVerb: 'list',
  description: 'features granted to the account (same as `ads accounts features`)',
  columns: ['value'],
  operations: [{ ...accountFeaturesOp, verb: 'list' }],
};

const keywordsTotal: Rule = (v) => {
  const n = ((v.keywords as string[] | undefined)?.length ?? 0) + ((v.negative_keywords as string[] | undefined)?.length ?? 0);
  return n > KEYWORDS_MAX ? { param: 'keywords', code: 'INVALID_PARAMETER', message: `must be at most ${KEYWORDS_MAX} combined with negative_keywords (got ${n})` } : undefined;
};
const insightsRange: Rule = (v) => {
  if (typeof v.start_time !== 'string' || typeof v.end_time !== 'string') return undefined;
  const span = parseIsoTime(v.end_time)! - parseIsoTime(v.start_time)!;
  if (span <= 0) return { param: 'end_time', code: 'INVALID_PARAMETER', message: 'must be after start_time' };
  if (span > INSIGHTS_RANGE_MS) return { param: 'end_time', code: 'INVALID_PARAMETER', message: 'must be at most 7 days after start_time' };
  return undefined;
};

function volume(seed: string, i: number): number {
  return createHash('sha256').update(`${seed}|${i}`).digest().readUInt16BE(0);
}

const RELATED = ['news', 'today', 'tips', 'deals', 'review', 'online', 'near me', 'best', 'how to', 'vs', 'price', 'app', 'live', 'results', 'schedule'];

function insights(ops: SandboxOps): Row[] {
  const v = ops.values;
  const from = parseIsoTime(v.start_time as string)!;
  const to = v.end_time ? parseIsoTime(v.end_time as string)! : ops.nowMs();
  if (to - from > INSIGHTS_RANGE_MS) ops.fail(400, 'INVALID_PARAMETER', 'the range from start_time to end_time (default now) must be at most 7 days', 'start_time');
  if (to <= from) ops.fail(400, 'INVALID_PARAMETER', 'start_time must be before end_time (default now)', 'start_time');
  const step = v.granularity === 'HOUR' ? 3600_000 : 24 * 3600_000;
  const buckets: number[] = [];
  for (let t = from; t < to; t += step) buckets.push(t);
  const row = (keyword: string, related: boolean): Row => {
    const series = buckets.map((t, i) => ({ time: isoSeconds(t), volume: volume(`${keyword}|${v.location ?? ''}`, i) }));
    return { id: keyword, keyword, related, total_volume: series.reduce((a, b) => a + b.volume, 0), volumes: series };
  };
  const input = (v.keywords as string[]).map((k) => row(k, false));
  // Spec 4.2: the input keywords plus 30 related ones, for one country.
  const related: Row[] = [];
  for (let i = 0; related.length < 30; i++) related.push(row(`${(v.keywords as string[])[i % (v.keywords as string[]).length]} ${RELATED[i % RELATED.length]}${i >= RELATED.length ? ` ${Math.floor(i / RELATED.length) + 1}` : ''}`, true));
  return [...input, ...related];
}

const keywordInsights: ResourceDef = {
  name: 'keyword_insights',
  dataType: 'keyword_insight',
  noun: 'keyword-insights',
  group: 'ref',
  defaultVerb: 'search',
  description: 'search volume of keywords and 30 related keywords, in one country',
  columns: ['keyword', 'related', 'total_volume'],
  operations: [
    customOp(
      'search',
      'GET',
      'list',
      '/insights/keywords/search',
      [
        p.enumOf('granularity', ['DAY', 'HOUR'], { required: true }),
        p.list('keywords', { required: true, max: KEYWORDS_MAX, pattern: /^[^,]{1,100}$/, patternRule: 'a keyword of 1-100 characters' }),
        p.time('start_time', { required: true }),
        p.time('end_time', { help: 'default now; at most 7 days after start_time' }),
        p.str('location', { min: 1, max: 64, help: 'country-level targeting value' }),
        p.list('negative_keywords', { max: KEYWORDS_MAX, pattern: /^[^,]{1,100}$/, patternRule: 'a keyword of 1-100 characters' }),
      ],
      { description: 'keyword insights', rules: [keywordsTotal, insightsRange], sandbox: insights },
    ),
  ],
};

export const RESOURCES: ResourceDef[] = [biddingRules, contentCategories, businessCategories, publishers, placements, curatedCategories, features, keywordInsights];
