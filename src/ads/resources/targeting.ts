// Targeting criteria of line items and the lookups of their values (docs/contract.md, notes-2 section 5).
// What needs the lookup data or the line item's other criteria is the sandbox's:
// src/sandbox/ads/targeting.ts.
import type { ParamDef, ResourceDef, Rule } from '../resource-types.js';
import { commonList, count, cursor, p } from '../params.js';
import { batchOp, createOp, customOp, deleteOp, getOp, listOp, resource } from '../ops.js';
import { isNumericId } from '../../contract/ids.js';
import { isOneOf, stringOrUndefined } from '../../contract/guards.js';

const A = '/accounts/:account_id';
const TCS = `${A}/targeting_criteria`;

/** Notes 5 "Batch": at most 500 items, Create or Delete. */
export const TARGETING_BATCH_MAX = 500;

export const KEYWORD_TYPES = ['BROAD_KEYWORD', 'EXACT_KEYWORD', 'PHRASE_KEYWORD', 'UNORDERED_KEYWORD'] as const;
/** Every targeting_type of notes 5 "targeting_type -> targeting_value". */
export const TARGETING_TYPES = [
  'AGE',
  'GENDER',
  'LOCATION',
  'LANGUAGE',
  'INTEREST',
  'PLATFORM',
  'PLATFORM_VERSION',
  'DEVICE',
  'NETWORK_OPERATOR',
  'WIFI_ONLY',
  'NETWORK_ACTIVATION_DURATION',
  'EVENT',
  'CONVERSATION',
  'TV_SHOW',
  'APP_STORE_CATEGORY',
  'APP_STORE_CATEGORY_LOOKALIKE',
  ...KEYWORD_TYPES,
  'FOLLOWERS_OF_USER',
  'SIMILAR_TO_FOLLOWERS_OF_USER',
  'CUSTOM_AUDIENCE',
  'CUSTOM_AUDIENCE_EXPANDED',
  'ENGAGEMENT_TYPE',
  'CAMPAIGN_ENGAGEMENT',
  'USER_ENGAGEMENT',
  'CAMPAIGN_ENGAGEMENT_LOOKALIKE',
  'USER_ENGAGEMENT_LOOKALIKE',
  'APP_LIST',
  'IAB_CATEGORY',
] as const;
export const OPERATORS = ['EQ', 'NE', 'GTE', 'LT'] as const;
/** AGE buckets (the Python SDK's list, as the notes give it). */
export const AGE_BUCKETS = [
  'AGE_13_TO_24',
  'AGE_13_TO_34',
  'AGE_13_TO_49',
  'AGE_13_TO_54',
  'AGE_OVER_13',
  'AGE_18_TO_34',
  'AGE_18_TO_49',
  'AGE_18_TO_54',
  'AGE_OVER_18',
  'AGE_21_TO_34',
  'AGE_21_TO_49',
  'AGE_21_TO_54',
  'AGE_OVER_21',
  'AGE_25_TO_49',
  'AGE_25_TO_54',
  'AGE_OVER_25',
  'AGE_35_TO_49',
  'AGE_35_TO_54',
  'AGE_OVER_35',
  'AGE_OVER_50',
] as const;
export const ENGAGEMENT_TYPES = [
  'IMPRESSION',
  'ENGAGEMENT',
  'VIDEO_VIEW',
  'VIDEO_VIEW_PARTIAL',
  'VIDEO_VIEW_COMPLETE',
] as const;
/** Per line item (notes 5): how many criteria of a type it may hold. */
export const TARGETING_LIMITS: Record<string, number> = {
  LOCATION: 2000,
  INTEREST: 100,
  SIMILAR_TO_FOLLOWERS_OF_USER: 100,
  AGE: 1,
  EVENT: 1,
  BROAD_KEYWORD: 1000,
  EXACT_KEYWORD: 1000,
  PHRASE_KEYWORD: 1000,
  UNORDERED_KEYWORD: 1000,
};
/** Keyword types share one budget of 1,000 keywords per line item. */
export const KEYWORDS_MAX = 1000;

/** What a value of each type must look like, judged without the lookup data. */
const VALUE_SHAPES: Record<string, { test: (s: string) => boolean; rule: string }> = {
  AGE: {
    test: (s) => isOneOf(AGE_BUCKETS, s),
    rule: `an age bucket such as AGE_21_TO_34 (${AGE_BUCKETS.length} buckets)`,
  },
  GENDER: { test: (s) => s === '1' || s === '2', rule: '1 (male) or 2 (female)' },
  ENGAGEMENT_TYPE: {
    test: (s) => isOneOf(ENGAGEMENT_TYPES, s),
    rule: `one of ${ENGAGEMENT_TYPES.join(', ')}`,
  },
  LANGUAGE: { test: (s) => /^[a-z]{2}$/.test(s), rule: 'an ISO 639-1 code such as en' },
  NETWORK_ACTIVATION_DURATION: { test: (s) => /^\d{1,3}$/.test(s), rule: 'a whole number of months' },
  FOLLOWERS_OF_USER: { test: (s) => isNumericId(s), rule: 'a user id' },
  SIMILAR_TO_FOLLOWERS_OF_USER: { test: (s) => isNumericId(s), rule: 'a user id' },
  USER_ENGAGEMENT: { test: (s) => isNumericId(s), rule: 'the user id of the account' },
  USER_ENGAGEMENT_LOOKALIKE: { test: (s) => isNumericId(s), rule: 'the user id of the account' },
};

