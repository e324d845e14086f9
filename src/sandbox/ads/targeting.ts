// Targeting criteria in the emulator (docs/contract.md, notes-2 section 5): values checked against the
// lookup data, the per-line-item limits and pairings (one AGE, one EVENT, ENGAGEMENT_TYPE after
// a CAMPAIGN_ENGAGEMENT or USER_ENGAGEMENT, TV shows inside a targeted market, devices not under
// a broader platform), display names, and the lookup endpoints.
import type { SandboxOps } from '../../ads/resource-types.js';
import { KEYWORDS_MAX, KEYWORD_TYPES, TARGETING_LIMITS } from '../../ads/resources/targeting.js';
import type { Behaviour } from './behaviour.js';
import * as D from './targeting-data.js';
import { isOneOf, listOf, listOrUndefined } from '../../contract/guards.js';

type Rec = Record<string, unknown>;
const GENDERS: Record<string, string> = { '1': 'Male', '2': 'Female' };
const ENGAGEMENT_SOURCES = ['CAMPAIGN_ENGAGEMENT', 'USER_ENGAGEMENT'];

function criteriaOf(ops: SandboxOps, lineItemId: unknown): Rec[] {
  return [...ops.collection('targeting_criteria').values()].filter((t) => t.line_item_id === lineItemId && !t.deleted);
}

function lookupItem(ops: SandboxOps, type: string, value: string): Rec | undefined {
  const items = D.BY_TYPE[type];
  if (!items) return undefined;
  const hit = items.find((i) => i.targeting_value === value);
  if (!hit)
    ops.fail(
      400,
      'INVALID_PARAMETER',
      `targeting_value ${value} is not a ${type} of the lookup data (xctl ads targeting-options ${kindOf(type)})`,
      'targeting_value',
    );
  return hit;
}

const kindOf = (type: string) =>
  ({ APP_STORE_CATEGORY_LOOKALIKE: 'app-store-categories' })[type as 'APP_STORE_CATEGORY_LOOKALIKE'] ??
  `${type.toLowerCase().replace(/_/g, '-')}s`;

function audienceUsable(ops: SandboxOps, id: string): Rec | undefined {
  const aud = ops.collection('custom_audiences').get(id);
  if (!aud || aud.deleted) return undefined;
  if (aud.account_id === ops.accountId) return aud;
  for (const g of ops.collection('custom_audience_permissions').values())
    if (g.custom_audience_id === id && g.granted_account_id === ops.accountId && !g.deleted) return aud;
  return undefined;
}

/** Display name and extra fields of a new criterion; fails when the value is not valid for its type. */
function resolve(ops: SandboxOps, tc: Rec, existing: Rec[]): void {
  const type = String(tc.targeting_type);
  const value = String(tc.targeting_value);
  const item = lookupItem(ops, type, value);
  nameCriterion(ops, tc, { type, value, item });
  checkAgainstLineItem(ops, tc, existing, { type, value, item });
}

