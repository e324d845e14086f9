// Line items in the emulator (docs/contract.md, notes-2 section 4): what the values alone cannot decide.
// The parent campaign (exists, shares objective and product_type with its other line items,
// owns the budget unless it optimizes per line item), the 100-per-campaign and 256-active limits,
// categories and app platforms, keyword targeting for TWITTER_SEARCH, and the delivery periods
// the stats are simulated from.
import type { SandboxOps, Values } from '../../ads/resource-types.js';
import {
  ACTIVE_LINE_ITEMS_MAX,
  LINE_ITEMS_PER_CAMPAIGN_MAX,
  LINE_ITEM_RULES,
  defaultBidStrategy,
  defaultPayBy,
  effectiveGoal,
} from '../../ads/resources/line-items.js';
import { KEYWORD_TYPES } from '../../ads/resources/targeting.js';
import type { Behaviour } from './behaviour.js';
import { trackDelivery } from './delivery.js';
import { isOneOf, listOf, stringOrUndefined } from '../../contract/guards.js';

type Rec = Record<string, unknown>;

/** PLATFORM targeting values of the app stores (targeting-options platforms). */
const IOS = '0';
const ANDROID = '1';

/** Fields every record carries (the notes' record example), null until set. */
const RECORD_NULLS = [
  'name',
  'start_time',
  'end_time',
  'bid_amount_local_micro',
  'advertiser_domain',
  'target_cpa_local_micro',
  'primary_web_event_tag',
  'daily_budget_amount_local_micro',
  'duration_in_days',
  'standard_delivery',
  'total_budget_amount_local_micro',
  'automatic_tweet_promotion',
  'frequency_cap',
  'android_app_store_identifier',
  'ios_app_store_identifier',
  'advertiser_user_id',
];

function campaignOf(ops: SandboxOps, id: unknown): Rec {
  const c = ops.collection('campaigns').get(String(id));
  if (!c || c.account_id !== ops.accountId || c.deleted)
    ops.fail(404, 'CAMPAIGN_NOT_FOUND', `campaign_id ${String(id)} was not found`, 'campaign_id');
  return c;
}

function siblings(ops: SandboxOps, campaignId: unknown, exceptId: string): Rec[] {
  return [...ops.collection('line_items').values()].filter(
    (l) => l.campaign_id === campaignId && !l.deleted && l.id !== exceptId,
  );
}

function checkLimits(ops: SandboxOps, li: Rec, creating: boolean): void {
  if (creating && siblings(ops, li.campaign_id, String(li.id)).length >= LINE_ITEMS_PER_CAMPAIGN_MAX) {
    ops.fail(
      400,
      'TOO_MANY_LINE_ITEMS',
      `campaign ${String(li.campaign_id)} already has ${LINE_ITEMS_PER_CAMPAIGN_MAX} line items (the limit)`,
      'campaign_id',
    );
  }
  if (li.entity_status !== 'ACTIVE') return;
  let active = 0;
  for (const l of ops.collection('line_items').values())
    if (l.account_id === ops.accountId && !l.deleted && l.entity_status === 'ACTIVE' && l.id !== li.id) active++;
  if (active >= ACTIVE_LINE_ITEMS_MAX)
    ops.fail(
      400,
      'TOO_MANY_LINE_ITEMS',
      `the account already has ${ACTIVE_LINE_ITEMS_MAX} active line items (the limit; pause one first)`,
      'entity_status',
    );
}

/** Checks of the stored result against the campaign and the other collections. */
function checkAgainstState(ops: SandboxOps, li: Rec, campaign: Rec): void {
  const broken = LINE_ITEM_RULES.map((rule) => rule(ruleView(li))).find(Boolean);
  if (broken) ops.fail(400, broken.code, `${broken.param} ${broken.message}`, broken.param);
  if (campaign.budget_optimization !== 'LINE_ITEM') {
    for (const k of ['standard_delivery', 'daily_budget_amount_local_micro'] as const) {
      if (li[k] !== null && li[k] !== undefined)
        ops.fail(
          400,
          'EXCLUSIVE_PARAMETERS',
          `${k} is only for line items of a campaign with budget_optimization LINE_ITEM`,
          k,
        );
    }
  }
  const cats = li.categories as string[] | null | undefined;
  if (cats?.length) {
    if (li.objective === 'PREROLL_VIEWS') {
      const known = ops.collection('advertiser_business_categories');
      const off = cats.find((c) => !known.has(c));
      if (off)
        ops.fail(
          400,
          'INVALID_PARAMETER',
          `categories: ${off} is not an advertiser business category (xctl ads ref business-categories)`,
          'categories',
        );
    } else {
      const iab = new Set([...ops.collection('content_categories').values()].flatMap((c) => listOf(c.iab_categories)));
      const off = cats.find((c) => !iab.has(c.split('-')[0]!));
      if (off)
        ops.fail(
          404,
          'INVALID_IAB_CATEGORY',
          `categories: ${off} is not an IAB category of the content categories (xctl ads ref content-categories)`,
          'categories',
        );
    }
  }
  if (li.entity_status === 'ACTIVE' && listOf(li.placements).includes('TWITTER_SEARCH')) {
    const hasKeyword = [...ops.collection('targeting_criteria').values()].some(
      (t) =>
        t.line_item_id === li.id &&
        !t.deleted &&
        isOneOf(KEYWORD_TYPES, String(t.targeting_type)) &&
        t.operator_type !== 'NE',
    );
    if (!hasKeyword)
      ops.fail(
        400,
        'INVALID_PLACEMENT_TYPE',
        'placement TWITTER_SEARCH needs keyword targeting before the line item can be ACTIVE (xctl ads targeting add --targeting-type BROAD_KEYWORD ...)',
        'placements',
      );
  }
}

