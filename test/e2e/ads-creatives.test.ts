// Creatives through the real CLI against the sandbox: every resource and verb, hard and soft
// deletes, the media library checks, and refused input that sends nothing. The time-driven
// lifecycles (scheduled posts, polls) are in ads-creatives-lifecycle.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox, type Row } from '../helpers/ads.js';
import { tempDir } from '../helpers/cli.js';

/** A card as `xctl ads cards|polls ... create` prints it. */
interface Card extends Row {
  card_uri: string;
}

let t: AdsSandbox;
let dir: string;
let owner: string;
beforeAll(async () => {
  t = await startAdsSandbox();
  dir = tempDir('xctl-creatives-');
  owner = t.sb.seed.user_id;
});
afterAll(async () => {
  await t.close();
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
    const all = await t.list(['ads', 'account-media', 'list']);
    expect(all.map((m) => m.creative_type).sort()).toEqual(['BANNER', 'PREROLL']);
    const pre = await t.list(['ads', 'account-media', 'list', '--creative-types', 'PREROLL,VAST_PREROLL']);
    expect(pre).toHaveLength(1);
    expect(pre[0]).toMatchObject({ creative_type: 'PREROLL', video_id: VIDEO });
    expect((await t.json(['ads', 'account-media', 'get', pre[0].id])).id).toBe(pre[0].id);
    expect((await t.json(['ads', 'account-media', 'delete', pre[0].id, '--yes'])).deleted).toBe(true);
    await t.fails(1, ['ads', 'account-media', 'get', pre[0].id]);
    expect((await t.json(['ads', 'account-media', 'get', pre[0].id, '--with-deleted'])).deleted).toBe(true);
    expect(await t.json(['ads', 'account-media', 'list', '--creative-types', 'PREROLL'])).toEqual([]);
    await t.refused(['ads', 'account-media', 'list', '--creative-types', 'BILLBOARD']);
  });
});

describe('media library', () => {
  it('lists the seeded objects, filters by type, adds, updates, deletes softly', async () => {
    const lib = await t.list(['ads', 'media-library', 'list']);
    expect(lib.map((m) => m.media_key)).toEqual(expect.arrayContaining([WIDE, SQUARE, GIF, VIDEO]));
    expect(lib[0].id).toBeUndefined();
    expect((await t.list(['ads', 'media-library', 'list', '--media-type', 'VIDEO'])).map((m) => m.media_key)).toEqual([
      VIDEO,
    ]);
    expect(await t.json(['ads', 'media-library', 'get', VIDEO])).toMatchObject({
      media_key: VIDEO,
      media_type: 'VIDEO',
      aspect_ratio: '16:9',
      media_status: 'TRANSCODE_COMPLETED',
    });

    // A key comes from an upload; an unknown one is MEDIA_NOT_FOUND.
    expect((await t.fails(1, ['ads', 'media-library', 'add', '--media-key', '7_555'])).stderr).toMatch(
      /HTTP 404, code MEDIA_NOT_FOUND/,
    );
    const clip = path.join(dir, 'clip.mp4');
    fs.writeFileSync(
      clip,
      Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(2000, 7)]),
    );
    const up = await t.json(['media', 'upload', clip, '--category', 'tweet_video']);
    const key = up.media_key as string;
    expect(key).toMatch(/^7_\d{19}$/);
    const added = await t.json([
      'ads',
      'media-library',
      'add',
      '--media-key',
      key,
      '--name',
      'Clip',
      '--title',
      'A clip',
      '--poster-media-key',
      WIDE,
    ]);
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
    expect(await t.json(['ads', 'media-library', 'add', '--media-key', key])).toMatchObject({
      media_key: key,
      name: 'Clip',
    });
    const upd = await t.json([
      'ads',
      'media-library',
      'update',
      key,
      '--description',
      'd'.repeat(200),
      '--file-name',
      'f'.repeat(255),
    ]);
    expect(upd.description).toHaveLength(200);
    // Videos only: the sandbox knows what the key is; the CLI cannot from a positional.
    const r = await t.fails(1, ['ads', 'media-library', 'update', SQUARE, '--title', 'x']);
    expect(r.stderr).toMatch(/title applies to videos only/);
    expect((await t.json(['ads', 'media-library', 'delete', key, '--yes'])).deleted).toBe(true);
    await t.fails(1, ['ads', 'media-library', 'get', key]);
    expect((await t.json(['ads', 'media-library', 'get', key, '--with-deleted'])).deleted).toBe(true);
  });

  it('refuses lengths and video-only fields before sending', async () => {
    // Every length is covered by the unit tests; one of each kind here.
    expect((await t.refused(['ads', 'media-library', 'update', VIDEO, '--title', 't'.repeat(71)])).stderr).toMatch(
      /--title must be at most 70 characters/,
    );
    const r = await t.refused(['ads', 'media-library', 'add', '--media-key', '3_777', '--title', 'x']);
    expect(r.stderr).toMatch(/--title applies to videos only/);
  });
});