/** The criterion's display name, from the lookup table or what its value points at (which must exist). */
function nameCriterion(ops: SandboxOps, tc: Rec, c: { type: string; value: string; item: Rec | undefined }): void {
  const { type, value, item } = c;
  if (item) {
    tc.name = item.name;
    if (type === 'LOCATION') tc.location_type = D.SINGULAR_LOCATION[String(item.location_type)];
  } else if (type === 'GENDER') tc.name = GENDERS[value];
  else if (
    isOneOf(KEYWORD_TYPES, type) ||
    type === 'AGE' ||
    type === 'ENGAGEMENT_TYPE' ||
    type === 'WIFI_ONLY' ||
    type === 'APP_LIST'
  )
    tc.name = value;
  else if (type === 'NETWORK_ACTIVATION_DURATION')
    tc.name = `${tc.operator_type === 'LT' ? 'Less than' : 'At least'} ${value} months`;
  else if (type === 'CUSTOM_AUDIENCE' || type === 'CUSTOM_AUDIENCE_EXPANDED') {
    const aud = audienceUsable(ops, value);
    if (!aud)
      ops.fail(
        404,
        'TAILORED_AUDIENCE_NOT_FOUND',
        `custom audience ${value} is not one the account can target (not its own, not shared with it, or deleted)`,
        'targeting_value',
      );
    tc.name = 'Custom audience targeting';
  } else if (type === 'FOLLOWERS_OF_USER' || type === 'USER_ENGAGEMENT' || type === 'USER_ENGAGEMENT_LOOKALIKE') {
    const promotable = [...ops.collection('promotable_users').values()].find(
      (u) => u.account_id === ops.accountId && u.user_id === value && !u.deleted,
    );
    const full = promotable?.promotable_user_type === 'FULL';
    if (type === 'FOLLOWERS_OF_USER' ? !full : !promotable)
      ops.fail(
        400,
        'INVALID_PARAMETER',
        `targeting_value ${value} must be ${type === 'FOLLOWERS_OF_USER' ? 'a FULL promotable user' : 'a promotable user'} of the account`,
        'targeting_value',
      );
    tc.name = `@${ops.user(value)?.screen_name ?? value}`;
  } else if (type === 'SIMILAR_TO_FOLLOWERS_OF_USER') tc.name = `@${ops.user(value)?.screen_name ?? value}`;
  else if (type === 'CAMPAIGN_ENGAGEMENT' || type === 'CAMPAIGN_ENGAGEMENT_LOOKALIKE') {
    const c = ops.collection('campaigns').get(value);
    if (!c || c.account_id !== ops.accountId || c.deleted)
      ops.fail(
        400,
        'INVALID_PARAMETER',
        `targeting_value ${value} is not a campaign of the account`,
        'targeting_value',
      );
    tc.name = String(c.name);
  } else if (type === 'IAB_CATEGORY') {
    const iab = new Set([...ops.collection('content_categories').values()].flatMap((c) => listOf(c.iab_categories)));
    if (!iab.has(value.split('-')[0]!))
      ops.fail(
        404,
        'INVALID_IAB_CATEGORY',
        `targeting_value ${value} is not an IAB category of the content categories`,
        'targeting_value',
      );
    tc.name = value;
  }
}

/** The line item's other criteria: per-type caps, keyword cap, prerequisites, overlaps. */
function checkAgainstLineItem(
  ops: SandboxOps,
  tc: Rec,
  existing: Rec[],
  c: { type: string; value: string; item: Rec | undefined },
): void {
  const { type, value, item } = c;
  const same = existing.filter((t) => t.targeting_type === type);
  const limit = TARGETING_LIMITS[type];
  if (limit === 1 && same.length)
    ops.fail(
      400,
      'INVALID_PARAMETER',
      `a line item takes one ${type} criterion (it has ${String(same[0]!.targeting_value)}; delete it first)`,
      'targeting_type',
    );
  if (limit && same.length >= limit)
    ops.fail(400, 'INVALID_PARAMETER', `a line item takes at most ${limit} ${type} criteria`, 'targeting_type');
  if (
    isOneOf(KEYWORD_TYPES, type) &&
    existing.filter((t) => isOneOf(KEYWORD_TYPES, String(t.targeting_type))).length >= KEYWORDS_MAX
  ) {
    ops.fail(400, 'INVALID_PARAMETER', `a line item takes at most ${KEYWORDS_MAX} keywords`, 'targeting_type');
  }
  if (type === 'ENGAGEMENT_TYPE' && !existing.some((t) => ENGAGEMENT_SOURCES.includes(String(t.targeting_type)))) {
    ops.fail(
      400,
      'INVALID_PARAMETER',
      'ENGAGEMENT_TYPE needs a CAMPAIGN_ENGAGEMENT or USER_ENGAGEMENT criterion on the line item first',
      'targeting_type',
    );
  }
  if (type === 'TV_SHOW') {
    const show = item!;
    const market = D.TV_MARKETS.find((m) => m.locale === show.locale);
    const countries = existing
      .filter((t) => t.targeting_type === 'LOCATION')
      .map((t) => D.LOCATIONS.find((l) => l.targeting_value === t.targeting_value)?.country_code);
    if (!countries.length)
      ops.fail(
        400,
        'INVALID_TV_SHOW_LOCATIONS',
        "TV_SHOW needs a LOCATION criterion in the show's market first",
        'targeting_value',
      );
    if (!countries.includes(market?.country_code))
      ops.fail(
        400,
        'TV_SHOW_OUTSIDE_MARKET',
        `TV show ${value} airs in ${String(market?.country_code)}, outside the targeted locations`,
        'targeting_value',
      );
  }
  // A device under a platform that already covers it (or the reverse) overlaps.
  const platformOf = (t: Rec) =>
    t.targeting_type === 'DEVICE'
      ? D.DEVICES.find((d) => d.targeting_value === t.targeting_value)?.os_type
      : t.targeting_type === 'PLATFORM'
        ? D.PLATFORMS.find((p) => p.targeting_value === t.targeting_value)?.name
        : undefined;
  if (type === 'DEVICE' || type === 'PLATFORM') {
    const mine = platformOf(tc);
    const other = type === 'DEVICE' ? 'PLATFORM' : 'DEVICE';
    if (
      mine &&
      existing.some((t) => t.targeting_type === other && t.operator_type !== 'NE' && platformOf(t) === mine) &&
      tc.operator_type !== 'NE'
    ) {
      ops.fail(
        400,
        'INVALID_PARAMETER',
        `${type} ${value} overlaps a ${other} criterion of the same platform (${String(mine)}) on the line item`,
        'targeting_value',
      );
    }
  }
}

