// Targeting criteria and their lookups through the real CLI against the sandbox: every verb,
// values validated against the lookup data, the per-line-item rules, batches all or nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox } from '../helpers/ads.js';

let t: AdsSandbox;
let li: string;
let camp: string;
beforeAll(async () => {
  t = await startAdsSandbox();
  const fi = [...t.collection('funding_instruments').values()][0]!.id;
  camp = (
    await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'Targeting',
      '--funding-instrument-id',
      fi,
      '--daily-budget-amount-local-micro',
      '1000000',
    ])
  ).id;
  li = (
    await t.json([
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
      'TWITTER_TIMELINE,TWITTER_SEARCH',
    ])
  ).id;
});
afterAll(() => t.close());

const add = (type: string, value: string, ...more: string[]) => [
  'ads',
  'targeting',
  'add',
  '--line-item-id',
  li,
  '--targeting-type',
  type,
  '--targeting-value',
  value,
  ...more,
];

describe('targeting options', () => {
  it('locations by q, type and country; languages; interests; platforms; devices; tv shows of a market', async () => {
    // Independent lookups run at once: each is a whole CLI process.
    const [la, countries, gb, en, tech, platforms, ios, bake, events, sports, ops, markets, page] = await Promise.all([
      t.list(['ads', 'targeting-options', 'locations', '--q', 'los angeles']),
      t.list(['ads', 'targeting-options', 'locations', '--location-type', 'COUNTRIES']),
      t.list(['ads', 'targeting-options', 'locations', '--country-code', 'GB']),
      t.list(['ads', 'targeting-options', 'languages', '--q', 'engl']),
      t.list(['ads', 'targeting-options', 'interests', '--q', 'technology']),
      t.list(['ads', 'targeting-options', 'platforms']),
      t.list(['ads', 'targeting-options', 'devices', '--os-type', 'iOS']),
      t.list(['ads', 'targeting-options', 'tv-shows', '--locale', 'en-GB']),
      t.list([
        'ads',
        'targeting-options',
        'events',
        '--event-types',
        'SPORTS,CONFERENCE',
        '--start-time',
        '2026-01-01T00:00:00Z',
      ]),
      t.list(['ads', 'targeting-options', 'conversations', '--conversation-type', 'SPORTS']),
      t.list(['ads', 'targeting-options', 'network-operators', '--country-code', 'GB']),
      t.list(['ads', 'targeting-options', 'tv-markets']),
      t.run(['ads', 'targeting-options', 'interests', '--count', '5', '--all', '-o', 'jsonl']),
    ]);
    expect(la).toEqual([
      {
        name: 'Los Angeles, Los Angeles CA, CA, USA',
        country_code: 'US',
        location_type: 'CITIES',
        targeting_value: '3b77caf94bfc81fe',
        targeting_type: 'LOCATION',
      },
    ]);
    expect(countries.map((x) => x.country_code)).toEqual(['US', 'GB', 'CA', 'DE', 'JP']);
    expect(gb.length).toBe(2);
    expect(en).toEqual([{ name: 'English', targeting_type: 'LANGUAGE', targeting_value: 'en' }]);
    expect(tech.length).toBe(3);
    expect(platforms.map((x) => x.targeting_value)).toEqual(['0', '1', '2', '3', '4']);
    expect(ios.length).toBeGreaterThan(0);
    expect(ios.every((d) => d.os_type === 'iOS')).toBe(true);
    expect(bake.map((x) => x.name)).toEqual(['The Great Bake']);
    expect(events.map((x) => x.targeting_value).sort()).toEqual(['1ex', '1ez']);
    expect(sports.map((x) => x.name)).toEqual(['NFL', 'NBA']);
    expect(ops.length).toBe(2);
    expect(markets.map((x) => x.locale)).toEqual(['en-US', 'en-GB', 'ja-JP']);
    expect(page.stdout.trim().split('\n')).toHaveLength(12);
  });

  it('refuses bad lookup input before sending', async () => {
    const errs = await t.refusedAll([
      ['ads', 'targeting-options', 'events'],
      ['ads', 'targeting-options', 'tv-shows'],
      ['ads', 'targeting-options', 'locations', '--location-type', 'PLANETS'],
      ['ads', 'targeting-options', 'tv-shows', '--locale', 'en-US', '--count', '51'],
    ]);
    expect(errs[0]).toMatch(/--event-types is required/);
    expect(errs[1]).toMatch(/--locale is required/);
    expect(errs[2]).toMatch(/--location-type must be one of COUNTRIES/);
    expect(errs[3]).toMatch(/--count must be between 1 and 50/);
    expect((await t.fails(1, ['ads', 'targeting-options', 'tv-shows', '--locale', 'fr-FR'])).stderr).toMatch(
      /not a TV market/,
    );
  });
});