const typeIsKnown: Rule = (v) =>
  typeof v.targeting_type === 'string' && !isOneOf(TARGETING_TYPES, v.targeting_type)
    ? {
        param: 'targeting_type',
        code: 'INVALID_TARGETING_TYPE',
        message: `must be a targeting type such as LOCATION, INTEREST, BROAD_KEYWORD, AGE (got ${v.targeting_type})`,
        candidates: TARGETING_TYPES,
      }
    : undefined;
const valueShape: Rule = (v) => {
  const shape = VALUE_SHAPES[String(v.targeting_type)];
  if (!shape || typeof v.targeting_value !== 'string' || shape.test(v.targeting_value)) return undefined;
  return {
    param: 'targeting_value',
    code: 'INVALID_PARAMETER',
    message: `must be ${shape.rule} for targeting_type ${String(v.targeting_type)}`,
  };
};
const operatorFits: Rule = (v) => {
  const op = stringOrUndefined(v.operator_type) ?? 'EQ';
  const t = String(v.targeting_type);
  const range = op === 'GTE' || op === 'LT';
  if (t === 'NETWORK_ACTIVATION_DURATION' && !range)
    return {
      param: 'operator_type',
      code: 'INVALID_PARAMETER',
      message: 'must be GTE or LT for NETWORK_ACTIVATION_DURATION',
    };
  if (range && t !== 'NETWORK_ACTIVATION_DURATION')
    return {
      param: 'operator_type',
      code: 'INVALID_PARAMETER',
      message: `${op} is only for NETWORK_ACTIVATION_DURATION`,
    };
  if (t === 'APP_LIST' && op !== 'NE')
    return {
      param: 'operator_type',
      code: 'INVALID_PARAMETER',
      message: 'must be NE for APP_LIST (app lists only exclude)',
    };
  return undefined;
};
export const TARGETING_RULES: Rule[] = [typeIsKnown, valueShape, operatorFits];

function createParams(): ParamDef[] {
  return [
    p.id('line_item_id', { required: true }),
    p.str('targeting_type', {
      required: true,
      pattern: /^[A-Z_]{2,40}$/,
      patternRule: 'a targeting type such as LOCATION',
      help: `one of ${TARGETING_TYPES.join(', ')}`,
    }),
    p.str('targeting_value', {
      required: true,
      min: 1,
      max: 255,
      help: 'an id from `xctl ads targeting-options <kind>`, a keyword, a bucket...',
    }),
    p.enumOf('operator_type', OPERATORS, {
      default: 'EQ',
      help: 'NE excludes; GTE/LT only for NETWORK_ACTIVATION_DURATION',
    }),
  ];
}

const lang = () =>
  p.str('lang', { pattern: /^[a-z]{2}$/, patternRule: 'an ISO 639-1 code such as en', help: 'adds localized_name' });

const targeting = resource({
  name: 'targeting_criteria',
  dataType: 'targeting_criterion',
  noun: 'targeting',
  idParam: 'targeting_criterion_id',
  description: 'targeting criteria of line items (who sees them); change = delete + add',
  columns: ['id', 'line_item_id', 'targeting_type', 'targeting_value', 'name', 'operator_type'],
  operations: () => [
    listOp(
      TCS,
      [p.list('line_item_ids', { required: true }), p.list('targeting_criterion_ids'), ...commonList(), lang()],
      { description: 'list the targeting criteria of line items' },
    ),
    getOp(`${TCS}/:targeting_criterion_id`, [lang(), p.bool('with_deleted', { default: false })], {
      description: 'one targeting criterion',
    }),
    createOp(TCS, createParams(), {
      verb: 'add',
      description: 'add a targeting criterion to a line item',
      rules: TARGETING_RULES,
    }),
    deleteOp(`${TCS}/:targeting_criterion_id`, [], { description: 'remove a targeting criterion (deleted: true)' }),
    batchOp(
      `/batch${TCS}`,
      TARGETING_BATCH_MAX,
      {
        Create: { params: createParams(), rules: TARGETING_RULES },
        Delete: { params: [p.id('targeting_criterion_id', { required: true })] },
      },
      {
        description: `add and remove up to ${TARGETING_BATCH_MAX} targeting criteria at once, all or nothing (--file ops.json|-)`,
      },
    ),
  ],
});

// ---- the lookups: `xctl ads targeting-options <kind>` ----

