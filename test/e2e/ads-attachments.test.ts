// Line-item attachments through the real CLI against the sandbox (manual clock): promoted
// accounts and posts, scheduled promoted posts, media creatives, tracking tags, curated
// categories, promotable users and targeting criteria, with the state rules of spec 3 and 7.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox, type Row } from '../helpers/ads.js';

let t: AdsSandbox;
let web: string;
let followers: string;
let preroll: string;
beforeAll(async () => {
  t = await startAdsSandbox({ clock: 'manual' });
  web = t.lineItem('WEBSITE_CLICKS');
  followers = t.lineItem('FOLLOWERS');
  preroll = t.lineItem('PREROLL_VIEWS');
});
afterAll(() => t.close());

describe('promoted accounts', () => {
  it('only on a PROMOTED_ACCOUNT line item; already promoted is ignored; delete disassociates', async () => {
    const bad = await t.fails(1, ['ads', 'promoted-accounts', 'create', '--line-item-id', web, '--user-id', '783214']);
    expect(bad.stderr).toMatch(/HTTP 400, code INCOMPATIBLE_LINE_ITEM, parameter line_item_id/);
    const pa = await t.json(['ads', 'promoted-accounts', 'create', '--line-item-id', followers, '--user-id', '783214']);
    expect(pa).toMatchObject({ line_item_id: followers, user_id: '783214', deleted: false });
    const again = await t.json([
      'ads',
      'promoted-accounts',
      'create',
      '--line-item-id',
      followers,
      '--user-id',
      '783214',
    ]);
    expect(again.id).toBe(pa.id);
    expect(await t.json(['ads', 'promoted-accounts', 'list'])).toHaveLength(1);
    const inel = await t.fails(1, [
      'ads',
      'promoted-accounts',
      'create',
      '--line-item-id',
      followers,
      '--user-id',
      '999',
    ]);
    expect(inel.stderr).toMatch(/not eligible/);
    expect(await t.json(['ads', 'promoted-accounts', 'list'])).toHaveLength(1);
    expect(
      (await t.list(['ads', 'promoted-accounts', 'list', '--line-item-ids', `${followers},${web}`])).map((x) => x.id),
    ).toEqual([pa.id]);
    const none = await t.fails(1, ['ads', 'promoted-accounts', 'list', '--line-item-ids', web]);
    expect(none.stderr).toMatch(/INCOMPATIBLE_LINE_ITEM/);
    expect((await t.json(['ads', 'promoted-accounts', 'get', pa.id])).user_id).toBe('783214');
    expect((await t.json(['ads', 'promoted-accounts', 'delete', pa.id, '--yes'])).deleted).toBe(true);
    expect(await t.json(['ads', 'promoted-accounts', 'list'])).toHaveLength(0);
    await t.refused(['ads', 'promoted-accounts', 'create', '--line-item-id', followers, '--user-id', '@alice']);
  });
});

describe('promoted tweets', () => {
  it('up to 50 posts per request; list, get, delete by record id; hidden with a deleted line item', async () => {
    // the sandbox's seeded posts: 1440000000000000001 to ...060
    const ids = Array.from({ length: 50 }, (_, i) => String(1440000000000000001n + BigInt(i))).join(',');
    const made = await t.list(['ads', 'promoted-tweets', 'create', '--line-item-id', web, '--tweet-ids', ids]);
    expect(made).toHaveLength(50);
    expect(made[0]).toMatchObject({
      line_item_id: web,
      tweet_id: '1440000000000000001',
      entity_status: 'ACTIVE',
    });
    const r = await t.refused([
      'ads',
      'promoted-tweets',
      'create',
      '--line-item-id',
      web,
      '--tweet-ids',
      `${ids},2000`,
    ]);
    expect(r.stderr).toMatch(/--tweet-ids must list at most 50 entries \(got 51\)/);
    const all = await t.json(['ads', 'promoted-tweets', 'list', '--count', '20', '--all']);
    expect(all).toHaveLength(50);
    const got = await t.json(['ads', 'promoted-tweets', 'get', made[1].id]);
    expect(got.tweet_id).toBe('1440000000000000002');
    expect(await t.json(['ads', 'promoted-tweets', 'delete', made[1].id, '--yes'])).toMatchObject({
      deleted: true,
      entity_status: 'PAUSED',
    });
    expect(await t.json(['ads', 'promoted-tweets', 'list', '--promoted-tweet-ids', made[1].id])).toEqual([]);
    // Spec 3: when the parent line item is deleted the post stays deleted=false, shown only with with_deleted.
    t.collection('line_items').get(web)!.deleted = true;
    expect(await t.json(['ads', 'promoted-tweets', 'list', '--promoted-tweet-ids', made[0].id])).toEqual([]);
    const shown = await t.list([
      'ads',
      'promoted-tweets',
      'list',
      '--promoted-tweet-ids',
      made[0].id,
      '--with-deleted',
    ]);
    expect(shown.map((x) => [x.id, x.deleted])).toEqual([[made[0].id, false]]);
    t.collection('line_items').get(web)!.deleted = false;
  });
});

