// Every line-item rule of docs/contract.md, notes-2 section 4, just inside and just outside, through the
// validation the CLI runs before sending and the sandbox runs on each request.
import { describe, expect, it } from 'vitest';
import { resourceByName } from '../../src/ads/resources.js';
import { validateParams } from '../../src/ads/params.js';
import { parseInstant } from '../../src/contract/time.js';
import { checkBatch } from '../../src/ads/batch.js';
import { LINE_ITEM_BATCH_MAX, defaultBidStrategy, defaultPayBy } from '../../src/ads/resources/line-items.js';
import type { OperationDef } from '../../src/ads/resource-types.js';

const op = (verb: string): OperationDef => resourceByName('line_items')!.operations.find((o) => o.verb === verb)!;
const base = {
  campaign_id: 'c1',
  objective: 'ENGAGEMENTS',
  product_type: 'PROMOTED_TWEETS',
  placements: 'ALL_ON_TWITTER',
};
const create = (raw: Record<string, unknown>) =>
  validateParams(op('create').params, { ...base, ...raw }, op('create').rules).violations;
const first = (raw: Record<string, unknown>) => create(raw)[0];

describe('line item create rules', () => {
  it('the four required parameters', () => {
    for (const k of ['campaign_id', 'objective', 'product_type', 'placements']) {
      const raw: Record<string, unknown> = { ...base };
      delete raw[k];
      expect(validateParams(op('create').params, raw, op('create').rules).violations[0]).toMatchObject({
        param: k,
        code: 'MISSING_PARAMETER',
      });
    }
    expect(create({})).toEqual([]);
  });

  it('objective: the eight of the reference; the SDK-only ones are refused', () => {
    expect(first({ objective: 'WEBSITE_CLICKS' })).toBeUndefined();
    expect(first({ objective: 'LEAD_GENERATION' })).toMatchObject({ param: 'objective', code: 'INVALID_PARAMETER' });
    expect(first({ objective: 'WEBSITE_CONVERSIONS' })).toMatchObject({ param: 'objective' });
  });

  it('placements: per product type, never TWITTER_PROFILE alone, no repeats, ALL_ON_TWITTER alone', () => {
    expect(first({ placements: 'TWITTER_PROFILE,TWITTER_TIMELINE' })).toBeUndefined();
    expect(first({ placements: 'TWITTER_PROFILE' })).toMatchObject({
      param: 'placements',
      code: 'INVALID_PLACEMENT_TYPE',
    });
    expect(first({ placements: 'TWITTER_TIMELINE,TWITTER_TIMELINE' })).toMatchObject({
      code: 'INVALID_PLACEMENT_TYPE',
      message: 'must not repeat a placement',
    });
    expect(
      first({ placements: 'ALL_ON_TWITTER,PUBLISHER_NETWORK', categories: 'IAB3', advertiser_domain: 'example.com' }),
    ).toBeUndefined();
    expect(first({ placements: 'ALL_ON_TWITTER,TWITTER_SEARCH' })).toMatchObject({ code: 'INVALID_PLACEMENT_TYPE' });
    expect(first({ product_type: 'MEDIA', placements: 'TAP_BANNER' })).toBeUndefined();
    expect(first({ placements: 'TAP_BANNER' })).toMatchObject({
      message: expect.stringMatching(/TAP_BANNER is not a placement of product_type PROMOTED_TWEETS/),
    });
    expect(
      first({ product_type: 'PROMOTED_ACCOUNT', objective: 'FOLLOWERS', placements: 'TWITTER_TIMELINE' }),
    ).toBeUndefined();
    expect(
      first({ product_type: 'PROMOTED_ACCOUNT', objective: 'FOLLOWERS', placements: 'TWITTER_REPLIES' }),
    ).toMatchObject({ code: 'INVALID_PLACEMENT_TYPE' });
    expect(first({ placements: 'SPOTLIGHT,TREND' })).toBeUndefined();
  });

  it('REACH must include TWITTER_TIMELINE or be ALL_ON_TWITTER', () => {
    expect(first({ objective: 'REACH' })).toBeUndefined();
    expect(first({ objective: 'REACH', placements: 'TWITTER_TIMELINE,TWITTER_SEARCH' })).toBeUndefined();
    expect(first({ objective: 'REACH', placements: 'TWITTER_SEARCH' })).toMatchObject({
      param: 'placements',
      code: 'INVALID_PLACEMENT_TYPE',
    });
  });

  it('bids: required with MAX and TARGET, > 0; MAX not for REACH/FOLLOWERS; TARGET only for its objectives', () => {
    expect(first({ bid_strategy: 'MAX', bid_amount_local_micro: '1' })).toBeUndefined();
    expect(first({ bid_strategy: 'MAX' })).toMatchObject({
      param: 'bid_amount_local_micro',
      code: 'MISSING_PARAMETER',
    });
    expect(first({ bid_strategy: 'MAX', bid_amount_local_micro: '0' })).toMatchObject({
      param: 'bid_amount_local_micro',
      message: 'must be greater than 0',
    });
    expect(first({ bid_strategy: 'AUTO' })).toBeUndefined();
    expect(first({ objective: 'REACH', bid_strategy: 'MAX', bid_amount_local_micro: '1' })).toMatchObject({
      param: 'bid_strategy',
    });
    expect(first({ objective: 'REACH', bid_strategy: 'TARGET', bid_amount_local_micro: '1' })).toBeUndefined();
    expect(
      first({
        objective: 'FOLLOWERS',
        product_type: 'PROMOTED_ACCOUNT',
        bid_strategy: 'TARGET',
        bid_amount_local_micro: '1',
      }),
    ).toBeUndefined();
    expect(first({ objective: 'WEBSITE_CLICKS', bid_strategy: 'TARGET', bid_amount_local_micro: '1' })).toBeUndefined();
    expect(first({ bid_strategy: 'TARGET', bid_amount_local_micro: '1' })).toMatchObject({
      param: 'bid_strategy',
      message: expect.stringMatching(/TARGET is only for/),
    });
    expect(first({ bid_amount_local_micro: '-1' })).toMatchObject({ param: 'bid_amount_local_micro' });
  });

  it('bid strategy and pay_by defaults', () => {
    expect(defaultBidStrategy('ENGAGEMENTS', 1)).toBe('MAX');
    expect(defaultBidStrategy('REACH', 1)).toBe('TARGET');
    expect(defaultBidStrategy('FOLLOWERS', 1)).toBe('TARGET');
    expect(defaultBidStrategy('ENGAGEMENTS', undefined)).toBe('AUTO');
    expect(defaultPayBy('ENGAGEMENTS', 'ENGAGEMENT')).toBe('ENGAGEMENT');
    expect(defaultPayBy('WEBSITE_CLICKS', 'LINK_CLICKS')).toBe('IMPRESSION');
  });

  it('goal: SITE_VISITS for WEBSITE_CLICKS, APP_PURCHASES for APP_INSTALLS, app goals for app objectives', () => {
    const app = { ios_app_store_identifier: '333903271' };
    expect(first({ objective: 'WEBSITE_CLICKS', goal: 'SITE_VISITS' })).toBeUndefined();
    expect(first({ goal: 'SITE_VISITS' })).toMatchObject({ param: 'goal' });
    expect(first({ objective: 'APP_INSTALLS', goal: 'APP_PURCHASES', ...app })).toBeUndefined();
    expect(first({ objective: 'APP_ENGAGEMENTS', goal: 'APP_PURCHASES', ...app })).toMatchObject({ param: 'goal' });
    expect(first({ objective: 'APP_ENGAGEMENTS', goal: 'APP_INSTALLS', ...app })).toBeUndefined();
    expect(first({ objective: 'WEBSITE_CLICKS', goal: 'APP_CLICKS' })).toMatchObject({ param: 'goal' });
    expect(
      first({ objective: 'WEBSITE_CLICKS', goal: 'WEBSITE_CONVERSIONS', primary_web_event_tag: 'tag1' }),
    ).toBeUndefined();
    expect(first({ objective: 'WEBSITE_CLICKS', goal: 'WEBSITE_CONVERSIONS' })).toMatchObject({
      param: 'primary_web_event_tag',
      code: 'MISSING_PARAMETER',
    });
  });

  it('pay_by: per goal, LINK_CLICK not with TARGET, not for other goals', () => {
    const app = { objective: 'APP_INSTALLS', ios_app_store_identifier: '1' };
    expect(first({ ...app, pay_by: 'APP_CLICK' })).toBeUndefined();
    expect(first({ ...app, pay_by: 'LINK_CLICK' })).toMatchObject({ param: 'pay_by' });
    expect(first({ objective: 'WEBSITE_CLICKS', pay_by: 'LINK_CLICK' })).toBeUndefined();
    expect(
      first({ objective: 'WEBSITE_CLICKS', pay_by: 'LINK_CLICK', bid_strategy: 'TARGET', bid_amount_local_micro: '1' }),
    ).toMatchObject({ param: 'pay_by' });
    expect(first({ objective: 'WEBSITE_CLICKS', goal: 'SITE_VISITS', pay_by: 'IMPRESSION' })).toBeUndefined();
    expect(first({ objective: 'WEBSITE_CLICKS', goal: 'SITE_VISITS', pay_by: 'LINK_CLICK' })).toMatchObject({
      param: 'pay_by',
    });
    expect(first({ pay_by: 'IMPRESSION' })).toMatchObject({
      param: 'pay_by',
      message: expect.stringMatching(/cannot be set for goal ENGAGEMENT/),
    });
  });

  it('frequency cap: with duration_in_days 1, 7 or 30, only for four objectives', () => {
    expect(first({ frequency_cap: '3', duration_in_days: '7' })).toBeUndefined();
    expect(first({ frequency_cap: '3', duration_in_days: '30' })).toBeUndefined();
    expect(first({ frequency_cap: '3', duration_in_days: '8' })).toMatchObject({ param: 'duration_in_days' });
    expect(first({ frequency_cap: '3' })).toMatchObject({ param: 'frequency_cap', code: 'INCLUSIVE_PARAMETERS' });
    expect(first({ duration_in_days: '1' })).toMatchObject({ param: 'duration_in_days', code: 'INCLUSIVE_PARAMETERS' });
    expect(first({ objective: 'WEBSITE_CLICKS', frequency_cap: '3', duration_in_days: '1' })).toMatchObject({
      param: 'frequency_cap',
    });
    expect(first({ frequency_cap: '0', duration_in_days: '1' })).toMatchObject({ param: 'frequency_cap' });
  });

  it('app objectives need an app store identifier', () => {
    expect(first({ objective: 'APP_INSTALLS', android_app_store_identifier: 'com.example.app' })).toBeUndefined();
    expect(first({ objective: 'APP_INSTALLS' })).toMatchObject({
      param: 'android_app_store_identifier',
      code: 'MISSING_PARAMETER',
    });
    expect(first({ objective: 'APP_ENGAGEMENTS', ios_app_store_identifier: '12' })).toBeUndefined();
    expect(first({ objective: 'APP_ENGAGEMENTS', ios_app_store_identifier: 'id12' })).toMatchObject({
      param: 'ios_app_store_identifier',
    });
  });

  it('publisher network needs categories and advertiser_domain; PREROLL_VIEWS one or two categories', () => {
    const pn = { placements: 'PUBLISHER_NETWORK' };
    expect(first({ ...pn, categories: 'IAB3', advertiser_domain: 'example.com' })).toBeUndefined();
    expect(first({ ...pn, advertiser_domain: 'example.com' })).toMatchObject({
      param: 'categories',
      code: 'MISSING_PARAMETER',
    });
    expect(first({ ...pn, categories: 'IAB3' })).toMatchObject({ param: 'advertiser_domain' });
    expect(first({ ...pn, categories: 'IAB3', advertiser_domain: 'https://example.com' })).toMatchObject({
      param: 'advertiser_domain',
    });
    const pre = { objective: 'PREROLL_VIEWS', product_type: 'MEDIA' };
    expect(first({ ...pre, categories: 'bc-a,bc-b' })).toBeUndefined();
    expect(first({ ...pre, categories: 'bc-a' })).toBeUndefined();
    expect(first({ ...pre, categories: 'bc-a,bc-b,bc-c' })).toMatchObject({
      param: 'categories',
      code: 'INVALID_PARAMETER',
    });
    expect(first({ ...pre })).toMatchObject({ param: 'categories', code: 'MISSING_PARAMETER' });
  });

  it('flight: any offset, a date alone; end after start (INVALID_TIME_WINDOW)', () => {
    expect(create({ start_time: '2026-05-19', end_time: '2026-05-19T00:00:01Z' })).toEqual([]);
    expect(first({ start_time: '2026-05-19', end_time: '2026-05-19T00:00:00Z' })).toMatchObject({
      param: 'end_time',
      code: 'INVALID_TIME_WINDOW',
    });
    expect(first({ start_time: '2026-05-19T02:00:00+02', end_time: '2026-05-19T00:00:00Z' })).toMatchObject({
      code: 'INVALID_TIME_WINDOW',
    });
    expect(first({ start_time: '2026-05-19T01:59:59+02', end_time: '2026-05-19T00:00:00Z' })).toBeUndefined();
    expect(first({ start_time: '2026-02-30' })).toMatchObject({ param: 'start_time' });
    expect(first({ start_time: 'tomorrow' })).toMatchObject({ param: 'start_time' });
    const v = validateParams(
      op('create').params,
      { ...base, start_time: '2026-05-19T10:00+0530' },
      op('create').rules,
    ).values;
    expect(v.start_time).toBe('2026-05-19T04:30:00Z');
    expect(parseInstant('2026-05-19T10:00:00-07')).toBe(Date.parse('2026-05-19T17:00:00Z'));
  });

  it('budgets: daily at most total (SPEND_EXCEEDS_BUDGET)', () => {
    expect(first({ daily_budget_amount_local_micro: '5', total_budget_amount_local_micro: '5' })).toBeUndefined();
    expect(first({ daily_budget_amount_local_micro: '6', total_budget_amount_local_micro: '5' })).toMatchObject({
      code: 'SPEND_EXCEEDS_BUDGET',
    });
  });

  it('name 1-255; entity_status ACTIVE/DRAFT/PAUSED on create, ACTIVE/PAUSED on update', () => {
    expect(first({ name: 'n'.repeat(255) })).toBeUndefined();
    expect(first({ name: 'n'.repeat(256) })).toMatchObject({ param: 'name' });
    expect(first({ name: '' })).toMatchObject({ param: 'name' });
    expect(first({ entity_status: 'DRAFT' })).toBeUndefined();
    const upd = (raw: Record<string, unknown>) =>
      validateParams(op('update').params, raw, op('update').rules).violations[0];
    expect(upd({ entity_status: 'PAUSED' })).toBeUndefined();
    expect(upd({ entity_status: 'DRAFT' })).toMatchObject({ param: 'entity_status' });
    expect(upd({ end_time: '' })).toBeUndefined();
    expect(op('update').params.some((d) => ['campaign_id', 'objective', 'product_type'].includes(d.name))).toBe(false);
  });

  it('xctl sends PAUSED and start_time now unless told', () => {
    const d = Object.fromEntries(
      op('create')
        .params.filter((x) => x.cliDefault)
        .map((x) => [x.name, x.cliDefault!({ nowMs: Date.parse('2026-05-19T10:11:12.345Z') })]),
    );
    expect(d).toEqual({ entity_status: 'PAUSED', start_time: '2026-05-19T10:11:12Z' });
  });

  it(`batch: ${LINE_ITEM_BATCH_MAX} items pass, ${LINE_ITEM_BATCH_MAX + 1} is a request-level error; placements as an array`, () => {
    const item = { operation_type: 'Create', params: { ...base, placements: ['ALL_ON_TWITTER'] } };
    expect(checkBatch(op('batch'), Array(LINE_ITEM_BATCH_MAX).fill(item)).itemErrors.flat()).toEqual([]);
    expect(checkBatch(op('batch'), Array(LINE_ITEM_BATCH_MAX + 1).fill(item)).requestErrors[0]?.message).toMatch(
      /at most 40 items/,
    );
    const bad = checkBatch(op('batch'), [
      { operation_type: 'Update', params: { name: 'x' } },
      { operation_type: 'Create', params: { ...base, placements: ['TWITTER_PROFILE'] } },
    ]);
    expect(bad.itemErrors.map((e) => e[0]?.param)).toEqual(['line_item_id', 'placements']);
  });
});
