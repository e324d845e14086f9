// The ads API through the real CLI against ONE sandbox (manual clock): what only the wire proves
// - requests signed and accepted, state changed as read back, the sandbox's own rules (exit 1
// with its code), batches all or nothing, time-driven lifecycles and delivery. Flags, output and
// every refusal before sending are tested in-process (test/unit/verbs/ads.test.ts). The sections
// share the sandbox, so those that move its clock come after those that read the seeded times.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  campaignWithLineItems,
  createCampaign,
  fundingInstrument,
  lineItemArgs,
  startAdsSandbox,
  type AdsReply,
  type AdsSandbox,
  type Row,
} from '../helpers/ads.js';
import { runCli, tempDir, xctl } from '../helpers/cli.js';

let t: AdsSandbox;
beforeAll(async () => {
  t = await startAdsSandbox({ clock: 'manual' });
});
afterAll(() => t.close());

/** Moves the sandbox's manual clock 5 s every 50 ms until `run` ends (a video upload polls STATUS). */
async function withClockMoving<T>(run: Promise<T>): Promise<T> {
  let done = false;
  const ended = run.finally(() => (done = true));
  while (!done) {
    await t.admin('POST', '/_sandbox/clock', { advance: '5s' });
    await Promise.race([ended, new Promise((r) => setTimeout(r, 50))]);
  }
  return ended;
}

/**
 * The campaign and line item the line-item and targeting tests share (made once, on first use):
 * engagements on the timeline and search, so keyword targeting can make it ACTIVE.
 */
let shared: Promise<{ campaign: string; lineItems: string[] }> | undefined;
const sharedCampaign = () =>
  (shared ??= campaignWithLineItems(t, {
    name: 'Shared',
    dailyBudgetMicro: '50000000',
    placements: 'TWITTER_TIMELINE,TWITTER_SEARCH',
    lineItems: [[]],
  }));

// Line-item attachments through the real CLI against the sandbox (manual clock): promoted
// accounts and posts, scheduled promoted posts, media creatives, tracking tags, curated
// categories, promotable users and targeting criteria, with the state rules of spec 3 and 7.
describe('line item attachments', () => {
  let web: string;
  let followers: string;
  let preroll: string;
  beforeAll(async () => {
    web = t.lineItem('WEBSITE_CLICKS');
    followers = t.lineItem('FOLLOWERS');
    preroll = t.lineItem('PREROLL_VIEWS');
  });

  describe('promoted accounts', () => {
    it('only on a PROMOTED_ACCOUNT line item; already promoted is ignored; delete disassociates', async () => {
      const bad = await t.fails(1, xctl`ads promoted-accounts create --line-item-id ${web} --user-id 783214`);
      expect(bad.stderr).toMatch(/HTTP 400, code INCOMPATIBLE_LINE_ITEM, parameter line_item_id/);
      const pa = await t.json(xctl`ads promoted-accounts create --line-item-id ${followers} --user-id 783214`);
      expect(pa).toMatchObject({ line_item_id: followers, user_id: '783214', deleted: false });
      const again = await t.json(xctl`ads promoted-accounts create --line-item-id ${followers} --user-id 783214`);
      expect(again.id).toBe(pa.id);
      expect(await t.json(xctl`ads promoted-accounts list`)).toHaveLength(1);
      const inel = await t.fails(1, xctl`ads promoted-accounts create --line-item-id ${followers} --user-id 999`);
      expect(inel.stderr).toMatch(/not eligible/);
      expect(await t.json(xctl`ads promoted-accounts list`)).toHaveLength(1);
      expect(
        (await t.list(xctl`ads promoted-accounts list --line-item-ids ${[followers, web].join(',')}`)).map((x) => x.id),
      ).toEqual([pa.id]);
      const none = await t.fails(1, xctl`ads promoted-accounts list --line-item-ids ${web}`);
      expect(none.stderr).toMatch(/INCOMPATIBLE_LINE_ITEM/);
      expect((await t.json(xctl`ads promoted-accounts get ${pa.id}`)).user_id).toBe('783214');
      expect((await t.json(xctl`ads promoted-accounts delete ${pa.id} --yes`)).deleted).toBe(true);
      expect(await t.json(xctl`ads promoted-accounts list`)).toHaveLength(0);
    });
  });

  describe('promoted tweets', () => {
    it('up to 50 posts per request; list, get, delete by record id; hidden with a deleted line item', async () => {
      // the sandbox's seeded posts: 1440000000000000001 to ...060
      const ids = Array.from({ length: 50 }, (_, i) => String(1440000000000000001n + BigInt(i))).join(',');
      const made = await t.list(xctl`ads promoted-tweets create --line-item-id ${web} --tweet-ids ${ids}`);
      expect(made).toHaveLength(50);
      expect(made[0]).toMatchObject({
        line_item_id: web,
        tweet_id: '1440000000000000001',
        entity_status: 'ACTIVE',
      });
      const all = await t.json(xctl`ads promoted-tweets list --count 20 --all`);
      expect(all).toHaveLength(50);
      const got = await t.json(xctl`ads promoted-tweets get ${made[1].id}`);
      expect(got.tweet_id).toBe('1440000000000000002');
      expect(await t.json(xctl`ads promoted-tweets delete ${made[1].id} --yes`)).toMatchObject({
        deleted: true,
        entity_status: 'PAUSED',
      });
      expect(await t.json(xctl`ads promoted-tweets list --promoted-tweet-ids ${made[1].id}`)).toEqual([]);
      // Spec 3: when the parent line item is deleted the post stays deleted=false, shown only with with_deleted.
      t.collection('line_items').get(web)!.deleted = true;
      expect(await t.json(xctl`ads promoted-tweets list --promoted-tweet-ids ${made[0].id}`)).toEqual([]);
      const shown = await t.list(xctl`ads promoted-tweets list --promoted-tweet-ids ${made[0].id} --with-deleted`);
      expect(shown.map((x) => [x.id, x.deleted])).toEqual([[made[0].id, false]]);
      t.collection('line_items').get(web)!.deleted = false;
    });
  });

  describe('promoted tweets of posts that do not exist (issue 29 item 8)', () => {
    it('an id that is no post of the sandbox is refused; nothing is promoted', async () => {
      const before = t.collection('promoted_tweets').size;
      const r = await t.run(
        xctl`ads promoted-tweets create --line-item-id ${web} --tweet-ids 1440000000000000003,9999`,
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/tweet_ids 9999 was not found: no such post/);
      expect(r.stderr).toMatch(/NOT_FOUND/);
      expect(t.collection('promoted_tweets').size).toBe(before);
    });
    it('a post made with `ads tweets create` can be promoted', async () => {
      const owner = t.sb.seed.user_id;
      const post = await t.json(xctl`ads tweets create --as-user-id ${owner} --text hi`);
      const made = await t.list(
        xctl`ads promoted-tweets create --line-item-id ${web} --tweet-ids ${String(post.id_str)}`,
      );
      expect(made[0]).toMatchObject({ tweet_id: post.id_str });
    });
  });

  describe('scheduled promoted tweets', () => {
    it('deletable only before the scheduled post goes out; the seeded post goes out a day after the start', async () => {
      const st = t.collection('scheduled_tweets').get('1000000000000000001')!;
      expect(st.scheduled_status).toBe('SCHEDULED');
      const a = await t.json(
        xctl`ads scheduled-promoted-tweets create --line-item-id ${web} --scheduled-tweet-id ${st.id}`,
      );
      const b = await t.json(
        xctl`ads scheduled-promoted-tweets create --line-item-id ${followers} --scheduled-tweet-id ${st.id}`,
      );
      expect((await t.list(xctl`ads scheduled-promoted-tweets list --line-item-ids ${web}`)).map((x) => x.id)).toEqual([
        a.id,
      ]);
      expect((await t.json(xctl`ads scheduled-promoted-tweets get ${b.id}`)).scheduled_tweet_id).toBe(st.id);
      await t.json(xctl`ads scheduled-promoted-tweets delete ${a.id} --yes`);
      await t.fails(1, xctl`ads scheduled-promoted-tweets get ${a.id} --with-deleted`);
      await t.admin('POST', '/_sandbox/clock', { advance: '24h' });
      expect(await t.json(xctl`ads scheduled get ${st.id}`)).toMatchObject({
        scheduled_status: 'SUCCESS',
        tweet_id: expect.stringMatching(/^\d+$/),
      });
      await t.admin('POST', '/_sandbox/clock', { advance: '1h' });
      const late = await t.fails(1, xctl`ads scheduled-promoted-tweets delete ${b.id} --yes`);
      expect(late.stderr).toMatch(/can only be deleted before/);
      expect((await t.json(xctl`ads scheduled-promoted-tweets get ${b.id}`)).id).toBe(b.id);
      const missing = await t.fails(
        1,
        xctl`ads scheduled-promoted-tweets create --line-item-id ${web} --scheduled-tweet-id 42`,
      );
      expect(missing.stderr).toMatch(/NOT_FOUND, parameter scheduled_tweet_id/);
    });
  });

  describe('media creatives', () => {
    it('landing_url is required for WEBSITE_CLICKS line items; list by campaign; delete', async () => {
      const media = [...t.collection('account_media').values()][0]!.id;
      const need = await t.fails(1, xctl`ads media-creatives create --account-media-id ${media} --line-item-id ${web}`);
      expect(need.stderr).toMatch(/MISSING_PARAMETER, parameter landing_url/);
      const mc = await t.json<Row & { campaign_id: string }>(
        xctl`ads media-creatives create --account-media-id ${media} --line-item-id ${web} --landing-url
          https://shop.example/spring`,
      );
      const other = await t.json(
        xctl`ads media-creatives create --account-media-id ${media} --line-item-id ${followers}`,
      );
      expect(mc.campaign_id).toBe(t.collection('line_items').get(web)!.campaign_id);
      expect((await t.json(xctl`ads media-creatives list --campaign-id ${mc.campaign_id}`)).length).toBe(2);
      expect((await t.list(xctl`ads media-creatives list --line-item-ids ${followers}`)).map((x) => x.id)).toEqual([
        other.id,
      ]);
      expect((await t.json(xctl`ads media-creatives get ${mc.id}`)).landing_url).toBe('https://shop.example/spring');
      expect((await t.json(xctl`ads media-creatives delete ${mc.id} --yes`)).deleted).toBe(true);
    });
  });

  describe('tracking tags', () => {
    it('create, list, get, update, delete', async () => {
      const tag = await t.json(
        xctl`ads tracking-tags create --line-item-id ${preroll} --tracking-tag-type IMPRESSION_TAG --tracking-tag-url
          https://track.example/i`,
      );
      expect(tag).toMatchObject({ tracking_tag_type: 'IMPRESSION_TAG', line_item_id: preroll });
      expect((await t.list(xctl`ads tracking-tags list --line-item-ids ${preroll}`)).map((x) => x.id)).toEqual([
        tag.id,
      ]);
      expect(
        (await t.json(xctl`ads tracking-tags update ${tag.id} --tracking-tag-url https://track.example/v2`))
          .tracking_tag_url,
      ).toBe('https://track.example/v2');
      expect((await t.json(xctl`ads tracking-tags get ${tag.id}`)).tracking_tag_url).toBe('https://track.example/v2');
      expect((await t.json(xctl`ads tracking-tags delete ${tag.id} --yes`)).deleted).toBe(true);
    });
  });

  describe('line item curated categories', () => {
    it('create, update, delete; unknown categories are 404', async () => {
      const c = await t.json(
        xctl`ads line-item-categories create --line-item-id ${web} --curated-category-id cc-sports`,
      );
      expect(c).toMatchObject({ line_item_id: web, curated_category_id: 'cc-sports' });
      expect(
        (await t.json(xctl`ads line-item-categories update ${c.id} --curated-category-id cc-tech`)).curated_category_id,
      ).toBe('cc-tech');
      const bad = await t.fails(1, xctl`ads line-item-categories update ${c.id} --curated-category-id cc-none`);
      expect(bad.stderr).toMatch(/NOT_FOUND, parameter curated_category_id/);
      expect(t.collection('line_item_curated_categories').get(c.id)!.curated_category_id).toBe('cc-tech');
      expect((await t.json(xctl`ads line-item-categories delete ${c.id} --yes`)).deleted).toBe(true);
    });
  });

  describe('promotable users and targeting criteria', () => {
    it('lists and gets promotable users; targeting criteria need line item ids', async () => {
      const users = await t.list(xctl`ads promotable-users list`);
      expect(users.map((u) => u.promotable_user_type).sort()).toEqual(['FULL', 'RETWEETS_ONLY']);
      expect((await t.json(xctl`ads promotable-users get ${users[0].id}`)).user_id).toBe(users[0].user_id);
      const tc = await t.list(xctl`ads targeting list --line-item-ids ${[web, followers].join(',')}`);
      expect(tc.map((x) => x.line_item_id).sort()).toEqual([web, followers].sort());
    });
  });
});