/** The stored record as rule input: pay_by counts only when the user set it (else it is derived). */
function ruleView(li: Rec): Values {
  const v: Values = {};
  for (const [k, x] of Object.entries(li)) if (x !== null && !k.startsWith('_')) v[k] = x;
  if (!li._pay_by_set) delete v.pay_by;
  if (li.bid_strategy === 'AUTO') delete v.bid_amount_local_micro;
  return v;
}

/** Derived fields: goal, bid strategy, pay_by defaults; the bid ignored with AUTO. */
function derive(li: Rec, values: Values): void {
  if (values.goal === undefined && (li.goal === undefined || li.goal === null)) li.goal = effectiveGoal(li);
  if (values.bid_strategy === undefined && (li.bid_strategy === undefined || li.bid_strategy === null))
    li.bid_strategy = defaultBidStrategy(String(li.objective), li.bid_amount_local_micro);
  if (values.pay_by !== undefined) li._pay_by_set = li.pay_by !== null;
  if (!li._pay_by_set) li.pay_by = defaultPayBy(String(li.objective), stringOrUndefined(li.goal));
}

/** An app line item targets the platforms of its apps (notes 4: added automatically). */
function addAppPlatforms(ops: SandboxOps, li: Rec): void {
  const tcs = ops.collection('targeting_criteria');
  const want: Array<[string, string]> = [];
  if (li.ios_app_store_identifier) want.push([IOS, 'iOS']);
  if (li.android_app_store_identifier) want.push([ANDROID, 'Android']);
  for (const [value, name] of want) {
    const has = [...tcs.values()].some(
      (t) => t.line_item_id === li.id && !t.deleted && t.targeting_type === 'PLATFORM' && t.targeting_value === value,
    );
    if (has) continue;
    const id = ops.newId();
    const now = ops.now();
    tcs.set(id, {
      id,
      account_id: ops.accountId,
      line_item_id: li.id,
      name,
      targeting_type: 'PLATFORM',
      targeting_value: value,
      operator_type: 'EQ',
      created_at: now,
      updated_at: now,
      deleted: false,
    });
  }
}

export const LINE_ITEMS: Behaviour = {
  hooks: {
    // The record of docs/contract.md, notes-2 section 4 (and line_items_load.json): every key, null when empty.
    keys: [
      'advertiser_domain',
      'advertiser_user_id',
      'android_app_store_identifier',
      'automatic_tweet_promotion',
      'bid_amount_local_micro',
      'daily_budget_amount_local_micro',
      'duration_in_days',
      'end_time',
      'frequency_cap',
      'goal',
      'ios_app_store_identifier',
      'primary_web_event_tag',
      'standard_delivery',
      'target_cpa_local_micro',
      'total_budget_amount_local_micro',
    ],
    notFoundCode: 'LINE_ITEM_NOT_FOUND',
    history: 'LINE_ITEM',
    create(li, ops) {
      const campaign = campaignOf(ops, li.campaign_id);
      for (const other of siblings(ops, li.campaign_id, String(li.id))) {
        for (const k of ['objective', 'product_type'] as const) {
          if (other[k] !== li[k])
            ops.fail(
              400,
              'INVALID_PARAMETER',
              `${k} must be ${String(other[k])}, as for the other line items of campaign ${String(li.campaign_id)}`,
              k,
            );
        }
      }
      for (const k of RECORD_NULLS) if (li[k] === undefined) li[k] = null;
      if (li.name === null) li.name = 'Untitled';
      if (li.categories === undefined) li.categories = [];
      derive(li, ops.values);
      if (li.bid_strategy === 'AUTO') li.bid_amount_local_micro = null;
      Object.assign(li, {
        funding_instrument_id: campaign.funding_instrument_id,
        currency: campaign.currency ?? 'USD',
        creative_source: 'MANUAL',
      });
      checkAgainstState(ops, li, campaign);
      checkLimits(ops, li, true);
      trackDelivery(li, ops.nowMs(), campaign);
      addAppPlatforms(ops, li);
    },
    update(li, before, ops) {
      const campaign = campaignOf(ops, li.campaign_id);
      derive(li, ops.values);
      if (li.bid_strategy === 'AUTO') li.bid_amount_local_micro = null;
      checkAgainstState(ops, li, campaign);
      if (li.entity_status !== before.entity_status) checkLimits(ops, li, false);
      trackDelivery(li, ops.nowMs(), campaign);
      addAppPlatforms(ops, li);
    },
    delete(li, ops) {
      li.deleted = true;
      trackDelivery(li, ops.nowMs(), ops.collection('campaigns').get(String(li.campaign_id)));
    },
    listFilter: (e, ops) => ops.values.with_draft === true || e.entity_status !== 'DRAFT',
  },
};
