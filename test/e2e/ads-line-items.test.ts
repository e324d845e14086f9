// Line items through the real CLI against the sandbox: every verb, the rules the sandbox alone
// can judge (campaign consistency, budget owner, limits, categories, keyword targeting for
// search), refused input that sends nothing, batches, and attachments on user-made line items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox } from '../helpers/ads.js';

let t: AdsSandbox;
let fi: string;
let camp: string;
beforeAll(async () => {
  t = await startAdsSandbox();
  fi = [...t.collection('funding_instruments').values()][0]!.id;
  camp = (
    await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'LI tests',
      '--funding-instrument-id',
      fi,
      '--daily-budget-amount-local-micro',
      '50000000',
    ])
  ).id;
});
afterAll(() => t.close());

const engage = () => [
  'ads',
  'line-items',
  'create',
  '--campaign-id',
  camp,
  '--objective',
  'ENGAGEMENTS',
  '--product-type',
  'PROMOTED_TWEETS',
  '--placements',
  'ALL_ON_TWITTER',
];

describe('line items', () => {
  it('create (PAUSED, start_time now by default), get, list, update, delete; a second delete is LINE_ITEM_NOT_FOUND', async () => {
    const li = await t.json([
      ...engage(),
      '--name',
      'Spring li',
      '--bid-amount-local-micro',
      '5500000',
      '--end-time',
      '2099-01-01',
    ]);
    expect(li).toMatchObject({
      name: 'Spring li',
      campaign_id: camp,
      funding_instrument_id: fi,
      currency: 'USD',
      entity_status: 'PAUSED',
      goal: 'ENGAGEMENT',
      bid_strategy: 'MAX',
      bid_amount_local_micro: 5_500_000,
      pay_by: 'ENGAGEMENT',
      placements: ['ALL_ON_TWITTER'],
      end_time: '2099-01-01T00:00:00Z',
      creative_source: 'MANUAL',
      deleted: false,
      categories: [],
    });
    expect(li.start_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Object.keys(li).some((k) => k.startsWith('_'))).toBe(false);
    expect(await t.json(['ads', 'line-items', 'get', li.id])).toMatchObject({ id: li.id });
    expect((await t.list(['ads', 'line-items', 'list', '--campaign-ids', camp])).map((x) => x.id)).toContain(li.id);
    const upd = await t.json([
      'ads',
      'line-items',
      'update',
      li.id,
      '--entity-status',
      'ACTIVE',
      '--end-time',
      '',
      '--start-time',
      '2026-05-19T10:00:00+02',
    ]);
    expect(upd).toMatchObject({ entity_status: 'ACTIVE', end_time: null, start_time: '2026-05-19T08:00:00Z' });
    expect((await t.json(['ads', 'line-items', 'delete', li.id, '--yes'])).deleted).toBe(true);
    const again = await t.fails(1, ['ads', 'line-items', 'delete', li.id, '--yes']);
    expect(again.stderr).toMatch(/HTTP 404, code LINE_ITEM_NOT_FOUND/);
    expect((await t.json(['ads', 'line-items', 'get', li.id, '--with-deleted'])).deleted).toBe(true);
  });

  it('all line items of a campaign share objective and product_type; the campaign must exist', async () => {
    const c = (
      await t.json([
        'ads',
        'campaigns',
        'create',
        '--name',
        'Consistency',
        '--funding-instrument-id',
        fi,
        '--daily-budget-amount-local-micro',
        '1000000',
      ])
    ).id;
    await t.json([
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      c,
      '--objective',
      'ENGAGEMENTS',
      '--product-type',
      'PROMOTED_TWEETS',
      '--placements',
      'ALL_ON_TWITTER',
    ]);
    const r = await t.fails(1, [
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      c,
      '--objective',
      'WEBSITE_CLICKS',
      '--product-type',
      'PROMOTED_TWEETS',
      '--placements',
      'ALL_ON_TWITTER',
    ]);
    expect(r.stderr).toMatch(/objective must be ENGAGEMENTS, as for the other line items/);
    const r2 = await t.fails(1, [
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      'nosuch',
      '--objective',
      'ENGAGEMENTS',
      '--product-type',
      'PROMOTED_TWEETS',
      '--placements',
      'ALL_ON_TWITTER',
    ]);
    expect(r2.stderr).toMatch(/HTTP 404, code CAMPAIGN_NOT_FOUND, parameter campaign_id/);
  });

  it('line-item budgets only under a LINE_ITEM-optimized campaign; daily <= total', async () => {
    const r = await t.fails(1, [...engage(), '--daily-budget-amount-local-micro', '1000000']);
    expect(r.stderr).toMatch(/EXCLUSIVE_PARAMETERS, parameter daily_budget_amount_local_micro/);
    const c = (
      await t.json([
        'ads',
        'campaigns',
        'create',
        '--name',
        'LI budgets',
        '--funding-instrument-id',
        fi,
        '--budget-optimization',
        'LINE_ITEM',
        '--daily-budget-amount-local-micro',
        '9000000',
      ])
    ).id;
    const li = await t.json([
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      c,
      '--objective',
      'ENGAGEMENTS',
      '--product-type',
      'PROMOTED_TWEETS',
      '--placements',
      'ALL_ON_TWITTER',
      '--daily-budget-amount-local-micro',
      '1000000',
      '--total-budget-amount-local-micro',
      '1000000',
      '--standard-delivery',
    ]);
    expect(li).toMatchObject({ daily_budget_amount_local_micro: 1_000_000, standard_delivery: true });
    // The stored daily budget against a new, lower total: judged on the stored result.
    const over = await t.fails(1, [
      'ads',
      'line-items',
      'update',
      li.id,
      '--total-budget-amount-local-micro',
      '999999',
    ]);
    expect(over.stderr).toMatch(/SPEND_EXCEEDS_BUDGET/);
  });

  it('TWITTER_SEARCH needs keyword targeting before ACTIVE; categories are checked against the reference data', async () => {
    const li = await t.json([
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      camp,
      '--objective',
      'ENGAGEMENTS',
      '--product-type',
      'PROMOTED_TWEETS',
      '--placements',
      'TWITTER_SEARCH',
    ]);
    const r = await t.fails(1, ['ads', 'line-items', 'update', li.id, '--entity-status', 'ACTIVE']);
    expect(r.stderr).toMatch(/keyword targeting.*code INVALID_PLACEMENT_TYPE/);
    const pn = await t.fails(1, [
      ...engage().slice(0, -1),
      'PUBLISHER_NETWORK',
      '--categories',
      'IAB99',
      '--advertiser-domain',
      'example.com',
    ]);
    expect(pn.stderr).toMatch(/HTTP 404, code INVALID_IAB_CATEGORY/);
    expect(
      (
        await t.json([
          ...engage().slice(0, -1),
          'PUBLISHER_NETWORK',
          '--categories',
          'IAB3-1',
          '--advertiser-domain',
          'example.com',
        ])
      ).categories,
    ).toEqual(['IAB3-1']);
  });

  it('an app line item targets its platforms automatically', async () => {
    const c = (
      await t.json([
        'ads',
        'campaigns',
        'create',
        '--name',
        'Apps',
        '--funding-instrument-id',
        fi,
        '--daily-budget-amount-local-micro',
        '1000000',
      ])
    ).id;
    const li = await t.json([
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      c,
      '--objective',
      'APP_INSTALLS',
      '--product-type',
      'PROMOTED_TWEETS',
      '--placements',
      'ALL_ON_TWITTER',
      '--ios-app-store-identifier',
      '333903271',
    ]);
    expect(li).toMatchObject({
      goal: 'APP_INSTALLS',
      pay_by: 'IMPRESSION',
      bid_strategy: 'AUTO',
      bid_amount_local_micro: null,
    });
    const tcs = [...t.collection('targeting_criteria').values()].filter((x) => x.line_item_id === li.id);
    expect(tcs).toEqual([expect.objectContaining({ targeting_type: 'PLATFORM', targeting_value: '0' })]);
  });

  it('refuses rule violations before sending anything', async () => {
    const errs = await t.refusedAll([
      [
        'ads',
        'line-items',
        'create',
        '--campaign-id',
        camp,
        '--objective',
        'ENGAGEMENTS',
        '--product-type',
        'PROMOTED_TWEETS',
      ],
      [...engage().slice(0, -1), 'TWITTER_PROFILE'],
      [
        'ads',
        'line-items',
        'create',
        '--campaign-id',
        camp,
        '--objective',
        'REACH',
        '--product-type',
        'PROMOTED_TWEETS',
        '--placements',
        'TWITTER_SEARCH',
      ],
      [...engage(), '--bid-strategy', 'MAX'],
      [
        'ads',
        'line-items',
        'create',
        '--campaign-id',
        camp,
        '--objective',
        'FOLLOWERS',
        '--product-type',
        'PROMOTED_ACCOUNT',
        '--placements',
        'ALL_ON_TWITTER',
        '--bid-strategy',
        'MAX',
        '--bid-amount-local-micro',
        '1',
      ],
      [...engage(), '--goal', 'SITE_VISITS'],
      [...engage(), '--frequency-cap', '3'],
      [...engage(), '--start-time', '2026-05-20', '--end-time', '2026-05-19'],
      [...engage(), '--duration-in-days', '2', '--frequency-cap', '3'],
      [...engage(), '--pay-by', 'LINK_CLICK'],
      [
        'ads',
        'line-items',
        'create',
        '--campaign-id',
        camp,
        '--objective',
        'LEAD_GENERATION',
        '--product-type',
        'PROMOTED_TWEETS',
        '--placements',
        'ALL_ON_TWITTER',
      ],
    ]);
    expect(errs[0]).toMatch(/--placements is required/);
    expect(errs[1]).toMatch(/--placements cannot be TWITTER_PROFILE alone/);
    expect(errs[2]).toMatch(/must include TWITTER_TIMELINE/);
    expect(errs[3]).toMatch(/--bid-amount-local-micro is required when --bid-strategy is MAX/);
    expect(errs[4]).toMatch(/MAX is not available for --objective FOLLOWERS/);
    expect(errs[5]).toMatch(/--goal SITE_VISITS is only for --objective WEBSITE_CLICKS/);
    expect(errs[6]).toMatch(/--frequency-cap needs --duration-in-days/);
    expect(errs[7]).toMatch(/--end-time must be after --start-time/);
    expect(errs[8]).toMatch(/--duration-in-days must be one of 1, 7, 30/);
    expect(errs[9]).toMatch(/--pay-by cannot be set for --goal ENGAGEMENT/);
    expect(errs[10]).toMatch(/--objective must be one of/);
  });

  it('batch: create, update and delete all or nothing; placements as an array', async () => {
    const created = await t.list(
      ['ads', 'line-items', 'batch', '--file', '-'],
      JSON.stringify([
        {
          operation_type: 'Create',
          params: {
            campaign_id: camp,
            objective: 'ENGAGEMENTS',
            product_type: 'PROMOTED_TWEETS',
            placements: ['ALL_ON_TWITTER'],
            bid_amount_local_micro: 3210000,
            entity_status: 'PAUSED',
            name: 'b1',
          },
        },
        {
          operation_type: 'Create',
          params: {
            campaign_id: camp,
            objective: 'ENGAGEMENTS',
            product_type: 'PROMOTED_TWEETS',
            placements: 'TWITTER_TIMELINE,TWITTER_SEARCH',
            name: 'b2',
            entity_status: 'PAUSED',
          },
        },
      ]),
    );
    expect(created.map((x) => x.name)).toEqual(['b1', 'b2']);
    expect(created[1].placements).toEqual(['TWITTER_TIMELINE', 'TWITTER_SEARCH']);
    const before = t.collection('line_items').size;
    const r = await t.fails(
      1,
      ['ads', 'line-items', 'batch', '--file', '-'],
      JSON.stringify([
        { operation_type: 'Update', params: { line_item_id: created[0].id, name: 'renamed' } },
        { operation_type: 'Delete', params: { line_item_id: 'nosuch' } },
      ]),
    );
    expect(r.stderr).toMatch(/item 2: LINE_ITEM_NOT_FOUND/);
    expect(t.collection('line_items').size).toBe(before);
    expect((await t.json(['ads', 'line-items', 'get', created[0].id])).name).toBe('b1');
    const ok = await t.list(
      ['ads', 'line-items', 'batch', '--file', '-'],
      JSON.stringify([
        { operation_type: 'Update', params: { line_item_id: created[0].id, name: 'renamed' } },
        { operation_type: 'Delete', params: { line_item_id: created[1].id } },
      ]),
    );
    expect(ok.map((x) => [x.name, x.deleted])).toEqual([
      ['renamed', false],
      ['b2', true],
    ]);
    const many = Array.from({ length: 41 }, () => ({ operation_type: 'Delete', params: { line_item_id: 'x' } }));
    expect((await t.refused(['ads', 'line-items', 'batch', '--file', '-'], JSON.stringify(many))).stderr).toMatch(
      /at most 40 items/,
    );
  });

  it('DRAFT line items are listed only with --with-draft', async () => {
    const d = await t.json([...engage(), '--entity-status', 'DRAFT', '--name', 'Drafty']);
    expect((await t.list(['ads', 'line-items', 'list', '--q', 'drafty'])).map((x) => x.id)).toEqual([]);
    expect((await t.list(['ads', 'line-items', 'list', '--q', 'drafty', '--with-draft'])).map((x) => x.id)).toEqual([
      d.id,
    ]);
  });

  it('promoted posts, accounts, media creatives and tracking tags attach to user-made line items', async () => {
    const li = await t.json([...engage(), '--name', 'Attach']);
    const pt = await t.json([
      'ads',
      'promoted-tweets',
      'create',
      '--line-item-id',
      li.id,
      '--tweet-ids',
      '1440000000000000003', // a seeded post
    ]);
    expect(pt[0]).toMatchObject({ line_item_id: li.id, tweet_id: '1440000000000000003' });
    const media = [...t.collection('account_media').values()][0]!.id;
    expect(
      await t.json(['ads', 'media-creatives', 'create', '--line-item-id', li.id, '--account-media-id', media]),
    ).toMatchObject({ campaign_id: camp });
    expect(
      await t.json([
        'ads',
        'tracking-tags',
        'create',
        '--line-item-id',
        li.id,
        '--tracking-tag-type',
        'CLICK_TRACKER',
        '--tracking-tag-url',
        'https://t.example/c',
      ]),
    ).toMatchObject({ line_item_id: li.id });
    const c = (
      await t.json([
        'ads',
        'campaigns',
        'create',
        '--name',
        'PA',
        '--funding-instrument-id',
        fi,
        '--daily-budget-amount-local-micro',
        '1000000',
      ])
    ).id;
    const pa = await t.json([
      'ads',
      'line-items',
      'create',
      '--campaign-id',
      c,
      '--objective',
      'FOLLOWERS',
      '--product-type',
      'PROMOTED_ACCOUNT',
      '--placements',
      'TWITTER_TIMELINE',
    ]);
    expect(
      await t.json(['ads', 'promoted-accounts', 'create', '--line-item-id', pa.id, '--user-id', t.sb.seed.user_id]),
    ).toMatchObject({ line_item_id: pa.id });
    const wrong = await t.fails(1, [
      'ads',
      'promoted-accounts',
      'create',
      '--line-item-id',
      li.id,
      '--user-id',
      t.sb.seed.user_id,
    ]);
    expect(wrong.stderr).toMatch(/INCOMPATIBLE_LINE_ITEM/);
  });
});
