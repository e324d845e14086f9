// Accounts (with features, access, apps, history), recommendations, reference data and
// settings through the real CLI against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox } from '../helpers/ads.js';

let t: AdsSandbox;
let acct: string;
beforeAll(async () => {
  t = await startAdsSandbox({ clock: 'manual' });
  acct = t.sb.seed.account_id;
});
afterAll(() => t.close());

describe('accounts', () => {
  it('list, get (default --account), update', async () => {
    const list = await t.list(['ads', 'accounts', 'list']);
    expect(list.map((a) => a.name)).toEqual([
      'Sandbox Ads Account',
      'Sandbox Sister Account',
      'Sandbox Partner Account',
    ]);
    expect(list[0].id).toBe(acct);
    expect(list[0].user_ids).toBeUndefined();
    expect((await t.json(['ads', 'accounts', 'get'])).id).toBe(acct);
    expect((await t.json(['ads', 'accounts', 'get', acct])).name).toBe('Sandbox Ads Account');
    const upd = await t.json(['ads', 'accounts', 'update', '--name', 'Renamed', '--industry-type', 'RETAIL']);
    expect(upd).toMatchObject({ id: acct, name: 'Renamed', industry_type: 'RETAIL' });
    expect((await t.list(['ads', 'accounts', 'list', '--q', 'ren'])).map((a) => a.id)).toEqual([acct]);
    expect(await t.json(['ads', 'accounts', 'list', '--q', 'zzz'])).toEqual([]);
  });

  it('sandbox create and delete; a deleted account is only seen with --with-deleted', async () => {
    const a = await t.json(['ads', 'accounts', 'create']);
    expect(a).toMatchObject({ approval_status: 'ACCEPTED', deleted: false });
    // A new account comes with a funding instrument, so campaigns can be made at once.
    const fis = await t.list(['ads', 'funding-instruments', 'list', '--account', a.id]);
    expect(fis).toHaveLength(1);
    const c = await t.json([
      'ads',
      'campaigns',
      'create',
      '--account',
      a.id,
      '--name',
      'First',
      '--funding-instrument-id',
      fis[0].id,
      '--daily-budget-amount-local-micro',
      '1000000',
    ]);
    expect(c.account_id).toBe(a.id);
    const total = await t.run(['ads', 'accounts', 'list', '--with-total-count', '--json']);
    expect(total.stderr).toMatch(/total_count: 4/);
    expect((await t.json(['ads', 'accounts', 'delete', a.id, '--yes'])).deleted).toBe(true);
    expect((await t.list(['ads', 'accounts', 'list'])).map((x) => x.id)).not.toContain(a.id);
    expect((await t.list(['ads', 'accounts', 'list', '--with-deleted'])).map((x) => x.id)).toContain(a.id);
    expect((await t.json(['ads', 'accounts', 'get', a.id, '--with-deleted'])).deleted).toBe(true);
    const gone = await t.fails(1, ['ads', 'campaigns', 'list', '--account', a.id]);
    expect(gone.stderr).toMatch(/ACCOUNT_NOT_FOUND/);
  });

  it('an account the user is not associated with is refused as not found (exit 1, not 3: the credentials are fine)', async () => {
    t.sb.app.state
      .collection('accounts')
      .set('foreign1', { id: 'foreign1', name: 'Not yours', user_ids: ['783214'], deleted: false });
    const r = await t.fails(1, ['ads', 'campaigns', 'list', '--account', 'foreign1']);
    expect(r.stderr).toMatch(/HTTP 403, code ACCOUNT_NOT_FOUND/);
    expect((await t.list(['ads', 'accounts', 'list'])).map((x) => x.id)).not.toContain('foreign1');
  });

  it('features: sandbox add and remove, filtered read', async () => {
    expect(await t.json(['ads', 'accounts', 'features'])).toEqual([]);
    const added = await t.list([
      'ads',
      'accounts',
      'add-features',
      '--feature-keys',
      'REACH_FREQUENCY_CAP,AGE_TARGETING',
    ]);
    expect(added.map((x) => x.value).sort()).toEqual(['AGE_TARGETING', 'REACH_FREQUENCY_CAP']);
    expect(
      (await t.list(['ads', 'accounts', 'features', '--feature-keys', 'REACH_FREQUENCY_CAP'])).map((x) => x.value),
    ).toEqual(['REACH_FREQUENCY_CAP']);
    expect((await t.list(['ads', 'ref', 'features'])).map((x) => x.value).sort()).toEqual([
      'AGE_TARGETING',
      'REACH_FREQUENCY_CAP',
    ]);
    const left = await t.list(['ads', 'accounts', 'remove-features', '--feature-keys', 'AGE_TARGETING']);
    expect(left.map((x) => x.value)).toEqual(['REACH_FREQUENCY_CAP']);
    const r = await t.refused(['ads', 'accounts', 'add-features', '--feature-keys', 'TELEPORT']);
    expect(r.stderr).toMatch(/--feature-keys entry "TELEPORT" must be one of AGE_TARGETING/);
  });

  it('authenticated user access and account apps', async () => {
    expect(await t.json(['ads', 'accounts', 'access'])).toEqual({
      user_id: t.sb.seed.user_id,
      permissions: ['ACCOUNT_ADMIN', 'TWEET_COMPOSER'],
    });
    const apps = await t.json(['ads', 'accounts', 'apps']);
    expect(apps[0]).toMatchObject({ app_store_identifier: 'com.example.sandbox', os_type: 'Android' });
  });

  it('history records campaign changes within whole-hour ranges', async () => {
    const fi = [...t.collection('funding_instruments').values()].find((f) => f.account_id === acct)!.id;
    const c = await t.json([
      'ads',
      'campaigns',
      'create',
      '--name',
      'Tracked',
      '--funding-instrument-id',
      fi,
      '--daily-budget-amount-local-micro',
      '1000000',
    ]);
    await t.admin('POST', '/_sandbox/clock', { advance: '2h' });
    await t.json(['ads', 'campaigns', 'update', c.id, '--entity-status', 'PAUSED']);
    const now = Date.parse(t.sb.app.clock.iso());
    const hour = (ms: number) => new Date(Math.floor(ms / 3600_000) * 3600_000).toISOString().replace('.000', '');
    const args = ['ads', 'accounts', 'history', '--entity-type', 'CAMPAIGN', '--entity-id', c.id];
    const all = await t.list([...args, '--start-time', hour(now - 5 * 3600_000), '--end-time', hour(now + 3600_000)]);
    expect(all.map((h) => h.change_type)).toEqual(['CREATE', 'UPDATE']);
    expect(all[1]).toMatchObject({ entity_id: c.id, user_id: t.sb.seed.user_id, changes: { entity_status: 'PAUSED' } });
    const late = await t.list([...args, '--start-time', hour(now), '--end-time', hour(now + 3600_000)]);
    expect(late.map((h) => h.change_type)).toEqual(['UPDATE']);
    const r = await t.refused([...args, '--start-time', '2026-01-01T00:30:00Z', '--end-time', '2026-01-02T00:00:00Z']);
    expect(r.stderr).toMatch(/--start-time must be a whole hour/);
    await t.refused([
      'ads',
      'accounts',
      'history',
      '--entity-type',
      'AD_GROUP',
      '--entity-id',
      c.id,
      '--start-time',
      '2026-01-01T00:00:00Z',
      '--end-time',
      '2026-01-02T00:00:00Z',
    ]);
  });

  it('recommendations (/5): list and get', async () => {
    const recs = await t.list(['ads', 'recommendations', 'list']);
    expect(recs).toHaveLength(1);
    const one = await t.json<{ recommendation: { campaigns: Array<{ operation_type: string }> } }>([
      'ads',
      'recommendations',
      'get',
      recs[0]!.id,
    ]);
    expect(one.recommendation.campaigns[0]!.operation_type).toBe('Update');
    expect(t.requests.some((l) => l.startsWith(`GET /5/accounts/${acct}/recommendations`))).toBe(true);
  });
});