// Accounts (with features, access, apps, history), recommendations, reference data and
// settings through the real CLI against the sandbox.
describe('accounts, reference data and settings', () => {
  let acct: string;
  beforeAll(async () => {
    acct = t.sb.seed.account_id;
  });

  describe('accounts', () => {
    it('list, get (default --account), update', async () => {
      const list = await t.list(xctl`ads accounts list`);
      expect(list.map((a) => a.name)).toEqual([
        'Sandbox Ads Account',
        'Sandbox Sister Account',
        'Sandbox Partner Account',
      ]);
      expect(list[0].id).toBe(acct);
      expect(list[0].user_ids).toBeUndefined();
      expect((await t.json(xctl`ads accounts get`)).id).toBe(acct);
      expect((await t.json(xctl`ads accounts get ${acct}`)).name).toBe('Sandbox Ads Account');
      const upd = await t.json(xctl`ads accounts update --name Renamed --industry-type RETAIL`);
      expect(upd).toMatchObject({ id: acct, name: 'Renamed', industry_type: 'RETAIL' });
      expect((await t.list(xctl`ads accounts list --q ren`)).map((a) => a.id)).toEqual([acct]);
      expect(await t.json(xctl`ads accounts list --q zzz`)).toEqual([]);
    });

    it('sandbox create and delete; a deleted account is only seen with --with-deleted', async () => {
      const a = await t.json(xctl`ads accounts create`);
      expect(a).toMatchObject({ approval_status: 'ACCEPTED', deleted: false });
      // A new account comes with a funding instrument, so campaigns can be made at once.
      const fis = await t.list(xctl`ads funding-instruments list --account ${a.id}`);
      expect(fis).toHaveLength(1);
      const c = await t.json(
        xctl`ads campaigns create --account ${a.id} --name First --funding-instrument-id ${fis[0].id}
          --daily-budget-amount-local-micro 1000000`,
      );
      expect(c.account_id).toBe(a.id);
      const total = await t.run(xctl`ads accounts list --with-total-count --json`);
      expect(total.stderr).toMatch(/total_count: 4/);
      expect((await t.json(xctl`ads accounts delete ${a.id} --yes`)).deleted).toBe(true);
      expect((await t.list(xctl`ads accounts list`)).map((x) => x.id)).not.toContain(a.id);
      expect((await t.list(xctl`ads accounts list --with-deleted`)).map((x) => x.id)).toContain(a.id);
      expect((await t.json(xctl`ads accounts get ${a.id} --with-deleted`)).deleted).toBe(true);
      const gone = await t.fails(1, xctl`ads campaigns list --account ${a.id}`);
      expect(gone.stderr).toMatch(/ACCOUNT_NOT_FOUND/);
    });

    it('an account the user is not associated with is refused as not found (exit 1, not 3: the credentials are fine)', async () => {
      t.sb.app.state
        .collection('accounts')
        .set('foreign1', { id: 'foreign1', name: 'Not yours', user_ids: ['783214'], deleted: false });
      const r = await t.fails(1, xctl`ads campaigns list --account foreign1`);
      expect(r.stderr).toMatch(/HTTP 403, code ACCOUNT_NOT_FOUND/);
      expect((await t.list(xctl`ads accounts list`)).map((x) => x.id)).not.toContain('foreign1');
    });

    it('features: sandbox add and remove, filtered read', async () => {
      expect(await t.json(xctl`ads accounts features`)).toEqual([]);
      const added = await t.list(xctl`ads accounts add-features --feature-keys REACH_FREQUENCY_CAP,AGE_TARGETING`);
      expect(added.map((x) => x.value).sort()).toEqual(['AGE_TARGETING', 'REACH_FREQUENCY_CAP']);
      expect(
        (await t.list(xctl`ads accounts features --feature-keys REACH_FREQUENCY_CAP`)).map((x) => x.value),
      ).toEqual(['REACH_FREQUENCY_CAP']);
      expect((await t.list(xctl`ads ref features`)).map((x) => x.value).sort()).toEqual([
        'AGE_TARGETING',
        'REACH_FREQUENCY_CAP',
      ]);
      const left = await t.list(xctl`ads accounts remove-features --feature-keys AGE_TARGETING`);
      expect(left.map((x) => x.value)).toEqual(['REACH_FREQUENCY_CAP']);
    });

    it('authenticated user access and account apps', async () => {
      expect(await t.json(xctl`ads accounts access`)).toEqual({
        user_id: t.sb.seed.user_id,
        permissions: ['ACCOUNT_ADMIN', 'TWEET_COMPOSER'],
      });
      const apps = await t.json(xctl`ads accounts apps`);
      expect(apps[0]).toMatchObject({ app_store_identifier: 'com.example.sandbox', os_type: 'Android' });
    });

    it('history records campaign changes within whole-hour ranges', async () => {
      const c = { id: await createCampaign(t, 'Tracked') };
      await t.admin('POST', '/_sandbox/clock', { advance: '2h' });
      await t.json(xctl`ads campaigns update ${c.id} --entity-status PAUSED`);
      const now = Date.parse(t.sb.app.clock.iso());
      const hour = (ms: number) => new Date(Math.floor(ms / 3600_000) * 3600_000).toISOString().replace('.000', '');
      const args = xctl`ads accounts history --entity-type CAMPAIGN --entity-id ${c.id}`;
      const all = await t.list([...args, '--start-time', hour(now - 5 * 3600_000), '--end-time', hour(now + 3600_000)]);
      expect(all.map((h) => h.change_type)).toEqual(['CREATE', 'UPDATE']);
      expect(all[1]).toMatchObject({
        entity_id: c.id,
        user_id: t.sb.seed.user_id,
        changes: { entity_status: 'PAUSED' },
      });
      const late = await t.list([...args, '--start-time', hour(now), '--end-time', hour(now + 3600_000)]);
      expect(late.map((h) => h.change_type)).toEqual(['UPDATE']);
    });

    it('recommendations (/5): list and get', async () => {
      const recs = await t.list(xctl`ads recommendations list`);
      expect(recs).toHaveLength(1);
      const one = await t.json<{ recommendation: { campaigns: Array<{ operation_type: string }> } }>(
        xctl`ads recommendations get ${recs[0]!.id}`,
      );
      expect(one.recommendation.campaigns[0]!.operation_type).toBe('Update');
      expect(t.requests.some((l) => l.startsWith(`GET /5/accounts/${acct}/recommendations`))).toBe(true);
    });
  });

  describe('reference data', () => {
    it('bidding rules, content and business categories, publishers, placements', async () => {
      const [rules, eur, content, business, pubs, placements] = await Promise.all([
        t.list(xctl`ads ref bidding-rules`),
        t.list(xctl`ads ref bidding-rules --currency EUR`),
        t.list(xctl`ads ref content-categories`),
        t.list(xctl`ads ref business-categories`),
        t.list(xctl`ads ref publishers list`),
        t.list(xctl`ads ref placements --product-type PROMOTED_ACCOUNT`),
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
    });

    it('curated categories need country codes', async () => {
      const fr = await t.list(xctl`ads ref curated-categories --country-codes FR`);
      expect(fr.map((c) => c.id)).toEqual(['cc-food']);
      expect((await t.json(xctl`ads ref curated-categories get cc-tech`)).name).toBe('Tech enthusiasts');
    });

    it('keyword insights: input plus 30 related keywords, range and keyword limits', async () => {
      const now = Date.parse(t.sb.app.clock.iso());
      const start = new Date(now - 3 * 24 * 3600_000).toISOString();
      const rows = await t.list(
        xctl`ads ref keyword-insights --granularity DAY --keywords ${'running shoes,boots'} --start-time ${start}`,
      );
      expect(rows).toHaveLength(32);
      expect(rows.slice(0, 2).map((r) => [r.keyword, r.related])).toEqual([
        ['running shoes', false],
        ['boots', false],
      ]);
      expect(rows[0].volumes).toHaveLength(3);
      const tooLong = await t.fails(
        1,
        xctl`ads ref keyword-insights --granularity DAY --keywords a --start-time
          ${new Date(now - 8 * 24 * 3600_000).toISOString()}`,
      );
      expect(tooLong.stderr).toMatch(/at most 7 days/);
      // docs/contract.md, ads 4.2: one country: a country's targeting value, not a city's.
      const us = '96683cc9126741d1';
      const berlin = '3078869807f9dd36';
      const ks = ['--granularity', 'DAY', '--keywords', 'boots', '--start-time', start];
      expect(await t.list(xctl`ads ref keyword-insights ${ks} --location ${us}`)).toHaveLength(31);
      const city = await t.fails(1, xctl`ads ref keyword-insights ${ks} --location ${berlin}`);
      expect(city.stderr).toMatch(
        /location must be the targeting value of a country .*not of CITIES \(Berlin, Berlin, DE\)/,
      );
    });
  });

  describe('settings', () => {
    it('tax settings: get with defaults, update', async () => {
      expect(await t.json(xctl`ads settings tax`)).toMatchObject({
        account_id: acct,
        invoice_jurisdiction: 'NOT_SET',
        tax_category: null,
      });
      const upd = await t.json(
        xctl`ads settings tax update --tax-category BUSINESS_WITH_VAT --tax-id DE123 --invoice-jurisdiction LOI_SAPIN`,
      );
      expect(upd).toMatchObject({
        tax_category: 'BUSINESS_WITH_VAT',
        tax_id: 'DE123',
        invoice_jurisdiction: 'LOI_SAPIN',
      });
      expect((await t.json(xctl`ads settings tax get`)).tax_id).toBe('DE123');
    });

    it('user settings: get, update your own, not another user', async () => {
      const me = t.sb.seed.user_id;
      expect(await t.json(xctl`ads settings user ${me}`)).toMatchObject({ user_id: me, notification_email: null });
      const upd = await t.json(
        xctl`ads settings user update ${me} --notification-email ads@example.com --subscribe-email-types
          ACCOUNT_PERFORMANCE,PERFORMANCE_IMPROVEMENT`,
      );
      expect(upd).toMatchObject({
        notification_email: 'ads@example.com',
        subscribe_email_types: ['ACCOUNT_PERFORMANCE', 'PERFORMANCE_IMPROVEMENT'],
      });
      t.sb.app.state.collection('accounts').get(acct)!.user_ids = [me, '783214'];
      const other = await t.fails(3, xctl`ads settings user update 783214 --contact-phone ${'+1 555 0100'}`);
      expect(other.stderr).toMatch(/UNAUTHORIZED_ACCESS/);
    });
  });

  describe('with_total_count has its own rate limit', () => {
    it('the ads-total-count category runs out while plain lists continue', async () => {
      const before = t.sb.app.rates.limits['ads-total-count'];
      t.sb.app.rates.limits['ads-total-count'] = { limit: 1, windowMs: 15 * 60_000 };
      t.sb.app.rates.reset();
      await t.json(xctl`ads campaigns list --with-total-count`);
      const r = await t.run(xctl`ads campaigns list --with-total-count --max-wait 0`);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/TOO_MANY_REQUESTS/);
      await t.json(xctl`ads campaigns list`);
      t.sb.app.rates.limits['ads-total-count'] = before!;
      t.sb.app.rates.reset();
    });
  });
});

// Campaigns, funding instruments and line items through the real CLI against the sandbox:
// every verb, pagination across pages, batches (success, a failing item, too many items), the
// active-campaign limit, and refused input that sends nothing.
describe('campaigns and funding instruments', () => {
  let fi: string;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('xctl-ads-');
    fi = fundingInstrument(t);
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const budget = ['--daily-budget-amount-local-micro', '5000000'];

  describe('campaigns', () => {
    it('--daily-budget and --total-budget in the currency, converted exactly; too many decimals refused (issue 29)', async () => {
      const c = await t.json(
        xctl`ads campaigns create --name Money --funding-instrument-id ${fi} --daily-budget 30.50 --total-budget 1000`,
      );
      expect(c).toMatchObject({
        daily_budget_amount_local_micro: 30_500_000,
        total_budget_amount_local_micro: 1_000_000_000,
        currency: 'USD',
      });
      const r = await t.fails(2, xctl`ads campaigns update ${c.id} --daily-budget 30.505`);
      expect(r.stderr).toContain('--daily-budget 30.505: USD has 2 decimals');
    });

    it('create, get, list, update, delete; a second delete is 404', async () => {
      const c = await t.json(
        xctl`ads campaigns create --name ${'Spring sale'} --funding-instrument-id ${fi} ${budget}
          --purchase-order-number PO-1`,
      );
      expect(c).toMatchObject({
        name: 'Spring sale',
        entity_status: 'ACTIVE',
        budget_optimization: 'CAMPAIGN',
        standard_delivery: true,
        funding_instrument_id: fi,
        deleted: false,
        currency: 'USD',
      });
      expect(c.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(await t.json(xctl`ads campaigns get ${c.id}`)).toMatchObject({ id: c.id, name: 'Spring sale' });
      const upd = await t.json(xctl`ads campaigns update ${c.id} --entity-status PAUSED --name ${'Spring sale 2'}`);
      expect(upd).toMatchObject({ entity_status: 'PAUSED', name: 'Spring sale 2', servable: false });
      // The stored daily budget (5,000,000) is above a new total: the sandbox checks the result.
      const over = await t.fails(1, xctl`ads campaigns update ${c.id} --total-budget-amount-local-micro 4000000`);
      expect(over.stderr).toMatch(/daily_budget_amount_local_micro must be at most total_budget_amount_local_micro/);
      expect((await t.json(xctl`ads campaigns get ${c.id}`)).total_budget_amount_local_micro).toBeNull(); // sent, null when unset
      const del = await t.json(xctl`ads campaigns delete ${c.id} --yes`);
      expect(del.deleted).toBe(true);
      // Irreversible: later deletes and gets are 404; with_deleted still shows it.
      const again = await t.fails(1, xctl`ads campaigns delete ${c.id} --yes`);
      expect(again.stderr).toMatch(/HTTP 404, code NOT_FOUND/);
      await t.fails(1, xctl`ads campaigns get ${c.id}`);
      expect((await t.json(xctl`ads campaigns get ${c.id} --with-deleted`)).deleted).toBe(true);
      const ids = (await t.list(xctl`ads campaigns list --with-deleted --campaign-ids ${c.id}`)).map((x) => x.id);
      expect(ids).toEqual([c.id]);
      expect(await t.json(xctl`ads campaigns list --campaign-ids ${c.id}`)).toEqual([]);
    });

    it('a credit-card funding instrument needs a daily budget; an unknown one is 404', async () => {
      const r = await t.fails(1, xctl`ads campaigns create --name x --funding-instrument-id ${fi}`);
      expect(r.stderr).toMatch(/MISSING_PARAMETER, parameter daily_budget_amount_local_micro/);
      const r2 = await t.fails(1, xctl`ads campaigns create --name x --funding-instrument-id nope1 ${budget}`);
      expect(r2.stderr).toMatch(/HTTP 404, code NOT_FOUND, parameter funding_instrument_id/);
    });

    it('DRAFT campaigns are listed only with --with-draft; q is a name prefix', async () => {
      const d = await t.json(
        xctl`ads campaigns create --name ${'Draft idea'} --funding-instrument-id ${fi} ${budget} --entity-status DRAFT`,
      );
      expect((await t.list(xctl`ads campaigns list --q draft`)).map((x) => x.id)).toEqual([]);
      expect((await t.list(xctl`ads campaigns list --q draft --with-draft`)).map((x) => x.id)).toEqual([d.id]);
    });

    it('pages with cursors: one page by default, --all follows, --limit stops, --with-total-count reports', async () => {
      for (let i = 0; i < 4; i++)
        t.sb.app.state.collection('campaigns').set(`page${i}`, {
          id: `page${i}`,
          account_id: t.sb.seed.account_id,
          name: `Paged ${i}`,
          entity_status: 'PAUSED',
          deleted: false,
          funding_instrument_id: fi,
          created_at: '2026-01-01T00:00:00Z',
        });
      const one = await t.list(xctl`ads campaigns list --q Paged --count 3`);
      expect(one.map((x) => x.name)).toEqual(['Paged 0', 'Paged 1', 'Paged 2']);
      const before = t.requests.length;
      const all = await t.list(xctl`ads campaigns list --q Paged --count 3 --all`);
      expect(all.map((x) => x.name)).toEqual(['Paged 0', 'Paged 1', 'Paged 2', 'Paged 3']);
      expect(t.requests.slice(before).filter((l) => l.includes('/campaigns'))).toHaveLength(2);
      const lim = await t.list(xctl`ads campaigns list --q Paged --count 1 --limit 2`);
      expect(lim.map((x) => x.name)).toEqual(['Paged 0', 'Paged 1']);
      const sorted = await t.list(
        xctl`ads campaigns list --q Paged --sort-by name-desc --limit 4 --count 2 --with-total-count`,
      );
      expect(sorted.map((x) => x.name)).toEqual(['Paged 3', 'Paged 2', 'Paged 1', 'Paged 0']);
      const r = await t.run(xctl`ads campaigns list --q Paged --with-total-count -o tsv --fields name`);
      expect(r.stderr).toMatch(/total_count: 4/);
      expect(r.stdout.trim().split('\n')).toHaveLength(4);
    });

    it(`the 200 active campaigns of an account are a limit; paused ones are not`, async () => {
      const coll = t.sb.app.state.collection('campaigns');
      const active = [...coll.values()].filter(
        (c) => c.account_id === t.sb.seed.account_id && c.entity_status === 'ACTIVE' && !c.deleted,
      ).length;
      for (let i = active; i < 199; i++)
        coll.set(`act${i}`, {
          id: `act${i}`,
          account_id: t.sb.seed.account_id,
          name: `Active ${i}`,
          entity_status: 'ACTIVE',
          deleted: false,
        });
      const last = await t.json(
        xctl`ads campaigns create --name ${'Number 200'} --funding-instrument-id ${fi} ${budget}`,
      );
      const r = await t.fails(
        1,
        xctl`ads campaigns create --name ${'Number 201'} --funding-instrument-id ${fi} ${budget}`,
      );
      expect(r.stderr).toMatch(/already has 200 active campaigns/);
      const paused = await t.json(
        xctl`ads campaigns create --name ${'Paused 201'} --funding-instrument-id ${fi} ${budget} --entity-status
          PAUSED`,
      );
      await t.fails(1, xctl`ads campaigns update ${paused.id} --entity-status ACTIVE`);
      await t.json(xctl`ads campaigns update ${last.id} --entity-status PAUSED`);
      expect((await t.json(xctl`ads campaigns update ${paused.id} --entity-status ACTIVE`)).entity_status).toBe(
        'ACTIVE',
      );
      for (const k of [...coll.keys()]) if (k.startsWith('act')) coll.delete(k);
    });
  });

  describe('the sandbox envelope and errors', () => {
    it('lists carry request.params, data_type, next_cursor and total_count; errors carry code and parameter', async () => {
      const base = `/12/accounts/${t.sb.seed.account_id}/campaigns`;
      for (const id of ['env1', 'env2'])
        t.sb.app.state
          .collection('campaigns')
          .set(id, { id, account_id: t.sb.seed.account_id, name: id, entity_status: 'PAUSED', deleted: false });
      const page = await t.signed<AdsReply<Row[]>>('GET', `${base}?count=1&with_total_count=true`);
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({
        data_type: 'campaign',
        request: { params: { account_id: t.sb.seed.account_id, count: 1, with_total_count: true } },
      });
      expect(page.body.data).toHaveLength(1);
      expect(page.body.next_cursor).toMatch(/^c-/);
      expect(page.body.total_count).toBeGreaterThan(1);
      const next = await t.signed<AdsReply<Row[]>>('GET', `${base}?count=1&cursor=${page.body.next_cursor}`);
      expect(next.body.data[0]!.id).not.toBe(page.body.data[0]!.id);
      expect(next.body.total_count).toBeUndefined();
      const one = await t.signed('GET', `${base}/${page.body.data[0]!.id}`);
      expect(one.body).toMatchObject({ data: { id: page.body.data[0]!.id }, data_type: 'campaign' });
      expect((await t.signed('GET', `${base}?cursor=garbage`)).body.errors![0]).toMatchObject({
        code: 'INVALID_PARAMETER',
        parameter: 'cursor',
      });
      expect((await t.signed('GET', `${base}?sort_by=colour-asc`)).body.errors![0]).toMatchObject({
        code: 'INVALID_PARAMETER',
        parameter: 'sort_by',
      });
      const both = await t.signed('GET', `${base}?with_total_count=true&cursor=c-1`);
      expect(both.status).toBe(400);
      expect(both.body.errors![0]).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'with_total_count' });
      const missing = await t.signed('POST', base);
      expect(missing.status).toBe(400);
      expect(missing.body.errors!.map((e) => [e.code, e.parameter])).toEqual([
        ['MISSING_PARAMETER', 'funding_instrument_id'],
        ['MISSING_PARAMETER', 'name'],
      ]);
      const unknown = await t.signed('GET', `/12/accounts/${t.sb.seed.account_id}/campaigns/nope1`);
      expect(unknown).toMatchObject({
        status: 404,
        body: { errors: [{ code: 'NOT_FOUND', parameter: 'campaign_id' }] },
      });
      const anon = await fetch(`${t.sb.seed.base_url}${base}`);
      expect(anon.status).toBe(401);
      expect(((await anon.json()) as AdsReply).errors![0]!.code).toBe('UNAUTHORIZED_ACCESS');
    });
  });

  describe('campaigns batch', () => {
    it('applies every item, in order, from a file or stdin', async () => {
      const target = await t.json(
        xctl`ads campaigns create --name ${'To update'} --funding-instrument-id ${fi} ${budget}`,
      );
      const doomed = await t.json(
        xctl`ads campaigns create --name ${'To delete'} --funding-instrument-id ${fi} ${budget}`,
      );
      const ops = [
        {
          operation_type: 'Create',
          params: {
            name: 'Batch new',
            funding_instrument_id: fi,
            daily_budget_amount_local_micro: 1000000,
            entity_status: 'PAUSED',
          },
        },
        { operation_type: 'Update', params: { campaign_id: target.id, name: 'Updated by batch' } },
        { operation_type: 'Delete', params: { campaign_id: doomed.id } },
      ];
      const file = path.join(dir, 'ops.json');
      fs.writeFileSync(file, JSON.stringify(ops));
      const out = await t.list(xctl`ads campaigns batch --file ${file}`);
      expect(out.map((x) => [x.name, x.deleted])).toEqual([
        ['Batch new', false],
        ['Updated by batch', false],
        ['To delete', true],
      ]);
      expect((await t.json(xctl`ads campaigns get ${target.id}`)).name).toBe('Updated by batch');
      const viaStdin = await t.list(
        xctl`ads campaigns batch --file -`,
        JSON.stringify([{ operation_type: 'Update', params: { campaign_id: target.id, entity_status: 'PAUSED' } }]),
      );
      expect(viaStdin[0].entity_status).toBe('PAUSED');
    });

    it('a failing item fails the whole batch: nothing is applied, errors by position', async () => {
      const keep = await t.json(xctl`ads campaigns create --name ${'Keep me'} --funding-instrument-id ${fi} ${budget}`);
      const count = t.sb.app.state.collection('campaigns').size;
      const ops = [
        { operation_type: 'Update', params: { campaign_id: keep.id, name: 'Should not stick' } },
        {
          operation_type: 'Create',
          params: { name: 'Never created', funding_instrument_id: fi, daily_budget_amount_local_micro: 1 },
        },
        { operation_type: 'Delete', params: { campaign_id: 'missing1' } },
      ];
      const r = await t.fails(1, xctl`ads campaigns batch --file -`, JSON.stringify(ops));
      expect(r.stderr).toMatch(/refused as a whole/);
      expect(r.stderr).toMatch(/item 3: NOT_FOUND campaign_id missing1 was not found/);
      expect(t.sb.app.state.collection('campaigns').size).toBe(count);
      expect((await t.json(xctl`ads campaigns get ${keep.id}`)).name).toBe('Keep me');
    });

    it('the sandbox answers operation_errors by position and request-level errors', async () => {
      const p = `/12/batch/accounts/${t.sb.seed.account_id}/campaigns`;
      const items = await t.signed('POST', p, [
        { operation_type: 'Delete', params: { campaign_id: [...t.collection('campaigns').keys()][0] } },
        { operation_type: 'Create', params: { funding_instrument_id: fi } },
        { operation_type: 'Update', params: { campaign_id: 'x1', name: 'n' } },
      ]);
      expect(items.status).toBe(400);
      expect(items.body.operation_errors).toEqual([
        [],
        [{ code: 'MISSING_PARAMETER', message: 'name is required', parameter: 'name' }],
        [],
      ]);
      // Item 2 is well-formed but names no campaign: found when applying, reported at its position.
      const applied = await t.signed('POST', p, [
        { operation_type: 'Update', params: { campaign_id: 'x1', name: 'n' } },
      ]);
      expect(applied.body.operation_errors![0]![0]).toMatchObject({ code: 'NOT_FOUND', parameter: 'campaign_id' });
      const big = await t.signed(
        'POST',
        p,
        Array(41).fill({ operation_type: 'Delete', params: { campaign_id: 'x1' } }),
      );
      expect(big.status).toBe(400);
      expect(big.body.errors![0]).toMatchObject({
        code: 'INVALID_PARAMETER',
        message: 'body must hold at most 40 items (got 41)',
      });
      expect(big.body.operation_errors).toBeUndefined();
    });
  });

  describe('funding instruments and line items', () => {
    it('list, get, and the sandbox-only create (on the sister account: the main one stays all USD)', async () => {
      const list = await t.list(xctl`ads funding-instruments list`);
      expect(list.map((x) => x.id)).toContain(fi);
      expect((await t.json(xctl`ads funding-instruments get ${fi}`)).currency).toBe('USD');
      const sister = [...t.collection('accounts').values()].find((a) => a.name === 'Sandbox Sister Account')!.id;
      const created = await t.json(
        xctl`ads funding-instruments create --account ${sister} --currency EUR --start-time 2026-12-01T00:00:00Z`,
      );
      expect(created).toMatchObject({
        currency: 'EUR',
        type: 'CREDIT_CARD',
        entity_status: 'ACTIVE',
        start_time: '2026-12-01T00:00:00Z',
      });
      expect(
        (
          await t.list(xctl`ads funding-instruments list --account ${sister} --funding-instrument-ids ${created.id}`)
        ).map((x) => x.id),
      ).toEqual([created.id]);
    });

    it('seeded line items are listed, filtered by campaign, and fetched', async () => {
      const lis = await t.list<Row & { campaign_id: string }>(xctl`ads line-items list`);
      expect(lis.map((x) => x.objective).sort()).toEqual(['FOLLOWERS', 'PREROLL_VIEWS', 'WEBSITE_CLICKS']);
      const camp = lis[0]!.campaign_id;
      expect(await t.json(xctl`ads line-items list --campaign-ids ${camp}`)).toHaveLength(3);
      expect(await t.json(xctl`ads line-items list --campaign-ids other`)).toHaveLength(0);
      expect((await t.json(xctl`ads line-items get ${t.lineItem('FOLLOWERS')}`)).product_type).toBe('PROMOTED_ACCOUNT');
    });
  });
});