const q = () => p.str('q', { min: 1, max: 255, help: 'search term (case-insensitive, part of the name)' });
const COUNTRY = { pattern: /^[A-Z]{2}$/, patternRule: 'a two-letter ISO country code such as US' };
export const LOCATION_TYPES = ['COUNTRIES', 'REGIONS', 'METROS', 'CITIES', 'POSTAL_CODES'] as const;
export const EVENT_TYPES = [
  'CONFERENCE',
  'HOLIDAY',
  'MUSIC_AND_ENTERTAINMENT',
  'OTHER',
  'POLITICS',
  'RECURRING',
  'SPORTS',
] as const;
export const CONVERSATION_TYPES = [
  'ACTORS',
  'ATHLETES',
  'BOOK_GENRES',
  'BOOKS',
  'BRAND_CATEGORIES',
  'BRANDS',
  'CELEBRITIES',
  'COACHES',
  'DIGITAL_CREATORS',
  'ENTERTAINMENT_BRANDS',
  'ENTERTAINMENT_PERSONALITIES',
  'FICTIONAL_CHARACTERS',
  'JOURNALISTS',
  'LIFESTYLES',
  'MOVIE_GENRES',
  'MOVIES',
  'MUSIC_GENRES',
  'MUSICIANS',
  'NEWS_STORIES',
  'NEWS',
  'PERSONS',
  'PLACES',
  'PODCASTS',
  'POLITICAL_AFFILIATIONS',
  'POLITICIANS',
  'PRODUCTS',
  'RADIO_STATIONS',
  'SPORTS_LEAGUES',
  'SPORTS_PERSONALITIES',
  'SPORTS_TEAMS',
  'SPORTS',
  'TRENDS',
  'TV_SHOWS',
  'VIDEO_GAME_PLATFORMS',
  'VIDEO_GAME_PUBLISHERS',
  'VIDEO_GAMES',
] as const;

const L = '/targeting_criteria';
const lookup = (verb: string, path: string, params: ParamDef[], description: string, rules?: Rule[]) =>
  customOp(verb, 'GET', 'list', `${L}/${path}`, params, {
    description,
    rate: 'ads-targeting',
    ...(rules ? { rules } : {}),
  });

const options = resource({
  name: 'targeting_options',
  dataType: 'targeting_option',
  noun: 'targeting-options',
  description: 'the values targeting criteria take: locations, languages, interests, platforms, devices, ...',
  columns: ['targeting_value', 'name', 'targeting_type'],
  operations: () => [
    lookup(
      'locations',
      'locations',
      [q(), p.enumOf('location_type', LOCATION_TYPES), p.str('country_code', COUNTRY), count(), cursor()],
      'countries, regions, metros, cities, postal codes',
    ),
    lookup('languages', 'languages', [q(), count(), cursor()], 'languages (ISO 639-1)'),
    lookup('interests', 'interests', [q(), count(), cursor()], 'interests'),
    lookup('platforms', 'platforms', [q(), count(), lang()], 'platforms (iOS, Android, desktop...)'),
    lookup(
      'platform-versions',
      'platform_versions',
      [q(), p.enumOf('os_type', ['Android', 'iOS'])],
      'operating system versions',
    ),
    lookup('devices', 'devices', [q(), count(), p.enumOf('os_type', ['Android', 'iOS'])], 'mobile devices'),
    lookup(
      'network-operators',
      'network_operators',
      [q(), p.str('country_code', { ...COUNTRY, default: 'US' }), count(), cursor()],
      'mobile network operators of a country',
    ),
    lookup(
      'events',
      'events',
      [
        p.list('event_types', { of: EVENT_TYPES, required: true }),
        p.list('country_codes', COUNTRY),
        p.time('start_time'),
        p.time('end_time'),
        count(),
        cursor(),
      ],
      'events (times in UTC)',
      [
        (v) =>
          typeof v.start_time === 'string' &&
          typeof v.end_time === 'string' &&
          Date.parse(v.end_time) <= Date.parse(v.start_time)
            ? { param: 'end_time', code: 'INVALID_TIME_WINDOW', message: 'must be after start_time' }
            : undefined,
      ],
    ),
    lookup(
      'conversations',
      'conversations',
      [p.enumOf('conversation_type', CONVERSATION_TYPES), count(), cursor()],
      'conversation topics',
    ),
    lookup(
      'app-store-categories',
      'app_store_categories',
      [q(), p.enumOf('os_type', ['ANDROID', 'IOS'])],
      'app store categories',
    ),
    lookup('tv-markets', 'tv_markets', [], 'TV markets (their locale is what tv-shows takes)'),
    lookup(
      'tv-shows',
      'tv_shows',
      [
        p.str('locale', {
          required: true,
          pattern: /^[a-z]{2}-[A-Z]{2}$/,
          patternRule: 'a locale of tv-markets such as en-US',
        }),
        q(),
        count(50, 50),
        cursor(),
      ],
      'TV shows of a market',
    ),
  ],
});

export const RESOURCES: ResourceDef[] = [targeting, options];