describe('reference data', () => {
  it('bidding rules, content and business categories, publishers, placements', async () => {
    const [rules, eur, content, business, pubs, placements] = await Promise.all([
      t.list(['ads', 'ref', 'bidding-rules']),
      t.list(['ads', 'ref', 'bidding-rules', '--currency', 'EUR']),
      t.list(['ads', 'ref', 'content-categories']),
      t.list(['ads', 'ref', 'business-categories']),
      t.list(['ads', 'ref', 'publishers', 'list']),
      t.list(['ads', 'ref', 'placements', '--product-type', 'PROMOTED_ACCOUNT']),
    ]);
    expect(rules.map((b) => b.currency)).toContain('USD');
    expect(eur).toEqual([
      {
        currency: 'EUR',
        minimum_cpe_bid_local_micro: 10000,
        maximum_cpe_bid_local_micro: 900000000,
        id: 'EUR',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        deleted: false,
      },
    ]);
    expect(content[0]!.iab_categories).toEqual(expect.any(Array));
    expect(business.length).toBeGreaterThan(2);
    expect(pubs.length).toBeGreaterThan(1);
    expect(placements).toEqual([
      { product_type: 'PROMOTED_ACCOUNT', placements: [['ALL_ON_TWITTER'], ['TWITTER_TIMELINE']] },
    ]);
    await t.refusedAll([
      ['ads', 'ref', 'bidding-rules', '--currency', 'euro'],
      ['ads', 'ref', 'placements', '--product-type', 'VIDEO'],
      ['ads', 'ref', 'curated-categories', '--country-codes', 'USA'],
      ['ads', 'settings', 'tax', 'update', '--tax-category', 'COMPANY'],
      ['ads', 'settings', 'user', 'update', t.sb.seed.user_id, '--notification-email', 'not-an-email'],
      ['ads', 'accounts', 'add-features'],
    ]);
  });

  it('curated categories need country codes', async () => {
    const fr = await t.list(['ads', 'ref', 'curated-categories', '--country-codes', 'FR']);
    expect(fr.map((c) => c.id)).toEqual(['cc-food']);
    expect((await t.json(['ads', 'ref', 'curated-categories', 'get', 'cc-tech'])).name).toBe('Tech enthusiasts');
    expect((await t.refused(['ads', 'ref', 'curated-categories'])).stderr).toMatch(/--country-codes is required/);
  });

  it('keyword insights: input plus 30 related keywords, range and keyword limits', async () => {
    const now = Date.parse(t.sb.app.clock.iso());
    const start = new Date(now - 3 * 24 * 3600_000).toISOString();
    const rows = await t.list([
      'ads',
      'ref',
      'keyword-insights',
      '--granularity',
      'DAY',
      '--keywords',
      'running shoes,boots',
      '--start-time',
      start,
    ]);
    expect(rows).toHaveLength(32);
    expect(rows.slice(0, 2).map((r) => [r.keyword, r.related])).toEqual([
      ['running shoes', false],
      ['boots', false],
    ]);
    expect(rows[0].volumes).toHaveLength(3);
    const tooLong = await t.fails(1, [
      'ads',
      'ref',
      'keyword-insights',
      '--granularity',
      'DAY',
      '--keywords',
      'a',
      '--start-time',
      new Date(now - 8 * 24 * 3600_000).toISOString(),
    ]);
    expect(tooLong.stderr).toMatch(/at most 7 days/);
    const r = await t.refused([
      'ads',
      'ref',
      'keyword-insights',
      '--granularity',
      'DAY',
      '--keywords',
      'a,b,c,d,e,f',
      '--negative-keywords',
      'g,h,i,j,k',
      '--start-time',
      start,
    ]);
    expect(r.stderr).toMatch(/--keywords must be at most 10 combined with --negative-keywords \(got 11\)/);
    await t.refused([
      'ads',
      'ref',
      'keyword-insights',
      '--granularity',
      'WEEK',
      '--keywords',
      'a',
      '--start-time',
      start,
    ]);
  });
});