// Line items through the real CLI against the sandbox: every verb, the rules the sandbox alone
// can judge (campaign consistency, budget owner, limits, categories, keyword targeting for
// search), refused input that sends nothing, batches, and attachments on user-made line items.
describe('line items', () => {
  let fi: string;
  let camp: string;
  beforeAll(async () => {
    fi = fundingInstrument(t);
    camp = (await sharedCampaign()).campaign;
  });

  const engage = () => lineItemArgs(camp);

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
      expect(await t.json(xctl`ads line-items get ${li.id}`)).toMatchObject({ id: li.id });
      expect((await t.list(xctl`ads line-items list --campaign-ids ${camp}`)).map((x) => x.id)).toContain(li.id);
      const upd = await t.json(
        xctl`ads line-items update ${li.id} --entity-status ACTIVE --end-time ${''} --start-time
          2026-05-19T10:00:00+02`,
      );
      expect(upd).toMatchObject({ entity_status: 'ACTIVE', end_time: null, start_time: '2026-05-19T08:00:00Z' });
      expect((await t.json(xctl`ads line-items delete ${li.id} --yes`)).deleted).toBe(true);
      const again = await t.fails(1, xctl`ads line-items delete ${li.id} --yes`);
      expect(again.stderr).toMatch(/HTTP 404, code LINE_ITEM_NOT_FOUND/);
      expect((await t.json(xctl`ads line-items get ${li.id} --with-deleted`)).deleted).toBe(true);
    });

    it('all line items of a campaign share objective and product_type; the campaign must exist', async () => {
      const c = await createCampaign(t, 'Consistency');
      await t.json(lineItemArgs(c));
      const r = await t.fails(
        1,
        xctl`ads line-items create --campaign-id ${c} --objective WEBSITE_CLICKS --product-type PROMOTED_TWEETS
          --placements ALL_ON_TWITTER`,
      );
      expect(r.stderr).toMatch(/objective must be ENGAGEMENTS, as for the other line items/);
      const r2 = await t.fails(
        1,
        xctl`ads line-items create --campaign-id nosuch --objective ENGAGEMENTS --product-type PROMOTED_TWEETS
          --placements ALL_ON_TWITTER`,
      );
      expect(r2.stderr).toMatch(/HTTP 404, code CAMPAIGN_NOT_FOUND, parameter campaign_id/);
    });

    it('line-item budgets only under a LINE_ITEM-optimized campaign; daily <= total', async () => {
      const r = await t.fails(1, [...engage(), '--daily-budget-amount-local-micro', '1000000']);
      expect(r.stderr).toMatch(/EXCLUSIVE_PARAMETERS, parameter daily_budget_amount_local_micro/);
      const c = await createCampaign(
        t,
        'LI budgets',
        '--budget-optimization',
        'LINE_ITEM',
        '--daily-budget-amount-local-micro',
        '9000000',
      );
      const li = await t.json(
        lineItemArgs(
          c,
          'ALL_ON_TWITTER',
          '--daily-budget-amount-local-micro',
          '1000000',
          '--total-budget-amount-local-micro',
          '1000000',
          '--standard-delivery',
        ),
      );
      expect(li).toMatchObject({ daily_budget_amount_local_micro: 1_000_000, standard_delivery: true });
      // The stored daily budget against a new, lower total: judged on the stored result.
      const over = await t.fails(1, xctl`ads line-items update ${li.id} --total-budget-amount-local-micro 999999`);
      expect(over.stderr).toMatch(/SPEND_EXCEEDS_BUDGET/);
    });

    it('TWITTER_SEARCH needs keyword targeting before ACTIVE; categories are checked against the reference data', async () => {
      const li = await t.json(lineItemArgs(camp, 'TWITTER_SEARCH'));
      const r = await t.fails(1, xctl`ads line-items update ${li.id} --entity-status ACTIVE`);
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
      const c = await createCampaign(t, 'Apps');
      const li = await t.json(
        xctl`ads line-items create --campaign-id ${c} --objective APP_INSTALLS --product-type PROMOTED_TWEETS
          --placements ALL_ON_TWITTER --ios-app-store-identifier 333903271`,
      );
      expect(li).toMatchObject({
        goal: 'APP_INSTALLS',
        pay_by: 'IMPRESSION',
        bid_strategy: 'AUTO',
        bid_amount_local_micro: null,
      });
      const tcs = [...t.collection('targeting_criteria').values()].filter((x) => x.line_item_id === li.id);
      expect(tcs).toEqual([expect.objectContaining({ targeting_type: 'PLATFORM', targeting_value: '0' })]);
    });

    it('batch: create, update and delete all or nothing; placements as an array', async () => {
      const created = await t.list(
        xctl`ads line-items batch --file -`,
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
        xctl`ads line-items batch --file -`,
        JSON.stringify([
          { operation_type: 'Update', params: { line_item_id: created[0].id, name: 'renamed' } },
          { operation_type: 'Delete', params: { line_item_id: 'nosuch' } },
        ]),
      );
      expect(r.stderr).toMatch(/item 2: LINE_ITEM_NOT_FOUND/);
      expect(t.collection('line_items').size).toBe(before);
      expect((await t.json(xctl`ads line-items get ${created[0].id}`)).name).toBe('b1');
      const ok = await t.list(
        xctl`ads line-items batch --file -`,
        JSON.stringify([
          { operation_type: 'Update', params: { line_item_id: created[0].id, name: 'renamed' } },
          { operation_type: 'Delete', params: { line_item_id: created[1].id } },
        ]),
      );
      expect(ok.map((x) => [x.name, x.deleted])).toEqual([
        ['renamed', false],
        ['b2', true],
      ]);
    });

    it('DRAFT line items are listed only with --with-draft', async () => {
      const d = await t.json([...engage(), '--entity-status', 'DRAFT', '--name', 'Drafty']);
      expect((await t.list(xctl`ads line-items list --q drafty`)).map((x) => x.id)).toEqual([]);
      expect((await t.list(xctl`ads line-items list --q drafty --with-draft`)).map((x) => x.id)).toEqual([d.id]);
    });

    it('promoted posts, accounts, media creatives and tracking tags attach to user-made line items', async () => {
      const li = await t.json([...engage(), '--name', 'Attach']);
      const pt = await t.json(xctl`ads promoted-tweets create --line-item-id ${li.id} --tweet-ids 1440000000000000003`);
      expect(pt[0]).toMatchObject({ line_item_id: li.id, tweet_id: '1440000000000000003' });
      const media = [...t.collection('account_media').values()][0]!.id;
      expect(
        await t.json(xctl`ads media-creatives create --line-item-id ${li.id} --account-media-id ${media}`),
      ).toMatchObject({ campaign_id: camp });
      expect(
        await t.json(
          xctl`ads tracking-tags create --line-item-id ${li.id} --tracking-tag-type CLICK_TRACKER --tracking-tag-url
            https://t.example/c`,
        ),
      ).toMatchObject({ line_item_id: li.id });
      const c = await createCampaign(t, 'PA');
      const pa = await t.json(
        xctl`ads line-items create --campaign-id ${c} --objective FOLLOWERS --product-type PROMOTED_ACCOUNT
          --placements TWITTER_TIMELINE`,
      );
      expect(
        await t.json(xctl`ads promoted-accounts create --line-item-id ${pa.id} --user-id ${t.sb.seed.user_id}`),
      ).toMatchObject({ line_item_id: pa.id });
      const wrong = await t.fails(
        1,
        xctl`ads promoted-accounts create --line-item-id ${li.id} --user-id ${t.sb.seed.user_id}`,
      );
      expect(wrong.stderr).toMatch(/INCOMPATIBLE_LINE_ITEM/);
    });
  });
});