describe('targeting criteria', () => {
  it('add (names from the lookup data), list, get, delete; a second delete is TARGETING_CRITERION_NOT_FOUND', async () => {
    const loc = await t.json(add('LOCATION', '5122804691e5fecc'));
    expect(loc).toMatchObject({
      line_item_id: li,
      targeting_type: 'LOCATION',
      targeting_value: '5122804691e5fecc',
      name: 'San Francisco-Oakland-San Jose CA, US',
      location_type: 'METRO',
      operator_type: 'EQ',
      deleted: false,
    });
    const kw = await t.json(add('BROAD_KEYWORD', 'technology'));
    expect(kw).toMatchObject({ name: 'technology' });
    const neg = await t.json(add('PHRASE_KEYWORD', 'free stuff', '--operator-type', 'NE'));
    expect(neg.operator_type).toBe('NE');
    expect(await t.json(add('GENDER', '2'))).toMatchObject({ name: 'Female' });
    expect((await t.list(['ads', 'targeting', 'list', '--line-item-ids', li])).map((x) => x.id)).toEqual([
      loc.id,
      kw.id,
      neg.id,
      expect.any(String),
    ]);
    expect(await t.json(['ads', 'targeting', 'get', kw.id])).toMatchObject({ id: kw.id });
    // The same criterion again is the existing one.
    expect((await t.json(add('BROAD_KEYWORD', 'technology'))).id).toBe(kw.id);
    expect((await t.json(['ads', 'targeting', 'delete', neg.id, '--yes'])).deleted).toBe(true);
    expect((await t.fails(1, ['ads', 'targeting', 'delete', neg.id, '--yes'])).stderr).toMatch(
      /HTTP 404, code TARGETING_CRITERION_NOT_FOUND/,
    );
    // With a keyword the search placement may go ACTIVE.
    expect((await t.json(['ads', 'line-items', 'update', li, '--entity-status', 'ACTIVE'])).entity_status).toBe(
      'ACTIVE',
    );
  });

  it('values outside the lookup data and the per-line-item rules are refused by the sandbox', async () => {
    expect((await t.fails(1, add('LOCATION', 'ffffffffffffffff'))).stderr).toMatch(
      /not a LOCATION of the lookup data.*INVALID_PARAMETER/s,
    );
    expect((await t.fails(1, add('INTEREST', '99999'))).stderr).toMatch(/not a INTEREST of the lookup data/);
    expect(
      (
        await t.fails(1, [
          'ads',
          'targeting',
          'add',
          '--line-item-id',
          'nosuch',
          '--targeting-type',
          'GENDER',
          '--targeting-value',
          '1',
        ])
      ).stderr,
    ).toMatch(/LINE_ITEM_NOT_FOUND/);
  });

  it('one AGE; ENGAGEMENT_TYPE after an engagement source; audiences, TV markets, overlapping devices, followers', async () => {
    await t.json(add('AGE', 'AGE_21_TO_34'));
    expect((await t.fails(1, add('AGE', 'AGE_OVER_50'))).stderr).toMatch(/takes one AGE criterion/);
    expect((await t.fails(1, add('ENGAGEMENT_TYPE', 'ENGAGEMENT'))).stderr).toMatch(
      /needs a CAMPAIGN_ENGAGEMENT or USER_ENGAGEMENT/,
    );
    await t.json(add('CAMPAIGN_ENGAGEMENT', camp));
    await t.json(add('ENGAGEMENT_TYPE', 'ENGAGEMENT'));
    expect((await t.fails(1, add('CUSTOM_AUDIENCE', 'nosuch'))).stderr).toMatch(
      /HTTP 404, code TAILORED_AUDIENCE_NOT_FOUND/,
    );
    expect((await t.fails(1, add('TV_SHOW', '10027243422'))).stderr).toMatch(/TV_SHOW_OUTSIDE_MARKET/);
    await t.json(add('TV_SHOW', '10027243420'));
    await t.json(add('PLATFORM', '0'));
    expect((await t.fails(1, add('DEVICE', '8x'))).stderr).toMatch(/overlaps a PLATFORM criterion/);
    expect((await t.fails(1, add('FOLLOWERS_OF_USER', '783214'))).stderr).toMatch(/FULL promotable user/);
    expect(await t.json(add('FOLLOWERS_OF_USER', t.sb.seed.user_id))).toMatchObject({
      name: `@${t.sb.seed.screen_name}`,
    });
  });

  it('refuses shapes the CLI can judge, sending nothing', async () => {
    const errs = await t.refusedAll([
      add('AGE', 'AGE_99'),
      add('GENDER', '3'),
      add('NOT_A_TYPE', 'x'),
      add('NETWORK_ACTIVATION_DURATION', '6'),
      add('LOCATION', '96683cc9126741d1', '--operator-type', 'GTE'),
      add('APP_LIST', 'al1'),
      ['ads', 'targeting', 'list'],
    ]);
    expect(errs[0]).toMatch(/--targeting-value must be an age bucket/);
    expect(errs[1]).toMatch(/--targeting-value must be 1 \(male\) or 2 \(female\)/);
    expect(errs[2]).toMatch(/--targeting-type must be a targeting type/);
    expect(errs[3]).toMatch(/--operator-type must be GTE or LT for NETWORK_ACTIVATION_DURATION/);
    expect(errs[4]).toMatch(/GTE is only for NETWORK_ACTIVATION_DURATION/);
    expect(errs[5]).toMatch(/must be NE for APP_LIST/);
    expect(errs[6]).toMatch(/--line-item-ids is required/);
    expect(await t.json(add('NETWORK_ACTIVATION_DURATION', '6', '--operator-type', 'GTE'))).toMatchObject({
      name: 'At least 6 months',
    });
  });

  it('batch: Create and Delete all or nothing; 500 items at most', async () => {
    const [a] = await t.list(
      ['ads', 'targeting', 'batch', '--file', '-'],
      JSON.stringify([
        { operation_type: 'Create', params: { line_item_id: li, targeting_type: 'LANGUAGE', targeting_value: 'en' } },
      ]),
    );
    const before = t.collection('targeting_criteria').size;
    const r = await t.fails(
      1,
      ['ads', 'targeting', 'batch', '--file', '-'],
      JSON.stringify([
        { operation_type: 'Delete', params: { targeting_criterion_id: a.id } },
        { operation_type: 'Create', params: { line_item_id: li, targeting_type: 'LANGUAGE', targeting_value: 'xx' } },
      ]),
    );
    expect(r.stderr).toMatch(/item 2: INVALID_PARAMETER/);
    expect(t.collection('targeting_criteria').size).toBe(before);
    expect((await t.json(['ads', 'targeting', 'get', a.id])).deleted).toBe(false);
    const ok = await t.list(
      ['ads', 'targeting', 'batch', '--file', '-'],
      JSON.stringify([
        { operation_type: 'Delete', params: { targeting_criterion_id: a.id } },
        { operation_type: 'Create', params: { line_item_id: li, targeting_type: 'LANGUAGE', targeting_value: 'de' } },
      ]),
    );
    expect(ok.map((x) => [x.targeting_value, x.deleted])).toEqual([
      ['en', true],
      ['de', false],
    ]);
    // Replace-all PUT is in an old guide only: not a route of v12.
    const put = await t.signed('PUT', `/12/accounts/${t.sb.seed.account_id}/targeting_criteria`, []);
    expect(put).toMatchObject({ status: 404, body: { errors: [{ code: 'ROUTE_NOT_FOUND' }] } });
    const many = Array.from({ length: 501 }, () => ({
      operation_type: 'Delete',
      params: { targeting_criterion_id: 'x' },
    }));
    expect((await t.refused(['ads', 'targeting', 'batch', '--file', '-'], JSON.stringify(many))).stderr).toMatch(
      /at most 500 items/,
    );
    expect(
      (
        await t.refused(
          ['ads', 'targeting', 'batch', '--file', '-'],
          JSON.stringify([{ operation_type: 'Update', params: {} }]),
        )
      ).stderr,
    ).toMatch(/operation_type must be one of Create, Delete/);
  });
});