describe('cards', () => {
  it('create from --file (components and slides), list filters, get, update, delete; legacy lookup', async () => {
    const web = await t.json<Card>([
      'ads',
      'cards',
      'create',
      '--file',
      file('web.json', { name: 'Website card', components: [{ type: 'MEDIA', media_key: WIDE }, website()] }),
    ]);
    expect(web).toMatchObject({
      name: 'Website card',
      card_type: 'IMAGE_WEBSITE',
      card_uri: `card://${web.id}`,
      deleted: false,
    });
    const app = await t.json<Card>(
      ['ads', 'cards', 'create', '--file', '-'],
      JSON.stringify({
        name: 'App carousel',
        components: [{ type: 'SWIPEABLE_MEDIA', media_keys: [WIDE, VIDEO] }, appButton],
      }),
    );
    expect(app.card_type).toBe('MIXED_MEDIA_SINGLE_DEST_CAROUSEL_APP');
    const multi = await t.json([
      'ads',
      'cards',
      'create',
      '--file',
      file('multi.json', {
        name: 'Multi',
        slides: [
          [{ type: 'MEDIA', media_key: VIDEO }, website('a')],
          [{ type: 'MEDIA', media_key: VIDEO }, website('b')],
        ],
      }),
    ]);
    expect(multi.card_type).toBe('VIDEO_MULTI_DEST_CAROUSEL_WEBSITE');

    expect((await t.list(['ads', 'cards', 'list', '--card-types', 'IMAGE_WEBSITE'])).map((c) => c.id)).toEqual([
      web.id,
    ]);
    expect((await t.list(['ads', 'cards', 'list', '--card-id', `${app.id},${multi.id}`])).map((c) => c.id)).toEqual([
      app.id,
      multi.id,
    ]);
    expect(
      (await t.list(['ads', 'cards', 'list', '--card-uris', web.card_uri, '--include-legacy-cards'])).map((c) => c.id),
    ).toEqual([web.id]);
    expect((await t.list(['ads', 'cards', 'list', '--q', 'app'])).map((c) => c.id)).toEqual([app.id]);
    expect((await t.json(['ads', 'cards', 'get', multi.id])).slides).toHaveLength(2);

    const upd = await t.json([
      'ads',
      'cards',
      'update',
      web.id,
      '--file',
      file('upd.json', { name: 'Video website', components: [{ type: 'MEDIA', media_key: VIDEO }, website()] }),
    ]);
    expect(upd).toMatchObject({ name: 'Video website', card_type: 'VIDEO_WEBSITE' });

    const legacy = await t.json(['ads', 'cards', 'all', '--card-uris', `${web.card_uri},${app.card_uri},card://nope`]);
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
    expect((await t.json(['ads', 'cards', 'all-get', app.id])).app_cta).toBe('INSTALL');

    expect((await t.json(['ads', 'cards', 'delete', app.id, '--yes'])).deleted).toBe(true);
    await t.fails(1, ['ads', 'cards', 'get', app.id]);
    expect((await t.json(['ads', 'cards', 'get', app.id, '--with-deleted'])).deleted).toBe(true);
    expect(await t.json(['ads', 'cards', 'all', '--card-uris', app.card_uri])).toEqual([]);
    expect(await t.json(['ads', 'cards', 'all', '--card-uris', app.card_uri, '--with-deleted'])).toHaveLength(1);
  });

  it('checks the media against the library (unknown key, GIF)', async () => {
    const r = await t.fails(1, [
      'ads',
      'cards',
      'create',
      '--file',
      file('gif.json', { name: 'g', components: [{ type: 'MEDIA', media_key: GIF }, website()] }),
    ]);
    expect(r.stderr).toMatch(/animated GIF/);
    const r2 = await t.fails(1, [
      'ads',
      'cards',
      'create',
      '--file',
      file('unk.json', { name: 'u', components: [{ type: 'MEDIA', media_key: '3_42' }, website()] }),
    ]);
    expect(r2.stderr).toMatch(/not in the media library/);
  });

  it('refuses every component rule before sending, naming --file and the rule', async () => {
    const media = { type: 'MEDIA', media_key: WIDE };
    const cases: Array<[unknown, RegExp]> = [
      // Each rule has its unit test; these show the message through the real CLI.
      [{ name: 'x', components: [media] }, /one DETAILS or one BUTTON/],
      [
        {
          name: 'x',
          components: [
            media,
            { ...appButton, destination: { type: 'APP', country_code: 'XX', googleplay_app_id: 'a' } },
          ],
        },
        /ISO 3166-1 alpha-2/,
      ],
      [
        { name: 'x', components: [{ type: 'SWIPEABLE_MEDIA', media_keys: [WIDE] }, website()] },
        /2 to 6 entries \(got 1\)/,
      ],
      [{ name: 'x'.repeat(81), components: [media, website()] }, /name must be at most 80 characters/],
    ];
    const errs = await t.refusedAll([
      ...cases.map(([body], i) => ['ads', 'cards', 'create', '--file', file(`bad${i}.json`, body)]),
      ['ads', 'cards', 'list', '--q', 'q'.repeat(81)],
    ]);
    cases.forEach(([, re], i) => expect(errs[i]).toMatch(re));
    for (const e of errs.slice(0, -1)) expect(e).toMatch(/--file/);
  });
});

