// Reference data (src/ads/resources/reference.ts) in the sandbox: the fixtures it serves, their
// filters, and keyword insights computed from a hash of the keyword (stable across runs).
import { createHash } from 'node:crypto';
import type { SandboxOps } from '../../ads/resource-types.js';
import { INSIGHTS_RANGE_MS } from '../../ads/resources/reference.js';
import { PLACEMENTS_BY_PRODUCT, PRODUCT_TYPES } from '../../ads/resources/line-items.js';
import { isoSeconds, parseIsoTime } from '../../contract/time.js';
import type { Behaviour } from './behaviour.js';
import { listOf } from '../../contract/guards.js';
import { LOCATIONS } from './targeting-data.js';

type Row = Record<string, unknown> & { id: string };
const fixed = (rows: Row[]) => (now: string) =>
  rows.map((r) => ({ ...r, created_at: now, updated_at: now, deleted: false }));

export const BIDDING_RULES: Behaviour = {
  fixtures: fixed(
    [
      ['USD', 10_000, 1_000_000_000],
      ['EUR', 10_000, 900_000_000],
      ['GBP', 10_000, 800_000_000],
      ['JPY', 1_000_000, 100_000_000_000],
    ].map(([c, min, max]) => ({
      id: String(c),
      currency: c,
      minimum_cpe_bid_local_micro: min,
      maximum_cpe_bid_local_micro: max,
    })),
  ),
  hooks: { listFilter: (e, ops) => ops.values.currency === undefined || e.currency === ops.values.currency },
};

export const CONTENT_CATEGORIES: Behaviour = {
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

export const BUSINESS_CATEGORIES: Behaviour = {
  fixtures: fixed([
    { id: 'bc-auto', name: 'Automotive', iab_categories: ['IAB2'] },
    { id: 'bc-finance', name: 'Finance', iab_categories: ['IAB13'] },
    { id: 'bc-retail', name: 'Retail', iab_categories: ['IAB22'] },
    { id: 'bc-tech', name: 'Technology', iab_categories: ['IAB19'] },
    { id: 'bc-travel', name: 'Travel', iab_categories: ['IAB20'] },
  ]),
};

export const PUBLISHERS: Behaviour = {
  fixtures: fixed([
    { id: 'pub-1', name: 'Sandbox Sports Network', screen_name: 'sandbox_sports' },
    { id: 'pub-2', name: 'Sandbox News Daily', screen_name: 'sandbox_news' },
    { id: 'pub-3', name: 'Sandbox Music', screen_name: 'sandbox_music' },
  ]),
};

export const PLACEMENTS: Behaviour = {
  // The line items' placement table, one valid set per placement (TWITTER_PROFILE is never valid alone).
  fixtures: fixed(
    PRODUCT_TYPES.map((t) => ({
      id: t,
      product_type: t,
      placements: PLACEMENTS_BY_PRODUCT[t].filter((x) => x !== 'TWITTER_PROFILE').map((x) => [x]),
    })),
  ),
  hooks: {
    listFilter: (e, ops) => ops.values.product_type === undefined || e.product_type === ops.values.product_type,
    present: ({ id: _id, created_at: _c, updated_at: _u, deleted: _d, ...rest }) => rest,
  },
};

export const CURATED_CATEGORIES: Behaviour = {
  fixtures: fixed([
    {
      id: 'cc-sports',
      name: 'Sports fans',
      description: 'People who follow sports',
      country_codes: ['US', 'GB', 'CA'],
    },
    {
      id: 'cc-tech',
      name: 'Tech enthusiasts',
      description: 'Early adopters of technology',
      country_codes: ['US', 'DE', 'JP'],
    },
    { id: 'cc-food', name: 'Foodies', description: 'People who love food', country_codes: ['FR', 'US'] },
  ]),
  hooks: {
    listFilter: (e, ops) => listOf(e.country_codes).some((c) => listOf(ops.values.country_codes).includes(c)),
  },
};

function volume(seed: string, i: number): number {
  return createHash('sha256').update(`${seed}|${i}`).digest().readUInt16BE(0);
}

const RELATED = [
  'news',
  'today',
  'tips',
  'deals',
  'review',
  'online',
  'near me',
  'best',
  'how to',
  'vs',
  'price',
  'app',
  'live',
  'results',
  'schedule',
];

function insights(ops: SandboxOps): Row[] {
  const v = ops.values;
  const from = parseIsoTime(String(v.start_time))!;
  const to = v.end_time ? parseIsoTime(String(v.end_time))! : ops.nowMs();
  if (to - from > INSIGHTS_RANGE_MS)
    ops.fail(
      400,
      'INVALID_PARAMETER',
      'the range from start_time to end_time (default now) must be at most 7 days',
      'start_time',
    );
  if (to <= from) ops.fail(400, 'INVALID_PARAMETER', 'start_time must be before end_time (default now)', 'start_time');
  // docs/contract.md, ads 4.2: the insights are scoped to one country; location is a country's targeting value.
  if (v.location !== undefined) {
    const place = LOCATIONS.find((l) => l.targeting_value === v.location);
    if (place?.location_type !== 'COUNTRIES')
      ops.fail(
        400,
        'INVALID_PARAMETER',
        `location must be the targeting value of a country (location_type COUNTRIES)${place ? `, not of ${String(place.location_type)} (${String(place.name)})` : ''}`,
        'location',
      );
  }
  const step = v.granularity === 'HOUR' ? 3600_000 : 24 * 3600_000;
  const buckets: number[] = [];
  for (let t = from; t < to; t += step) buckets.push(t);
  const row = (keyword: string, related: boolean): Row => {
    const series = buckets.map((t, i) => ({
      time: isoSeconds(t),
      volume: volume(`${keyword}|${v.location ?? ''}`, i),
    }));
    return { id: keyword, keyword, related, total_volume: series.reduce((a, b) => a + b.volume, 0), volumes: series };
  };
  const input = listOf(v.keywords).map((k) => row(k, false));
  // Spec 4.2: the input keywords plus 30 related ones, for one country.
  const related: Row[] = [];
  for (let i = 0; related.length < 30; i++)
    related.push(
      row(
        `${listOf(v.keywords)[i % listOf(v.keywords).length]} ${RELATED[i % RELATED.length]}${i >= RELATED.length ? ` ${Math.floor(i / RELATED.length) + 1}` : ''}`,
        true,
      ),
    );
  return [...input, ...related];
}

export const KEYWORD_INSIGHTS: Behaviour = { ops: { search: insights } };