describe('promoted tweets of posts that do not exist (issue 29 item 8)', () => {
  it('an id that is no post of the sandbox is refused; nothing is promoted', async () => {
    const before = t.collection('promoted_tweets').size;
    const r = await t.run([
      'ads',
      'promoted-tweets',
      'create',
      '--line-item-id',
      web,
      '--tweet-ids',
      '1440000000000000003,9999',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/tweet_ids 9999 was not found: no such post/);
    expect(r.stderr).toMatch(/NOT_FOUND/);
    expect(t.collection('promoted_tweets').size).toBe(before);
  });
  it('a post made with `ads tweets create` can be promoted', async () => {
    const owner = t.sb.seed.user_id;
    const post = await t.json(['ads', 'tweets', 'create', '--as-user-id', owner, '--text', 'hi']);
    const made = await t.list([
      'ads',
      'promoted-tweets',
      'create',
      '--line-item-id',
      web,
      '--tweet-ids',
      String(post.id_str),
    ]);
    expect(made[0]).toMatchObject({ tweet_id: post.id_str });
  });
});

describe('scheduled promoted tweets', () => {
  it('deletable only before the scheduled post goes out', async () => {
    const st = [...t.collection('scheduled_tweets').values()][0]!;
    const a = await t.json([
      'ads',
      'scheduled-promoted-tweets',
      'create',
      '--line-item-id',
      web,
      '--scheduled-tweet-id',
      st.id,
    ]);
    const b = await t.json([
      'ads',
      'scheduled-promoted-tweets',
      'create',
      '--line-item-id',
      followers,
      '--scheduled-tweet-id',
      st.id,
    ]);
    expect(
      (await t.list(['ads', 'scheduled-promoted-tweets', 'list', '--line-item-ids', web])).map((x) => x.id),
    ).toEqual([a.id]);
    expect((await t.json(['ads', 'scheduled-promoted-tweets', 'get', b.id])).scheduled_tweet_id).toBe(st.id);
    await t.json(['ads', 'scheduled-promoted-tweets', 'delete', a.id, '--yes']);
    await t.fails(1, ['ads', 'scheduled-promoted-tweets', 'get', a.id, '--with-deleted']);
    await t.admin('POST', '/_sandbox/clock', { advance: '25h' });
    const late = await t.fails(1, ['ads', 'scheduled-promoted-tweets', 'delete', b.id, '--yes']);
    expect(late.stderr).toMatch(/can only be deleted before/);
    expect((await t.json(['ads', 'scheduled-promoted-tweets', 'get', b.id])).id).toBe(b.id);
    const missing = await t.fails(1, [
      'ads',
      'scheduled-promoted-tweets',
      'create',
      '--line-item-id',
      web,
      '--scheduled-tweet-id',
      '42',
    ]);
    expect(missing.stderr).toMatch(/NOT_FOUND, parameter scheduled_tweet_id/);
  });
});

describe('media creatives', () => {
  it('landing_url is required for WEBSITE_CLICKS line items; list by campaign; delete', async () => {
    const media = [...t.collection('account_media').values()][0]!.id;
    const need = await t.fails(1, [
      'ads',
      'media-creatives',
      'create',
      '--account-media-id',
      media,
      '--line-item-id',
      web,
    ]);
    expect(need.stderr).toMatch(/MISSING_PARAMETER, parameter landing_url/);
    const mc = await t.json<Row & { campaign_id: string }>([
      'ads',
      'media-creatives',
      'create',
      '--account-media-id',
      media,
      '--line-item-id',
      web,
      '--landing-url',
      'https://shop.example/spring',
    ]);
    const other = await t.json([
      'ads',
      'media-creatives',
      'create',
      '--account-media-id',
      media,
      '--line-item-id',
      followers,
    ]);
    expect(mc.campaign_id).toBe(t.collection('line_items').get(web)!.campaign_id);
    expect((await t.json(['ads', 'media-creatives', 'list', '--campaign-id', mc.campaign_id])).length).toBe(2);
    expect((await t.list(['ads', 'media-creatives', 'list', '--line-item-ids', followers])).map((x) => x.id)).toEqual([
      other.id,
    ]);
    expect((await t.json(['ads', 'media-creatives', 'get', mc.id])).landing_url).toBe('https://shop.example/spring');
    expect((await t.json(['ads', 'media-creatives', 'delete', mc.id, '--yes'])).deleted).toBe(true);
    await t.refused([
      'ads',
      'media-creatives',
      'create',
      '--account-media-id',
      media,
      '--line-item-id',
      web,
      '--landing-url',
      'shop.example',
    ]);
  });
});

describe('tracking tags', () => {
  it('create, list, get, update, delete', async () => {
    const tag = await t.json([
      'ads',
      'tracking-tags',
      'create',
      '--line-item-id',
      preroll,
      '--tracking-tag-type',
      'IMPRESSION_TAG',
      '--tracking-tag-url',
      'https://track.example/i',
    ]);
    expect(tag).toMatchObject({ tracking_tag_type: 'IMPRESSION_TAG', line_item_id: preroll });
    expect((await t.list(['ads', 'tracking-tags', 'list', '--line-item-ids', preroll])).map((x) => x.id)).toEqual([
      tag.id,
    ]);
    expect(
      (await t.json(['ads', 'tracking-tags', 'update', tag.id, '--tracking-tag-url', 'https://track.example/v2']))
        .tracking_tag_url,
    ).toBe('https://track.example/v2');
    expect((await t.json(['ads', 'tracking-tags', 'get', tag.id])).tracking_tag_url).toBe('https://track.example/v2');
    expect((await t.json(['ads', 'tracking-tags', 'delete', tag.id, '--yes'])).deleted).toBe(true);
    await t.refused(['ads', 'tracking-tags', 'update', tag.id]);
    await t.refused([
      'ads',
      'tracking-tags',
      'create',
      '--line-item-id',
      preroll,
      '--tracking-tag-type',
      'PIXEL',
      '--tracking-tag-url',
      'https://t.example',
    ]);
  });
});

describe('line item curated categories', () => {
  it('create, update, delete; unknown categories are 404', async () => {
    const c = await t.json([
      'ads',
      'line-item-categories',
      'create',
      '--line-item-id',
      web,
      '--curated-category-id',
      'cc-sports',
    ]);
    expect(c).toMatchObject({ line_item_id: web, curated_category_id: 'cc-sports' });
    expect(
      (await t.json(['ads', 'line-item-categories', 'update', c.id, '--curated-category-id', 'cc-tech']))
        .curated_category_id,
    ).toBe('cc-tech');
    const bad = await t.fails(1, ['ads', 'line-item-categories', 'update', c.id, '--curated-category-id', 'cc-none']);
    expect(bad.stderr).toMatch(/NOT_FOUND, parameter curated_category_id/);
    expect(t.collection('line_item_curated_categories').get(c.id)!.curated_category_id).toBe('cc-tech');
    expect((await t.json(['ads', 'line-item-categories', 'delete', c.id, '--yes'])).deleted).toBe(true);
  });
});

describe('promotable users and targeting criteria', () => {
  it('lists and gets promotable users; targeting criteria need line item ids', async () => {
    const users = await t.list(['ads', 'promotable-users', 'list']);
    expect(users.map((u) => u.promotable_user_type).sort()).toEqual(['FULL', 'RETWEETS_ONLY']);
    expect((await t.json(['ads', 'promotable-users', 'get', users[0].id])).user_id).toBe(users[0].user_id);
    const tc = await t.list(['ads', 'targeting', 'list', '--line-item-ids', `${web},${followers}`]);
    expect(tc.map((x) => x.line_item_id).sort()).toEqual([web, followers].sort());
    expect((await t.refused(['ads', 'targeting', 'list'])).stderr).toMatch(/--line-item-ids is required/);
  });
});