describe('draft posts', () => {
  it('create, get, list (default user), update; card_uri removed by an empty value; previews', async () => {
    const card = await t.json<Card>([
      'ads',
      'cards',
      'create',
      '--file',
      file('dcard.json', { name: 'Draft card', components: [{ type: 'MEDIA', media_key: WIDE }, website()] }),
    ]);
    const d = await t.json([
      'ads',
      'drafts',
      'create',
      '--as-user-id',
      owner,
      '--text',
      'Hello <world>',
      '--card-uri',
      card.card_uri,
      '--media-keys',
      `${WIDE},${SQUARE}`,
      '--name',
      'First draft',
    ]);
    expect(d).toMatchObject({
      text: 'Hello <world>',
      user_id: owner,
      nullcast: true,
      card_uri: card.card_uri,
      media_keys: [WIDE, SQUARE],
      name: 'First draft',
    });
    expect(d.id).toMatch(/^\d{15,19}$/);
    expect((await t.json(['ads', 'drafts', 'get', d.id])).text).toBe('Hello <world>');
    expect((await t.list(['ads', 'drafts', 'list'])).map((x) => x.id)).toContain(d.id);
    expect(await t.json(['ads', 'drafts', 'list', '--user-id', '783214'])).toEqual([]);
    const upd = await t.json(['ads', 'drafts', 'update', d.id, '--card-uri', '', '--text', 'Changed']);
    expect(upd).toMatchObject({ card_uri: null, text: 'Changed', media_keys: [WIDE, SQUARE] });

    const pv = await t.list(['ads', 'previews', 'list', '--tweet-ids', `${d.id},123`, '--tweet-type', 'DRAFT']);
    expect(pv).toHaveLength(1);
    expect(pv[0].tweet_id).toBe(d.id);
    expect(pv[0].preview).toMatch(/^<iframe /);
    expect(await t.json(['ads', 'previews', 'list', '--tweet-ids', d.id, '--tweet-type', 'SCHEDULED'])).toEqual([]);
  });

  it('checks attachments against the library and the card against the account', async () => {
    const r = await t.fails(1, ['ads', 'drafts', 'create', '--as-user-id', owner, '--media-keys', '3_404']);
    expect(r.stderr).toMatch(/not in the media library/);
    const r2 = await t.fails(1, [
      'ads',
      'drafts',
      'create',
      '--as-user-id',
      owner,
      '--text',
      'x',
      '--card-uri',
      'card://nope',
    ]);
    expect(r2.stderr).toMatch(/not a card of this account/);
    const r3 = await t.fails(3, ['ads', 'drafts', 'create', '--as-user-id', '6253282', '--text', 'x']);
    expect(r3.stderr).toMatch(/as_user_id/);
  });

  it('refuses media mixes, missing text and long names before sending', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--media-keys', `${WIDE},${GIF}`], /up to 4 images, or 1 animated GIF, or 1 video/],
      [['--name', 'n'], /--text is required when --media-keys is not given/],
    ];
    const errs = await t.refusedAll([
      ...cases.map(([args]) => ['ads', 'drafts', 'create', '--as-user-id', owner, ...args]),
      ['ads', 'previews', 'list', '--tweet-ids', 'abc', '--tweet-type', 'DRAFT'],
    ]);
    cases.forEach(([, re], i) => expect(errs[i]).toMatch(re));
  });
});