describe('settings', () => {
  it('tax settings: get with defaults, update', async () => {
    expect(await t.json(['ads', 'settings', 'tax'])).toMatchObject({
      account_id: acct,
      invoice_jurisdiction: 'NOT_SET',
      tax_category: null,
    });
    const upd = await t.json([
      'ads',
      'settings',
      'tax',
      'update',
      '--tax-category',
      'BUSINESS_WITH_VAT',
      '--tax-id',
      'DE123',
      '--invoice-jurisdiction',
      'LOI_SAPIN',
    ]);
    expect(upd).toMatchObject({
      tax_category: 'BUSINESS_WITH_VAT',
      tax_id: 'DE123',
      invoice_jurisdiction: 'LOI_SAPIN',
    });
    expect((await t.json(['ads', 'settings', 'tax', 'get'])).tax_id).toBe('DE123');
  });

  it('user settings: get, update your own, not another user', async () => {
    const me = t.sb.seed.user_id;
    expect(await t.json(['ads', 'settings', 'user', me])).toMatchObject({ user_id: me, notification_email: null });
    const upd = await t.json([
      'ads',
      'settings',
      'user',
      'update',
      me,
      '--notification-email',
      'ads@example.com',
      '--subscribe-email-types',
      'ACCOUNT_PERFORMANCE,PERFORMANCE_IMPROVEMENT',
    ]);
    expect(upd).toMatchObject({
      notification_email: 'ads@example.com',
      subscribe_email_types: ['ACCOUNT_PERFORMANCE', 'PERFORMANCE_IMPROVEMENT'],
    });
    t.sb.app.state.collection('accounts').get(acct)!.user_ids = [me, '783214'];
    const other = await t.fails(3, ['ads', 'settings', 'user', 'update', '783214', '--contact-phone', '+1 555 0100']);
    expect(other.stderr).toMatch(/UNAUTHORIZED_ACCESS/);
  });
});

describe('with_total_count has its own rate limit', () => {
  it('the ads-total-count category runs out while plain lists continue', async () => {
    t.sb.app.rates.limits['ads-total-count'] = { limit: 1, windowMs: 15 * 60_000 };
    t.sb.app.rates.reset();
    await t.json(['ads', 'campaigns', 'list', '--with-total-count']);
    const r = await t.run(['ads', 'campaigns', 'list', '--with-total-count', '--max-wait', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/TOO_MANY_REQUESTS/);
    await t.json(['ads', 'campaigns', 'list']);
  });
});