/** Lookup items filtered by the common `q` (part of the name, case-insensitive). */
function byQ(items: Rec[], ops: SandboxOps): Rec[] {
  const q = typeof ops.values.q === 'string' ? ops.values.q.toLowerCase() : undefined;
  return q ? items.filter((i) => String(i.name).toLowerCase().includes(q)) : items;
}
const eq =
  (field: string, ops: SandboxOps, param = field) =>
  (i: Rec) =>
    ops.values[param] === undefined || i[field] === ops.values[param];
// Lookup lists are paginated by the generic list code, which wants ids.
const withIds = (items: Rec[]) => items.map((i) => ({ id: String(i.targeting_value ?? i.locale), ...i }));

export const TARGETING: Behaviour = {
  hooks: {
    notFoundCode: 'TARGETING_CRITERION_NOT_FOUND',
    create(tc, ops) {
      const li = ops.collection('line_items').get(String(tc.line_item_id));
      if (!li || li.account_id !== ops.accountId || li.deleted)
        ops.fail(404, 'LINE_ITEM_NOT_FOUND', `line_item_id ${String(tc.line_item_id)} was not found`, 'line_item_id');
      const existing = criteriaOf(ops, tc.line_item_id);
      const dup = existing.find(
        (t) =>
          t.targeting_type === tc.targeting_type &&
          t.targeting_value === tc.targeting_value &&
          t.operator_type === tc.operator_type,
      );
      if (dup) return { existing: dup };
      resolve(ops, tc, existing);
    },
    present(e) {
      const { account_id: _a, ...rest } = e;
      return rest;
    },
  },
  ops: {},
};

export const TARGETING_OPTIONS: Behaviour = {
  hooks: {
    present: ({ id: _id, ...rest }) => rest,
  },
  ops: {
    locations: (ops) => withIds(byQ(D.LOCATIONS, ops).filter(eq('location_type', ops)).filter(eq('country_code', ops))),
    languages: (ops) => withIds(byQ(D.LANGUAGES, ops)),
    interests: (ops) => withIds(byQ(D.INTERESTS, ops)),
    platforms: (ops) => withIds(byQ(D.PLATFORMS, ops)),
    'platform-versions': (ops) => withIds(byQ(D.PLATFORM_VERSIONS, ops).filter(eq('os_type', ops))),
    devices: (ops) => withIds(byQ(D.DEVICES, ops).filter(eq('os_type', ops))),
    'network-operators': (ops) =>
      withIds(byQ(D.NETWORK_OPERATORS, ops).filter((i) => i.country_code === (ops.values.country_code ?? 'US'))),
    events: (ops) => {
      const v = ops.values;
      const types = listOf(v.event_types);
      const countries = listOrUndefined(v.country_codes);
      const from = typeof v.start_time === 'string' ? Date.parse(v.start_time) : ops.nowMs();
      const to = typeof v.end_time === 'string' ? Date.parse(v.end_time) : Infinity;
      return withIds(
        D.EVENTS.filter((e) => types.includes(String(e.event_type)))
          .filter((e) => !countries || e.is_global || countries.includes(String(e.country_code)))
          .filter((e) => Date.parse(String(e.end_time)) > from && Date.parse(String(e.start_time)) < to),
      );
    },
    conversations: (ops) => withIds(D.CONVERSATIONS.filter(eq('conversation_type', ops))),
    'app-store-categories': (ops) => withIds(byQ(D.APP_STORE_CATEGORIES, ops).filter(eq('os_type', ops))),
    'tv-markets': () => withIds(D.TV_MARKETS),
    'tv-shows': (ops) => {
      if (!D.TV_MARKETS.some((m) => m.locale === ops.values.locale))
        ops.fail(
          400,
          'INVALID_PARAMETER',
          `locale ${String(ops.values.locale)} is not a TV market (xctl ads targeting-options tv-markets)`,
          'locale',
        );
      return withIds(byQ(D.TV_SHOWS, ops).filter(eq('locale', ops)));
    },
  },
};