describe('preroll calls to action', () => {
  it('create on a PREROLL_VIEWS line item, list, get, update, delete softly', async () => {
    const li = t.lineItem('PREROLL_VIEWS');
    const c = await t.json([
      'ads',
      'preroll-ctas',
      'create',
      '--line-item-id',
      li,
      '--call-to-action',
      'WATCH_NOW',
      '--call-to-action-url',
      'https://example.com/watch',
    ]);
    expect(c).toMatchObject({ line_item_id: li, call_to_action: 'WATCH_NOW', deleted: false });
    expect((await t.list(['ads', 'preroll-ctas', 'list', '--line-item-ids', li])).map((x) => x.id)).toEqual([c.id]);
    expect((await t.json(['ads', 'preroll-ctas', 'update', c.id, '--call-to-action', 'SHOP'])).call_to_action).toBe(
      'SHOP',
    );
    expect((await t.json(['ads', 'preroll-ctas', 'get', c.id])).call_to_action_url).toBe('https://example.com/watch');
    expect((await t.json(['ads', 'preroll-ctas', 'delete', c.id, '--yes'])).deleted).toBe(true);
    expect(
      (await t.list(['ads', 'preroll-ctas', 'list', '--with-deleted', '--preroll-call-to-action-ids', c.id]))[0]
        .deleted,
    ).toBe(true);
    const r = await t.fails(1, [
      'ads',
      'preroll-ctas',
      'create',
      '--line-item-id',
      t.lineItem('FOLLOWERS'),
      '--call-to-action',
      'SHOP',
      '--call-to-action-url',
      'https://e.com',
    ]);
    expect(r.stderr).toMatch(/INCOMPATIBLE_LINE_ITEM/);
    await t.refused([
      'ads',
      'preroll-ctas',
      'create',
      '--line-item-id',
      li,
      '--call-to-action',
      'BUY',
      '--call-to-action-url',
      'https://e.com',
    ]);
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
    const c = await t.json(['ads', 'conversation-cards', 'create', ...base, '--title', 'Pick one']);
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
    const upd = await t.json([
      'ads',
      'conversation-cards',
      'update',
      c.id,
      '--second-cta',
      '#No',
      '--second-cta-tweet',
      'I say no',
      '--thank-you-text',
      't'.repeat(23),
    ]);
    expect(upd).toMatchObject({ second_cta: '#No', second_cta_tweet: 'I say no' });
    expect((await t.list(['ads', 'conversation-cards', 'list'])).map((x) => x.id)).toContain(c.id);
    // The sandbox checks the merged card: a second CTA without its post text is refused.
    const bad = await t.fails(1, ['ads', 'conversation-cards', 'update', c.id, '--third-cta', '#Maybe']);
    expect(bad.stderr).toMatch(/third_cta_tweet/);
    const del = await t.json(['ads', 'conversation-cards', 'delete', c.id, '--yes']);
    expect(del.id).toBe(c.id);
    await t.fails(1, ['ads', 'conversation-cards', 'get', c.id]);
    const r = await t.fails(1, [
      'ads',
      'conversation-cards',
      'create',
      ...base.slice(0, -2),
      '--media-key',
      '7_404',
      '--title',
      't',
    ]);
    expect(r.stderr).toMatch(/not in the media library/);
  });

  it('refuses CTA, text lengths and pairings before sending', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--title', 't'.repeat(24)], /--title must be at most 23/],
      [[], /--second-cta is required when --title is not set/],
      [['--second-cta', '#No'], /--second-cta-tweet is required when --second-cta is set/],
      [
        ['--title', 't', '--first-cta', '#' + 'a'.repeat(21)],
        /--first-cta must be at most 20 characters, not counting #/,
      ],
    ];
    const errs = await t.refusedAll(cases.map(([extra]) => ['ads', 'conversation-cards', 'create', ...base, ...extra]));
    cases.forEach(([, re], i) => expect(errs[i]).toMatch(re));
    // 20 characters without the # pass.
    const ok = await t.json([
      'ads',
      'conversation-cards',
      'create',
      ...base,
      '--title',
      't'.repeat(23),
      '--first-cta',
      '#' + 'a'.repeat(20),
    ]);
    expect(ok.first_cta).toHaveLength(21);
  });
});