// Targeting criteria and their lookups through the real CLI against the sandbox: every verb,
// values validated against the lookup data, the per-line-item rules, batches all or nothing.
describe('targeting', () => {
  let li: string;
  let camp: string;
  beforeAll(async () => {
    ({
      campaign: camp,
      lineItems: [li = ''],
    } = await sharedCampaign());
  });

  const add = (type: string, value: string, ...more: string[]) =>
    xctl`ads targeting add --line-item-id ${li} --targeting-type ${type} --targeting-value ${value} ${more}`;

  describe('targeting options', () => {
    it('locations by q, type and country; languages; interests; platforms; devices; tv shows of a market', async () => {
      // Independent lookups run at once: each is a whole CLI process.
      const [la, countries, gb, en, tech, platforms, ios, bake, events, sports, ops, markets, page] = await Promise.all(
        [
          t.list(xctl`ads targeting-options locations --q ${'los angeles'}`),
          t.list(xctl`ads targeting-options locations --location-type COUNTRIES`),
          t.list(xctl`ads targeting-options locations --country-code GB`),
          t.list(xctl`ads targeting-options languages --q engl`),
          t.list(xctl`ads targeting-options interests --q technology`),
          t.list(xctl`ads targeting-options platforms`),
          t.list(xctl`ads targeting-options devices --os-type iOS`),
          t.list(xctl`ads targeting-options tv-shows --locale en-GB`),
          t.list(xctl`ads targeting-options events --event-types SPORTS,CONFERENCE --start-time 2026-01-01T00:00:00Z`),
          t.list(xctl`ads targeting-options conversations --conversation-type SPORTS`),
          t.list(xctl`ads targeting-options network-operators --country-code GB`),
          t.list(xctl`ads targeting-options tv-markets`),
          t.run(xctl`ads targeting-options interests --count 5 --all -o jsonl`),
        ],
      );
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

    it('a locale that is no TV market is refused by the sandbox', async () => {
      expect((await t.fails(1, xctl`ads targeting-options tv-shows --locale fr-FR`)).stderr).toMatch(/not a TV market/);
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
      expect((await t.list(xctl`ads targeting list --line-item-ids ${li}`)).map((x) => x.id)).toEqual([
        loc.id,
        kw.id,
        neg.id,
        expect.any(String),
      ]);
      expect(await t.json(xctl`ads targeting get ${kw.id}`)).toMatchObject({ id: kw.id });
      // The same criterion again is the existing one.
      expect((await t.json(add('BROAD_KEYWORD', 'technology'))).id).toBe(kw.id);
      expect((await t.json(xctl`ads targeting delete ${neg.id} --yes`)).deleted).toBe(true);
      expect((await t.fails(1, xctl`ads targeting delete ${neg.id} --yes`)).stderr).toMatch(
        /HTTP 404, code TARGETING_CRITERION_NOT_FOUND/,
      );
      // With a keyword the search placement may go ACTIVE.
      expect((await t.json(xctl`ads line-items update ${li} --entity-status ACTIVE`)).entity_status).toBe('ACTIVE');
    });

    it('values outside the lookup data and the per-line-item rules are refused by the sandbox', async () => {
      expect((await t.fails(1, add('LOCATION', 'ffffffffffffffff'))).stderr).toMatch(
        /not a LOCATION of the lookup data.*INVALID_PARAMETER/s,
      );
      expect((await t.fails(1, add('INTEREST', '99999'))).stderr).toMatch(/not a INTEREST of the lookup data/);
      expect(
        (await t.fails(1, xctl`ads targeting add --line-item-id nosuch --targeting-type GENDER --targeting-value 1`))
          .stderr,
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

    it('NETWORK_ACTIVATION_DURATION with GTE is named from the lookup data', async () => {
      expect(await t.json(add('NETWORK_ACTIVATION_DURATION', '6', '--operator-type', 'GTE'))).toMatchObject({
        name: 'At least 6 months',
      });
    });

    it('batch: Create and Delete all or nothing; 500 items at most', async () => {
      const [a] = await t.list(
        xctl`ads targeting batch --file -`,
        JSON.stringify([
          { operation_type: 'Create', params: { line_item_id: li, targeting_type: 'LANGUAGE', targeting_value: 'en' } },
        ]),
      );
      const before = t.collection('targeting_criteria').size;
      const r = await t.fails(
        1,
        xctl`ads targeting batch --file -`,
        JSON.stringify([
          { operation_type: 'Delete', params: { targeting_criterion_id: a.id } },
          { operation_type: 'Create', params: { line_item_id: li, targeting_type: 'LANGUAGE', targeting_value: 'xx' } },
        ]),
      );
      expect(r.stderr).toMatch(/item 2: INVALID_PARAMETER/);
      expect(t.collection('targeting_criteria').size).toBe(before);
      expect((await t.json(xctl`ads targeting get ${a.id}`)).deleted).toBe(false);
      const ok = await t.list(
        xctl`ads targeting batch --file -`,
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
    });
  });
});

// Creatives through the real CLI against the sandbox: every resource and verb, hard and soft
// deletes, the media library checks, and refused input that sends nothing. The time-driven
// lifecycles (scheduled posts, polls) are in ads-creatives-lifecycle.test.ts.
describe('creatives', () => {
  /** A card as `xctl ads cards|polls ... create` prints it. */
  interface Card extends Row {
    card_uri: string;
  }

  let dir: string;
  let owner: string;
  beforeAll(async () => {
    dir = tempDir('xctl-creatives-');
    owner = t.sb.seed.user_id;
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const WIDE = '3_1000000000000000011';
  const SQUARE = '3_1000000000000000012';
  const GIF = '16_1000000000000000013';
  const VIDEO = '13_1000000000000000014';

  function file(name: string, body: unknown): string {
    const f = path.join(dir, name);
    fs.writeFileSync(f, JSON.stringify(body));
    return f;
  }

  const website = (title = 'Shop now') => ({
    type: 'DETAILS',
    title,
    destination: { type: 'WEBSITE', url: 'https://example.com/shop' },
  });
  const appButton = {
    type: 'BUTTON',
    label: { type: 'ENUM', value: 'INSTALL' },
    destination: {
      type: 'APP',
      country_code: 'US',
      googleplay_app_id: 'com.example.app',
      googleplay_deep_link: 'example://home',
    },
  };

  describe('account media', () => {
    it('lists by creative type, gets, deletes softly (with_deleted shows it)', async () => {
      const all = await t.list(xctl`ads account-media list`);
      expect(all.map((m) => m.creative_type).sort()).toEqual(['BANNER', 'PREROLL']);
      const pre = await t.list(xctl`ads account-media list --creative-types PREROLL,VAST_PREROLL`);
      expect(pre).toHaveLength(1);
      expect(pre[0]).toMatchObject({ creative_type: 'PREROLL', video_id: VIDEO });
      expect((await t.json(xctl`ads account-media get ${pre[0].id}`)).id).toBe(pre[0].id);
      expect((await t.json(xctl`ads account-media delete ${pre[0].id} --yes`)).deleted).toBe(true);
      await t.fails(1, xctl`ads account-media get ${pre[0].id}`);
      expect((await t.json(xctl`ads account-media get ${pre[0].id} --with-deleted`)).deleted).toBe(true);
      expect(await t.json(xctl`ads account-media list --creative-types PREROLL`)).toEqual([]);
    });
  });

  describe('media library', () => {
    it('lists the seeded objects, filters by type, adds, updates, deletes softly', async () => {
      const lib = await t.list(xctl`ads media-library list`);
      expect(lib.map((m) => m.media_key)).toEqual(expect.arrayContaining([WIDE, SQUARE, GIF, VIDEO]));
      expect(lib[0].id).toBeUndefined();
      expect((await t.list(xctl`ads media-library list --media-type VIDEO`)).map((m) => m.media_key)).toEqual([VIDEO]);
      expect(await t.json(xctl`ads media-library get ${VIDEO}`)).toMatchObject({
        media_key: VIDEO,
        media_type: 'VIDEO',
        aspect_ratio: '16:9',
        media_status: 'TRANSCODE_COMPLETED',
      });

      // A key comes from an upload; an unknown one is MEDIA_NOT_FOUND.
      expect((await t.fails(1, xctl`ads media-library add --media-key 7_555`)).stderr).toMatch(
        /HTTP 404, code MEDIA_NOT_FOUND/,
      );
      const clip = path.join(dir, 'clip.mp4');
      fs.writeFileSync(
        clip,
        Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(2000, 7)]),
      );
      const upload = t.run(['media', 'upload', clip, '--category', 'tweet_video', '--json']);
      const up = JSON.parse((await withClockMoving(upload)).stdout) as Row;
      const key = up.media_key as string;
      expect(key).toMatch(/^7_\d{19}$/);
      const added = await t.json(
        xctl`ads media-library add --media-key ${key} --name Clip --title ${'A clip'} --poster-media-key ${WIDE}`,
      );
      expect(added).toMatchObject({
        media_key: key,
        media_type: 'VIDEO',
        media_category: 'TWEET_VIDEO',
        name: 'Clip',
        title: 'A clip',
        poster_media_key: WIDE,
        tweeted: false,
        media_status: 'TRANSCODE_COMPLETED',
      });
      // Adding it again answers with the object already there.
      expect(await t.json(xctl`ads media-library add --media-key ${key}`)).toMatchObject({
        media_key: key,
        name: 'Clip',
      });
      const upd = await t.json(
        xctl`ads media-library update ${key} --description ${'d'.repeat(200)} --file-name ${'f'.repeat(255)}`,
      );
      expect(upd.description).toHaveLength(200);
      // Videos only: the sandbox knows what the key is; the CLI cannot from a positional.
      const r = await t.fails(1, xctl`ads media-library update ${SQUARE} --title x`);
      expect(r.stderr).toMatch(/title applies to videos only/);
      expect((await t.json(xctl`ads media-library delete ${key} --yes`)).deleted).toBe(true);
      await t.fails(1, xctl`ads media-library get ${key}`);
      expect((await t.json(xctl`ads media-library get ${key} --with-deleted`)).deleted).toBe(true);
    });
  });

  describe('cards', () => {
    it('create from --file (components and slides), list filters, get, update, delete; legacy lookup', async () => {
      const web = await t.json<Card>(
        xctl`ads cards create --file
          ${file('web.json', { name: 'Website card', components: [{ type: 'MEDIA', media_key: WIDE }, website()] })}`,
      );
      expect(web).toMatchObject({
        name: 'Website card',
        card_type: 'IMAGE_WEBSITE',
        card_uri: `card://${web.id}`,
        deleted: false,
      });
      const app = await t.json<Card>(
        xctl`ads cards create --file -`,
        JSON.stringify({
          name: 'App carousel',
          components: [{ type: 'SWIPEABLE_MEDIA', media_keys: [WIDE, VIDEO] }, appButton],
        }),
      );
      expect(app.card_type).toBe('MIXED_MEDIA_SINGLE_DEST_CAROUSEL_APP');
      const multi = await t.json(
        xctl`ads cards create --file
          ${file('multi.json', {
            name: 'Multi',
            slides: [
              [{ type: 'MEDIA', media_key: VIDEO }, website('a')],
              [{ type: 'MEDIA', media_key: VIDEO }, website('b')],
            ],
          })}`,
      );
      expect(multi.card_type).toBe('VIDEO_MULTI_DEST_CAROUSEL_WEBSITE');

      expect((await t.list(xctl`ads cards list --card-types IMAGE_WEBSITE`)).map((c) => c.id)).toEqual([web.id]);
      expect((await t.list(xctl`ads cards list --card-id ${[app.id, multi.id].join(',')}`)).map((c) => c.id)).toEqual([
        app.id,
        multi.id,
      ]);
      expect(
        (await t.list(xctl`ads cards list --card-uris ${web.card_uri} --include-legacy-cards`)).map((c) => c.id),
      ).toEqual([web.id]);
      expect((await t.list(xctl`ads cards list --q app`)).map((c) => c.id)).toEqual([app.id]);
      expect((await t.json(xctl`ads cards get ${multi.id}`)).slides).toHaveLength(2);

      const upd = await t.json(
        xctl`ads cards update ${web.id} --file
          ${file('upd.json', { name: 'Video website', components: [{ type: 'MEDIA', media_key: VIDEO }, website()] })}`,
      );
      expect(upd).toMatchObject({ name: 'Video website', card_type: 'VIDEO_WEBSITE' });

      const legacy = await t.json(xctl`ads cards all --card-uris ${`${web.card_uri},${app.card_uri},card://nope`}`);
      expect(legacy).toHaveLength(2);
      expect(legacy[0]).toMatchObject({
        card_type: 'VIDEO_WEBSITE',
        website_url: 'https://example.com/shop',
        video_width: '1280',
        video_height: '720',
        video_content_id: VIDEO,
      });
      expect(legacy[1]).toMatchObject({
        card_type: 'IMAGE_APP_DOWNLOAD',
        country_code: 'US',
        googleplay_app_id: 'com.example.app',
        app_cta: 'INSTALL',
      });
      expect((await t.json(xctl`ads cards all-get ${app.id}`)).app_cta).toBe('INSTALL');

      expect((await t.json(xctl`ads cards delete ${app.id} --yes`)).deleted).toBe(true);
      await t.fails(1, xctl`ads cards get ${app.id}`);
      expect((await t.json(xctl`ads cards get ${app.id} --with-deleted`)).deleted).toBe(true);
      expect(await t.json(xctl`ads cards all --card-uris ${app.card_uri}`)).toEqual([]);
      expect(await t.json(xctl`ads cards all --card-uris ${app.card_uri} --with-deleted`)).toHaveLength(1);
    });

    it('checks the media against the library (unknown key, GIF)', async () => {
      const r = await t.fails(
        1,
        xctl`ads cards create --file
          ${file('gif.json', { name: 'g', components: [{ type: 'MEDIA', media_key: GIF }, website()] })}`,
      );
      expect(r.stderr).toMatch(/animated GIF/);
      const r2 = await t.fails(
        1,
        xctl`ads cards create --file
          ${file('unk.json', { name: 'u', components: [{ type: 'MEDIA', media_key: '3_42' }, website()] })}`,
      );
      expect(r2.stderr).toMatch(/not in the media library/);
    });
  });

  describe('draft posts', () => {
    it('create, get, list (default user), update; card_uri removed by an empty value; previews', async () => {
      const card = await t.json<Card>(
        xctl`ads cards create --file
          ${file('dcard.json', { name: 'Draft card', components: [{ type: 'MEDIA', media_key: WIDE }, website()] })}`,
      );
      const d = await t.json(
        xctl`ads drafts create --as-user-id ${owner} --text ${'Hello <world>'} --card-uri ${card.card_uri}
          --media-keys ${[WIDE, SQUARE].join(',')} --name ${'First draft'}`,
      );
      expect(d).toMatchObject({
        text: 'Hello <world>',
        user_id: owner,
        nullcast: true,
        card_uri: card.card_uri,
        media_keys: [WIDE, SQUARE],
        name: 'First draft',
      });
      expect(d.id).toMatch(/^\d{15,19}$/);
      expect((await t.json(xctl`ads drafts get ${d.id}`)).text).toBe('Hello <world>');
      expect((await t.list(xctl`ads drafts list`)).map((x) => x.id)).toContain(d.id);
      expect(await t.json(xctl`ads drafts list --user-id 783214`)).toEqual([]);
      const upd = await t.json(xctl`ads drafts update ${d.id} --card-uri ${''} --text Changed`);
      expect(upd).toMatchObject({ card_uri: null, text: 'Changed', media_keys: [WIDE, SQUARE] });

      const pv = await t.list(xctl`ads previews list --tweet-ids ${`${d.id},123`} --tweet-type DRAFT`);
      expect(pv).toHaveLength(1);
      expect(pv[0].tweet_id).toBe(d.id);
      expect(pv[0].preview).toMatch(/^<iframe /);
      expect(await t.json(xctl`ads previews list --tweet-ids ${d.id} --tweet-type SCHEDULED`)).toEqual([]);
    });

    it('checks attachments against the library and the card against the account', async () => {
      const r = await t.fails(1, xctl`ads drafts create --as-user-id ${owner} --media-keys 3_404`);
      expect(r.stderr).toMatch(/not in the media library/);
      const r2 = await t.fails(1, xctl`ads drafts create --as-user-id ${owner} --text x --card-uri card://nope`);
      expect(r2.stderr).toMatch(/not a card of this account/);
      const r3 = await t.fails(3, xctl`ads drafts create --as-user-id 6253282 --text x`);
      expect(r3.stderr).toMatch(/as_user_id/);
    });
  });

  describe('preroll calls to action', () => {
    it('create on a PREROLL_VIEWS line item, list, get, update, delete softly', async () => {
      const li = t.lineItem('PREROLL_VIEWS');
      const c = await t.json(
        xctl`ads preroll-ctas create --line-item-id ${li} --call-to-action WATCH_NOW --call-to-action-url
          https://example.com/watch`,
      );
      expect(c).toMatchObject({ line_item_id: li, call_to_action: 'WATCH_NOW', deleted: false });
      expect((await t.list(xctl`ads preroll-ctas list --line-item-ids ${li}`)).map((x) => x.id)).toEqual([c.id]);
      expect((await t.json(xctl`ads preroll-ctas update ${c.id} --call-to-action SHOP`)).call_to_action).toBe('SHOP');
      expect((await t.json(xctl`ads preroll-ctas get ${c.id}`)).call_to_action_url).toBe('https://example.com/watch');
      expect((await t.json(xctl`ads preroll-ctas delete ${c.id} --yes`)).deleted).toBe(true);
      expect(
        (await t.list(xctl`ads preroll-ctas list --with-deleted --preroll-call-to-action-ids ${c.id}`))[0].deleted,
      ).toBe(true);
      const r = await t.fails(
        1,
        xctl`ads preroll-ctas create --line-item-id ${t.lineItem('FOLLOWERS')} --call-to-action SHOP
          --call-to-action-url https://e.com`,
      );
      expect(r.stderr).toMatch(/INCOMPATIBLE_LINE_ITEM/);
    });
  });

  describe('video conversation cards', () => {
    const base = [
      '--name',
      'Conv',
      '--first-cta',
      '#Yes',
      '--first-cta-tweet',
      'I say yes',
      '--thank-you-text',
      'Thanks!',
      '--media-key',
      VIDEO,
    ];
    it('create, update (merged rules), delete hard', async () => {
      const c = await t.json(xctl`ads conversation-cards create ${base} --title ${'Pick one'}`);
      expect(c).toMatchObject({
        card_type: 'VIDEO_CONVERSATION',
        card_uri: `card://${c.id}`,
        first_cta: '#Yes',
        title: 'Pick one',
        video_width: '1280',
        video_height: '720',
        video_owner_id: owner,
      });
      expect(c.poster_media_url).toMatch(/^https:/);
      // Every optional field is answered, null until set (thank_you_url as the others).
      expect([c.thank_you_url, c.second_cta, c.fourth_cta_tweet]).toEqual([null, null, null]);
      const upd = await t.json(
        xctl`ads conversation-cards update ${c.id} --second-cta #No --second-cta-tweet ${'I say no'} --thank-you-text
          ${'t'.repeat(23)}`,
      );
      expect(upd).toMatchObject({ second_cta: '#No', second_cta_tweet: 'I say no' });
      expect((await t.list(xctl`ads conversation-cards list`)).map((x) => x.id)).toContain(c.id);
      // The sandbox checks the merged card: a second CTA without its post text is refused.
      const bad = await t.fails(1, xctl`ads conversation-cards update ${c.id} --third-cta #Maybe`);
      expect(bad.stderr).toMatch(/third_cta_tweet/);
      const del = await t.json(xctl`ads conversation-cards delete ${c.id} --yes`);
      expect(del.id).toBe(c.id);
      await t.fails(1, xctl`ads conversation-cards get ${c.id}`);
      const r = await t.fails(1, xctl`ads conversation-cards create ${base.slice(0, -2)} --media-key 7_404 --title t`);
      expect(r.stderr).toMatch(/not in the media library/);
    });

    it('a first CTA of 20 characters after the # is accepted by the sandbox', async () => {
      // 20 characters without the # pass.
      const ok = await t.json(
        xctl`ads conversation-cards create ${base} --title ${'t'.repeat(23)} --first-cta ${'#' + 'a'.repeat(20)}`,
      );
      expect(ok.first_cta).toHaveLength(21);
    });
  });
});

// The time-driven lifecycles of spec section 3 through the real CLI, on the sandbox's manual
// clock: scheduled posts going out (SUCCESS, completed_at, tweet_id) or hard-deleted (DELETED),
// polls closing at end_time and hard-deleted; and their rules refused before sending.
describe('creative lifecycles (scheduled posts, polls)', () => {
  /** A card as `xctl ads cards|polls ... create` prints it. */
  interface Card extends Row {
    card_uri: string;
  }

  let owner: string;
  beforeAll(async () => {
    owner = t.sb.seed.user_id;
  });

  const WIDE = '3_1000000000000000011';
  const SQUARE = '3_1000000000000000012';
  const SMALL = '3_1000000000000000015';
  const VIDEO = '13_1000000000000000014';

  const advance = (by: string) => t.admin('POST', '/_sandbox/clock', { advance: by });
  const sandboxNow = () => t.sb.app.clock.now();
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  /** `xctl ads polls create` with its name, duration and choices (more flags after). */
  const pollArgs = (name: string, minutes: string, choices: string[], ...more: string[]) => [
    ...xctl`ads polls create --name ${name} --duration-in-minutes ${minutes}`,
    ...choices.flatMap((c, i) => [['--first-choice', '--second-choice', '--third-choice'][i]!, c]),
    ...more,
  ];

  describe('scheduled posts (manual clock)', () => {
    it('SCHEDULED -> SUCCESS at scheduled_at with completed_at and tweet_id; seconds ignored; PUBLISHED preview', async () => {
      const at = sandboxNow() + 2 * 3600_000 + 37_000; // 2 h ahead, with seconds
      const s = await t.json(
        xctl`ads scheduled create --as-user-id ${owner} --text ${'Launch day'} --scheduled-at ${iso(at)} --media-keys
          ${VIDEO}`,
      );
      expect(s).toMatchObject({
        scheduled_status: 'SCHEDULED',
        completed_at: null,
        tweet_id: null,
        media_keys: [VIDEO],
      });
      expect(s.scheduled_at).toBe(iso(Math.floor(at / 60_000) * 60_000));
      expect(s.id).toMatch(/^\d{15,19}$/);
      expect((await t.list(xctl`ads previews list --tweet-ids ${s.id} --tweet-type SCHEDULED`))[0].tweet_id).toBe(s.id);
      await advance('1h');
      expect((await t.json(xctl`ads scheduled get ${s.id}`)).scheduled_status).toBe('SCHEDULED');
      await advance('61m'); // scheduled_at lies in the minute after now + 2 h
      const done = await t.json<Row & { tweet_id: string }>(xctl`ads scheduled get ${s.id}`);
      expect(done).toMatchObject({ scheduled_status: 'SUCCESS', completed_at: s.scheduled_at });
      expect(done.tweet_id).toMatch(/^\d+$/);
      expect(
        (await t.list(xctl`ads previews list --tweet-ids ${done.tweet_id} --tweet-type PUBLISHED`))[0].tweet_id,
      ).toBe(done.tweet_id);
      // A post that went out can no longer change or be deleted.
      await t.fails(1, xctl`ads scheduled update ${s.id} --text late`);
    });

    it('update moves scheduled_at and removes media with an empty value; delete is hard and answers DELETED', async () => {
      const s = await t.json(
        xctl`ads scheduled create --as-user-id ${owner} --text Later --scheduled-at ${iso(sandboxNow() + 3600_000)}
          --media-keys ${WIDE}`,
      );
      const moved = await t.json(
        xctl`ads scheduled update ${s.id} --scheduled-at ${iso(sandboxNow() + 5 * 3600_000)} --media-keys ${''} --name
          Moved`,
      );
      expect(moved).toMatchObject({ media_keys: [], name: 'Moved', scheduled_status: 'SCHEDULED' });
      await advance('2h'); // past the old time: still scheduled
      expect((await t.json(xctl`ads scheduled get ${s.id}`)).scheduled_status).toBe('SCHEDULED');
      expect((await t.list(xctl`ads scheduled list`)).map((x) => x.id)).toContain(s.id);
      const del = await t.json(xctl`ads scheduled delete ${s.id} --yes`);
      expect(del).toMatchObject({ id: s.id, scheduled_status: 'DELETED' });
      await t.fails(1, xctl`ads scheduled get ${s.id}`);
      await t.fails(1, xctl`ads scheduled delete ${s.id} --yes`);
      await advance('4h'); // its old job finds nothing
      expect(t.collection('scheduled_tweets').has(s.id)).toBe(false);
    });

    it('a scheduled_at in the past is refused by the sandbox', async () => {
      const past = await t.fails(
        1,
        xctl`ads scheduled create --as-user-id ${owner} --text x --scheduled-at ${iso(sandboxNow() - 60_000)}`,
      );
      expect(past.stderr).toMatch(/must be in the future/);
    });
  });

  describe('poll cards (manual clock)', () => {
    it('create (text, image, video), list, get; closes after duration; delete is hard; no update', async () => {
      const created = sandboxNow();
      const poll = await t.json<Card>(pollArgs('Best color', '30', ['Red', 'Blue'], '--third-choice', 'Green'));
      expect(poll).toMatchObject({
        card_type: 'TEXT_POLLS',
        duration_in_minutes: '30',
        closed: false,
        start_time: iso(created),
        end_time: iso(created + 30 * 60_000),
        card_uri: `card://${poll.id}`,
      });
      // Media polls are a beta: refused until the account has PROMOTED_MEDIA_POLLS (docs/contract.md, ads 4.1).
      const beta = await t.fails(1, pollArgs('Image poll', '5', ['a', 'b'], '--media-key', WIDE));
      expect(beta.stderr).toMatch(/needs the account feature PROMOTED_MEDIA_POLLS/);
      await t.list(xctl`ads accounts add-features --feature-keys PROMOTED_MEDIA_POLLS`);
      const img = await t.json(pollArgs('Image poll', '5', ['a', 'b'], '--media-key', WIDE));
      expect(img).toMatchObject({ card_type: 'IMAGE_POLLS', media_url: expect.stringMatching(/^https:/) });
      expect(img.media_key).toBeUndefined(); // write-only
      const vid = await t.json(pollArgs('Video poll', '10080', ['a', 'b'], '--media-key', VIDEO));
      expect(vid).toMatchObject({ card_type: 'VIDEO_POLLS', video_width: '1280' });
      const small = await t.fails(1, pollArgs('x', '5', ['a', 'b'], '--media-key', SMALL));
      expect(small.stderr).toMatch(/at least 800 px wide with width:height 1.91:1 \(got 600x314\)/);
      await t.fails(1, pollArgs('x', '5', ['a', 'b'], '--media-key', SQUARE));

      expect((await t.list(xctl`ads polls list --q best`)).map((x) => x.id)).toEqual([poll.id]);
      // Poll cards are legacy-style: cards list shows them only with --include-legacy-cards.
      expect(await t.json(xctl`ads cards list --card-uris ${poll.card_uri}`)).toEqual([]);
      expect(
        (await t.list(xctl`ads cards list --card-uris ${poll.card_uri} --include-legacy-cards`)).map((x) => x.id),
      ).toEqual([poll.id]);
      expect((await t.list(xctl`ads polls list --card-ids ${[img.id, vid.id].join(',')}`)).map((x) => x.id)).toEqual([
        img.id,
        vid.id,
      ]);
      await advance('29m');
      expect((await t.json(xctl`ads polls get ${poll.id}`)).closed).toBe(false);
      await advance('1m');
      expect((await t.json(xctl`ads polls get ${poll.id}`)).closed).toBe(true);
      // A poll card can be attached to a draft (its card_uri is a card of the account).
      expect(
        (await t.json(xctl`ads drafts create --as-user-id ${owner} --text Vote! --card-uri ${poll.card_uri}`)).card_uri,
      ).toBe(poll.card_uri);

      const del = await t.json(xctl`ads polls delete ${poll.id} --yes`);
      expect(del.id).toBe(poll.id);
      await t.fails(1, xctl`ads polls get ${poll.id} --with-deleted`);
      const r = await t.run(xctl`ads polls update ${img.id} --name x`);
      expect(r.code).not.toBe(0);
    });
  });
});

// Analytics through the real CLI against a sandbox on a manual clock: line items deliver while
// ACTIVE as the clock moves; a TOTAL equals the sum of its DAYs (and of its HOURs); a stats job
// is polled to completion and its gzipped file read; active entities; refused input.
describe('analytics', () => {
  /** A row of `xctl ads stats` (and of a stats job's file): the entity, its bucket, the metrics. */
  interface StatRow {
    id: string;
    [field: string]: string | number | null | string[];
  }
  /** A stats job as `xctl ads stats job` prints it. */
  interface Job {
    id: number;
    id_str: string;
    status: string;
    url: string | null;
  }
  /** The raw stats reply's data (docs/contract.md, ads 4.5): metrics per id, segment and series. */
  type RawStats = Array<{
    id: string;
    id_data: Array<{ segment: unknown; metrics: Record<string, unknown[] | null> }>;
  }>;

  let li: string;
  let li2: string;
  let camp: string;
  let day0: string; // the account's (America/New_York) date when the test starts
  let day2: string;
  const H = 3600_000;

  function nyHour(ms: number): number {
    return Number(
      new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', hourCycle: 'h23' }).format(
        new Date(ms),
      ),
    );
  }

  function nyDate(ms: number): string {
    return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(ms));
  }

  beforeAll(async () => {
    // Start at 10:17 in the account's time zone, whatever the hour the test runs: the checks below
    // assume a day with delivery left in it after the start, and windows that do not begin on the
    // hour (run just before midnight in New York, day0 had two minutes of delivery).
    const start = t.sb.app.clock.now();
    let next = Math.ceil(start / H) * H;
    for (let i = 0; i < 24 && nyHour(next) !== 10; i++) next += H;
    await t.admin('POST', '/_sandbox/clock', { advance: `${next + 17 * 60_000 - start}ms` });
    const now = t.sb.app.clock.now();
    day0 = nyDate(now);
    day2 = nyDate(Date.parse(`${day0}T12:00:00Z`) + 48 * H);
    // Its own campaign: pacing shares the daily budget among the campaign's ACTIVE line items.
    const delivering = (name: string) => [
      ...['--bid-amount-local-micro', '1500000', '--entity-status', 'ACTIVE', '--name', name],
      ...['--start-time', new Date(now).toISOString().replace(/\.\d+Z$/, 'Z')],
    ];
    ({
      campaign: camp,
      lineItems: [li = '', li2 = ''],
    } = await campaignWithLineItems(t, {
      name: 'Stats',
      dailyBudgetMicro: '90000000',
      lineItems: [delivering('Delivers'), delivering('Also delivers')],
    }));
    await t.admin('POST', '/_sandbox/clock', { advance: '50h' });
  });

  const sum = (rows: StatRow[], k: string) => rows.reduce((s, r) => s + Number(r[k] ?? 0), 0);
  /** `xctl ads stats` of line items over day0..day2 (more flags after). */
  const statsArgs = (ids: string, ...more: string[]) => [
    ...xctl`ads stats --entity LINE_ITEM --ids ${ids} --start ${day0} --end ${day2}`,
    ...more,
  ];
  /** `xctl ads stats job create` of line items over day0..day2 (more flags after). */
  const jobArgs = (ids: string, ...more: string[]) => xctl`ads stats job create ${statsArgs(ids, ...more).slice(2)}`;
  const q = (...more: string[]) => statsArgs(`${li},${li2}`, ...more);

  describe('synchronous stats', () => {
    it('one row per entity and day; the same query gives the same numbers; TOTAL equals the sum of DAY', async () => {
      const [days, again, total] = await Promise.all([
        t.list<StatRow>(q()),
        t.list<StatRow>(q()),
        t.list<StatRow>(q('--granularity', 'TOTAL')),
      ]);
      expect(days).toHaveLength(4);
      expect(days.map((r) => r.id)).toEqual([li, li, li2, li2]);
      expect(days[0]).toMatchObject({ start: expect.stringMatching(/T0[45]:00:00Z$/), currency: 'USD' });
      expect(again).toEqual(days);
      expect(total).toHaveLength(2);
      for (const id of [li, li2]) {
        const d = days.filter((r) => r.id === id);
        const tot = total.find((r) => r.id === id)!;
        expect(sum(d, 'impressions')).toBeGreaterThan(1000);
        // Paced: no day spends more than the line item's share of the campaign's daily budget ($90 / 2).
        for (const r of d) expect(r.billed_charge_local_micro).toBeLessThanOrEqual(45_000_000);
        expect(d[0]!.billed_charge_local_micro).toBeGreaterThan(40_000_000);
        for (const k of [
          'impressions',
          'engagements',
          'clicks',
          'likes',
          'billed_engagements',
          'billed_charge_local_micro',
        ])
          expect(tot[k], k).toBe(sum(d, k));
      }
      // A line item's numbers are its own.
      expect(total[0]!.impressions).not.toBe(total[1]!.impressions);
    });

    it('HOUR adds up to TOTAL too; CAMPAIGN is the sum of its line items', async () => {
      const end = nyDate(Date.parse(`${day0}T12:00:00Z`) + 24 * H);
      const [hours, total, campaign] = await Promise.all([
        t.list<StatRow>(xctl`ads stats --entity LINE_ITEM --ids ${li} --start ${day0} --end ${end} --granularity HOUR`),
        t.list<StatRow>(
          xctl`ads stats --entity LINE_ITEM --ids ${[li, li2].join(',')} --start ${day0} --end ${end} --granularity
            TOTAL`,
        ),
        t.list<StatRow>(
          xctl`ads stats --entity CAMPAIGN --ids ${camp} --start ${day0} --end ${end} --granularity TOTAL`,
        ),
      ]);
      expect(hours.length).toBeGreaterThanOrEqual(23);
      expect(sum(hours, 'impressions')).toBe(total[0]!.impressions);
      expect(campaign[0]!.impressions).toBe(sum(total, 'impressions'));
    });

    it('a paused line item stops delivering', async () => {
      await t.json(xctl`ads line-items update ${li2} --entity-status PAUSED`);
      const from = Math.ceil(t.sb.app.clock.now() / H) * H;
      await t.admin('POST', '/_sandbox/clock', { advance: '24h' });
      const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
      const r = await t.list<StatRow>(
        xctl`ads stats --entity LINE_ITEM --ids ${[li, li2].join(',')} --start ${iso(from)} --end
          ${iso(from + 20 * H)} --granularity TOTAL`,
      );
      expect(r[0]!.impressions).toBeGreaterThan(0);
      expect(r[1]!.impressions).toBeNull(); // no data in the range: null, as the service says
      // A paused campaign stops its line items too, until it is active again (a budget big enough
      // that pacing does not stop them first).
      await t.json(
        xctl`ads campaigns update ${camp} --entity-status PAUSED --daily-budget-amount-local-micro 90000000000`,
      );
      const paused = Math.ceil(t.sb.app.clock.now() / H) * H;
      await t.admin('POST', '/_sandbox/clock', { advance: '3h' });
      await t.json(xctl`ads campaigns update ${camp} --entity-status ACTIVE`);
      await t.admin('POST', '/_sandbox/clock', { advance: '3h' });
      const hours = await t.list<StatRow>(
        xctl`ads stats --entity LINE_ITEM --ids ${li} --start ${iso(paused)} --end ${iso(paused + 5 * H)}
          --granularity HOUR`,
      );
      expect(hours.map((x) => Number(x.impressions) > 0)).toEqual([false, false, true, true, true]);
    });

    it('the raw response: one data item per id, every metric of each group, arrays of time_series_length', async () => {
      const raw = await t.signed<AdsReply<RawStats>>(
        'GET',
        `/12/stats/accounts/${t.sb.seed.account_id}?entity=LINE_ITEM&entity_ids=${li}&start_time=${day0}&end_time=${day2}&granularity=DAY&metric_groups=ENGAGEMENT,VIDEO,WEB_CONVERSION&placement=ALL_ON_TWITTER`,
      );
      expect(raw.status).toBe(200);
      expect(raw.body).toMatchObject({ data_type: 'stats', time_series_length: 2 });
      const m = raw.body.data[0]!.id_data[0]!.metrics;
      expect(raw.body.data[0]!.id_data[0]!.segment).toBeNull();
      expect(m.impressions).toHaveLength(2);
      expect(m.video_total_views).toBeNull(); // not a video line item
      expect(m.conversion_purchases).toBeNull();
      expect(Object.keys(m)).toContain('carousel_swipes');
    });

    it('the sandbox judges what needs the account: its midnight for DAY, its line items', async () => {
      // 7 days exactly is fine; DAY needs the account's midnight (the sandbox knows its timezone).
      const r = await t.fails(
        1,
        xctl`ads stats --entity LINE_ITEM --ids ${li} --start ${`${day0}T00:00:00Z`} --end ${`${day2}T00:00:00Z`}`,
      );
      expect(r.stderr).toMatch(/start_time must be midnight in the account timezone \(America\/New_York/);
      expect(
        (await t.fails(1, xctl`ads stats --entity LINE_ITEM --ids nosuch --start ${day0} --end ${day2}`)).stderr,
      ).toMatch(/HTTP 404/);
    });

    it('active entities: the line items that delivered in the window', async () => {
      const start = new Date(Math.floor(t.sb.app.clock.now() / H) * H - 30 * H).toISOString().replace(/\.\d+Z$/, 'Z');
      const end = new Date(Math.floor(t.sb.app.clock.now() / H) * H).toISOString().replace(/\.\d+Z$/, 'Z');
      const rows = await t.list(
        xctl`ads stats active-entities --entity LINE_ITEM --start-time ${start} --end-time ${end} --line-item-ids
          ${[li, li2].join(',')}`,
      );
      expect(rows.map((r) => r.entity_id).sort()).toEqual([li, li2].sort());
      expect(rows[0]).toMatchObject({
        activity_start_time: expect.any(String),
        activity_end_time: expect.any(String),
        placements: ['ALL_ON_TWITTER'],
      });
    });
  });

  describe('stats jobs', () => {
    it('create, wait (polling while the clock moves), download the gzipped file: the same numbers as the sync TOTAL', async () => {
      const job = await t.json<Job>(jobArgs(`${li},${li2}`, '--granularity', 'TOTAL'));
      expect(job).toMatchObject({ status: 'QUEUED', url: null, entity: 'LINE_ITEM', granularity: 'TOTAL' });
      expect(job.id_str).toMatch(/^\d{19}$/);
      expect(String(job.id)).not.toBe(job.id_str); // JSON.parse (this test's) rounds the number...
      const polls = () => t.requests.filter((l) => l.startsWith('GET /12/stats/jobs/accounts/')).length;
      const before = polls();
      const waiting = runCli(xctl`ads stats job wait ${job.id_str} --json`, { env: t.env });
      // The clock moves only once `wait` has seen the job unfinished (however slow the machine).
      for (let i = 0; i < 600 && polls() === before; i++) await new Promise((r) => setTimeout(r, 50));
      await t.admin('POST', '/_sandbox/clock', { advance: '5s' });
      const done = await waiting;
      expect(done.code, done.stderr).toBe(0);
      expect(done.stderr).toMatch(/QUEUED; checking again in 1\.0 s/);
      const finished = JSON.parse(done.stdout) as Job;
      expect(finished).toMatchObject({
        status: 'SUCCESS',
        url: expect.stringMatching(/\/_sandbox\/files\/stats_job_\d+_[0-9a-f]{32}\.json\.gz$/),
      });
      // Its name cannot be guessed from the job's id (another local user could otherwise read it).
      expect((await fetch(finished.url!.replace(/_[0-9a-f]{32}\.json\.gz$/, '.json.gz'))).status).toBe(404);
      const [rows, sync, got, listed] = await Promise.all([
        t.list<StatRow>(xctl`ads stats job download ${job.id_str}`),
        t.list<StatRow>(q('--granularity', 'TOTAL')),
        t.json<Job>(xctl`ads stats job get ${job.id_str}`),
        t.list<Job>(xctl`ads stats job list`),
      ]);
      expect(rows.map((r) => [r.id, r.impressions, r.billed_charge_local_micro])).toEqual(
        sync.map((r) => [r.id, r.impressions, r.billed_charge_local_micro]),
      );
      expect(got.status).toBe('SUCCESS');
      expect(listed[0]!.id_str).toBe(job.id_str); // newest first
      // The file as written: gzip of the synchronous schema.
      const res = await fetch(finished.url!);
      expect(res.headers.get('content-type')).toBe('application/gzip');
      const { gunzipSync } = await import('node:zlib');
      expect(JSON.parse(gunzipSync(Buffer.from(await res.arrayBuffer())).toString())).toMatchObject({
        data_type: 'stats',
        time_series_length: 1,
      });
      // 48 hours later the file is gone.
      await t.admin('POST', '/_sandbox/clock', { advance: '49h' });
      expect((await t.fails(1, xctl`ads stats job download ${job.id_str}`)).stderr).toMatch(/expired/);
    });

    it('64-bit ids keep every digit: `create --fields id -o tsv` then `wait` with what it printed', async () => {
      const args = jobArgs(li, '--granularity', 'TOTAL');
      const tsv = await t.run([...args, '--fields', 'id', '-o', 'tsv']);
      expect(tsv.code, tsv.stderr).toBe(0);
      const id = tsv.stdout.trim();
      expect(id).toMatch(/^\d{19}$/);
      // -o jsonl and --jq print the digits received: test/unit/verbs/ads.test.ts (job get).
      const polls = () => t.requests.filter((l) => l.startsWith('GET /12/stats/jobs/accounts/')).length;
      const before = polls();
      const waiting = runCli(xctl`ads stats job wait ${id} --fields id,status -o tsv`, { env: t.env });
      for (let i = 0; i < 600 && polls() === before; i++) await new Promise((r) => setTimeout(r, 50));
      await t.admin('POST', '/_sandbox/clock', { advance: '5s' });
      const done = await waiting;
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toBe(`${id}\tSUCCESS\n`);
    });

    it('segmented by GENDER: the segments add up to the total; cancel a queued job once', async () => {
      const seg = await t.json<Job>(jobArgs(li, '--granularity', 'TOTAL', '--segmentation-type', 'GENDER'));
      const other = await t.json<Job>(jobArgs(li));
      expect((await t.json(xctl`ads stats job cancel ${other.id_str}`)).status).toBe('CANCELLED');
      expect((await t.fails(1, xctl`ads stats job cancel ${other.id_str}`)).stderr).toMatch(
        /only QUEUED or PROCESSING jobs can be cancelled/,
      );
      await t.admin('POST', '/_sandbox/clock', { advance: '5s' });
      const [rows, total] = await Promise.all([
        t.list<StatRow>(xctl`ads stats job wait ${seg.id_str} --download`),
        t.list<StatRow>(statsArgs(li, '--granularity', 'TOTAL')),
      ]);
      expect(rows.map((r) => r.segment)).toEqual(['Female', 'Male']);
      expect(sum(rows, 'impressions')).toBe(total[0]!.impressions);
      expect((await t.fails(1, xctl`ads stats job wait ${other.id_str}`)).stderr).toMatch(/ended CANCELLED/);
    });

    it('a job of 90 days exactly is accepted', async () => {
      const base = xctl`ads stats job create --entity LINE_ITEM --ids ${li}`;
      // 90 days exactly is accepted.
      expect((await t.json([...base, '--start', '2026-01-01', '--end', '2026-04-01'])).status).toBe('QUEUED');
    });
  });
});
