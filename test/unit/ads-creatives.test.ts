// Creative rules (spec 2.3, 4.1, 8) over the resource definitions, through the same validation the
// CLI and the sandbox run: each passes just inside its limit and fails just outside.
import { describe, expect, it } from 'vitest';
import { resourceByName } from '../../src/ads/resources.js';
import { validateParams } from '../../src/ads/params.js';
import type { AdsCollection, OperationDef } from '../../src/ads/resource-types.js';
import { BEHAVIOURS } from '../../src/sandbox/ads/index.js';
import {
  attachmentProblem,
  cardTypeOf,
  componentsProblem,
  conversationCardProblem,
  ctaLength,
  mediaKindOfKey,
  pollChoiceOrder,
  slidesProblem,
} from '../../src/ads/rules/cards.js';

function op(resource: AdsCollection, verb: string): OperationDef {
  const o = resourceByName(resource)?.operations.find((x) => x.verb === verb);
  if (!o) throw new Error(`no ${resource} ${verb}`);
  return o;
}
const NOW = Date.UTC(2026, 0, 15, 12, 0, 30);
function check(o: OperationDef, raw: Record<string, unknown>) {
  return validateParams(o.params, raw, o.rules, { nowMs: NOW }).violations;
}
const first = (o: OperationDef, raw: Record<string, unknown>) => check(o, raw)[0];
const s = (n: number, c = 'a') => c.repeat(n);

const IMG = '3_11';
const VID = '13_12';
const GIF = '16_13';
const media = { type: 'MEDIA', media_key: IMG };
const details = { type: 'DETAILS', title: 'Shop', destination: { type: 'WEBSITE', url: 'https://e.com' } };
const appDest = { type: 'APP', country_code: 'US', googleplay_app_id: 'com.e' };
const button = { type: 'BUTTON', label: { type: 'ENUM', value: 'INSTALL' }, destination: appDest };
const swipe = (n: number) => ({ type: 'SWIPEABLE_MEDIA', media_keys: Array(n).fill(IMG) });

describe('card components (spec 2.3)', () => {
  it('rule 1: one media component plus a DETAILS or BUTTON component', () => {
    expect(componentsProblem([media, details])).toBeUndefined();
    expect(componentsProblem([media, button])).toBeUndefined();
    expect(componentsProblem([media])).toMatch(/one DETAILS or one BUTTON component \(got 0\)/);
    expect(componentsProblem([details])).toMatch(/exactly one media component .*got 0/);
    expect(componentsProblem([media, swipe(2), details])).toMatch(/exactly one media component .*got 2/);
    expect(componentsProblem([media, details, button])).toMatch(/got 2/);
    expect(componentsProblem([])).toMatch(/non-empty array/);
    expect(componentsProblem([media, { type: 'TEXT' }])).toMatch(
      /type must be one of MEDIA, SWIPEABLE_MEDIA, DETAILS, BUTTON/,
    );
    expect(componentsProblem([{ type: 'MEDIA' }, details])).toMatch(/needs media_key/);
    expect(componentsProblem([media, { ...details, title: undefined }])).toMatch(/DETAILS\) needs title/);
  });
  it('rule 2: BUTTON label is {type: ENUM, value: one of BOOK..SHOP}', () => {
    for (const v of ['BOOK', 'CONNECT', 'INSTALL', 'OPEN', 'ORDER', 'PLAY', 'SHOP'])
      expect(componentsProblem([media, { ...button, label: { type: 'ENUM', value: v } }])).toBeUndefined();
    expect(componentsProblem([media, { ...button, label: { type: 'ENUM', value: 'BUY' } }])).toMatch(/label must be/);
    expect(componentsProblem([media, { ...button, label: { type: 'TEXT', value: 'SHOP' } }])).toMatch(/label must be/);
    expect(componentsProblem([media, { ...button, label: undefined }])).toMatch(/label must be/);
  });
  it('rule 3: destination required; WEBSITE only with DETAILS, APP only with BUTTON', () => {
    expect(componentsProblem([media, { ...details, destination: undefined }])).toMatch(/destination is required/);
    expect(componentsProblem([media, { ...button, destination: undefined }])).toMatch(/destination is required/);
    expect(componentsProblem([media, { ...details, destination: appDest }])).toMatch(/APP is only allowed in a BUTTON/);
    expect(componentsProblem([media, { ...button, destination: details.destination }])).toMatch(
      /WEBSITE is only allowed in a DETAILS/,
    );
    expect(componentsProblem([media, { ...details, destination: { type: 'PHONE' } }])).toMatch(
      /type must be WEBSITE or APP/,
    );
  });
  it('rule 4: WEBSITE needs url', () => {
    expect(componentsProblem([media, { ...details, destination: { type: 'WEBSITE' } }])).toMatch(/url is required/);
  });
  it('rule 5: APP country_code (ISO 3166-1 alpha-2), a store id, deep links paired with their store', () => {
    const app = (d: Record<string, unknown>) =>
      componentsProblem([media, { ...button, destination: { type: 'APP', ...d } }]);
    expect(app({ country_code: 'GB', ios_app_store_identifier: '333903271' })).toBeUndefined();
    expect(app({ country_code: 'XK', googleplay_app_id: 'a' })).toMatch(/ISO 3166-1 alpha-2/); // user-assigned, not ISO
    expect(app({ country_code: 'us', googleplay_app_id: 'a' })).toMatch(/ISO 3166-1 alpha-2/);
    expect(app({ country_code: 'USA', googleplay_app_id: 'a' })).toMatch(/ISO 3166-1 alpha-2/);
    expect(app({ googleplay_app_id: 'a' })).toMatch(/country_code/);
    expect(app({ country_code: 'US' })).toMatch(/googleplay_app_id or ios_app_store_identifier/);
    expect(app({ country_code: 'US', googleplay_app_id: 'a', googleplay_deep_link: 'x://' })).toBeUndefined();
    expect(app({ country_code: 'US', ios_app_store_identifier: '1', googleplay_deep_link: 'x://' })).toMatch(
      /googleplay_deep_link is only allowed with googleplay_app_id/,
    );
    expect(app({ country_code: 'US', ios_app_store_identifier: '1', ios_deep_link: 'x://' })).toBeUndefined();
    expect(app({ country_code: 'US', googleplay_app_id: 'a', ios_deep_link: 'x://' })).toMatch(
      /ios_deep_link is only allowed with ios_app_store_identifier/,
    );
  });
  it('SWIPEABLE_MEDIA holds 2 to 6 media keys (spec 8)', () => {
    expect(componentsProblem([swipe(2), details])).toBeUndefined();
    expect(componentsProblem([swipe(6), details])).toBeUndefined();
    expect(componentsProblem([swipe(1), details])).toMatch(/2 to 6 entries \(got 1\)/);
    expect(componentsProblem([swipe(7), details])).toMatch(/2 to 6 entries \(got 7\)/);
  });
  it('slides: 2 to 6, each a complete single-media card', () => {
    const slide = [media, details];
    expect(slidesProblem([slide, slide])).toBeUndefined();
    expect(slidesProblem(Array(6).fill(slide))).toBeUndefined();
    expect(slidesProblem([slide])).toMatch(/2 to 6 slides \(got 1\)/);
    expect(slidesProblem(Array(7).fill(slide))).toMatch(/got 7/);
    expect(slidesProblem([slide, [media]])).toMatch(/^slides\[1\] must hold one DETAILS/);
    expect(slidesProblem([slide, [swipe(2), details]])).toMatch(/must use a MEDIA component/);
  });
  it('card_type follows the shape and the media', () => {
    expect(cardTypeOf([media, details], undefined, ['IMAGE'])).toBe('IMAGE_WEBSITE');
    expect(cardTypeOf([media, button], undefined, ['VIDEO'])).toBe('VIDEO_APP');
    expect(cardTypeOf([swipe(2), details], undefined, ['IMAGE', 'IMAGE'])).toBe('IMAGE_CAROUSEL_WEBSITE');
    expect(cardTypeOf([swipe(2), button], undefined, ['VIDEO', 'VIDEO'])).toBe('VIDEO_CAROUSEL_APP');
    expect(cardTypeOf([swipe(2), button], undefined, ['IMAGE', 'VIDEO'])).toBe('MIXED_MEDIA_SINGLE_DEST_CAROUSEL_APP');
    expect(
      cardTypeOf(
        undefined,
        [
          [media, details],
          [media, details],
        ],
        ['IMAGE', 'VIDEO'],
      ),
    ).toBe('MIXED_MEDIA_MULTI_DEST_CAROUSEL_WEBSITE');
    expect(
      cardTypeOf(
        undefined,
        [
          [media, details],
          [media, details],
        ],
        ['IMAGE', 'IMAGE'],
      ),
    ).toBe('IMAGE_MULTI_DEST_CAROUSEL_WEBSITE');
  });
});

describe('cards create and update bodies', () => {
  const create = op('cards', 'create');
  it('name 80 passes, 81 fails; name required', () => {
    expect(check(create, { name: s(80), components: [media, details] })).toEqual([]);
    expect(first(create, { name: s(81), components: [media, details] })).toMatchObject({
      param: 'name',
      message: 'must be at most 80 characters',
    });
    expect(first(create, { components: [media, details] })).toMatchObject({ param: 'name', code: 'MISSING_PARAMETER' });
  });
  it('exactly one of components or slides on create; never both on update', () => {
    expect(first(create, { name: 'n' })).toMatchObject({ param: 'components', code: 'MISSING_PARAMETER' });
    expect(
      first(create, {
        name: 'n',
        components: [media, details],
        slides: [
          [media, details],
          [media, details],
        ],
      }),
    ).toMatchObject({ param: 'slides' });
    expect(check(op('cards', 'update'), { name: 'n' })).toEqual([]);
    expect(
      first(op('cards', 'update'), {
        components: [media, details],
        slides: [
          [media, details],
          [media, details],
        ],
      })?.param,
    ).toBe('slides');
    expect(first(create, { name: 'n', components: [media] })).toMatchObject({
      param: 'components',
      message: expect.stringMatching(/^must hold one DETAILS/),
    });
  });
  it('list: q 80 passes, 81 fails; count 1-200; card_uris are card://ids', () => {
    const list = op('cards', 'list');
    expect(check(list, { q: s(80) })).toEqual([]);
    expect(first(list, { q: s(81) })?.param).toBe('q');
    expect(first(op('poll_cards', 'list'), { q: s(81) })?.param).toBe('q');
    expect(check(list, { card_uris: 'card://1,card://2' })).toEqual([]);
    expect(first(list, { card_uris: 'card://1,2' })?.param).toBe('card_uris');
    expect(first(op('cards', 'all'), {})).toMatchObject({ param: 'card_uris', code: 'MISSING_PARAMETER' });
  });
});

describe('post attachments (spec 8: up to 4 images, or 1 animated GIF, or 1 video)', () => {
  it('classifies media keys by category prefix', () => {
    expect([
      mediaKindOfKey('3_1'),
      mediaKindOfKey('16_1'),
      mediaKindOfKey('7_1'),
      mediaKindOfKey('13_1'),
      mediaKindOfKey('5_1'),
    ]).toEqual(['IMAGE', 'GIF', 'VIDEO', 'VIDEO', undefined]);
  });
  it('4 images pass, 5 fail; 1 GIF or 1 video pass; any mix fails', () => {
    expect(attachmentProblem(Array(4).fill('IMAGE'))).toBeUndefined();
    expect(attachmentProblem(Array(5).fill('IMAGE'))).toMatch(/at most 4 images \(got 5\)/);
    expect(attachmentProblem(['GIF'])).toBeUndefined();
    expect(attachmentProblem(['VIDEO'])).toBeUndefined();
    expect(attachmentProblem(['GIF', 'GIF'])).toMatch(/not a mix/);
    expect(attachmentProblem(['VIDEO', 'VIDEO'])).toMatch(/not a mix/);
    expect(attachmentProblem(['IMAGE', 'VIDEO'])).toMatch(/not a mix/);
    expect(attachmentProblem([undefined])).toMatch(/must be media keys/);
  });
  for (const res of ['draft_tweets', 'scheduled_tweets'] as const) {
    const base =
      res === 'scheduled_tweets' ? { as_user_id: '1', scheduled_at: '2026-02-01T00:00:00Z' } : { as_user_id: '1' };
    it(`${res} create: media_keys, text-or-media, name 80`, () => {
      const o = op(res, 'create');
      expect(check(o, { ...base, media_keys: [IMG, IMG, IMG, IMG].join(',') })).toEqual([]);
      expect(first(o, { ...base, media_keys: [IMG, IMG, IMG, IMG, IMG].join(',') })).toMatchObject({
        param: 'media_keys',
        message: 'must list at most 4 entries (got 5)',
      });
      expect(first(o, { ...base, media_keys: `${IMG},${GIF}` })).toMatchObject({
        param: 'media_keys',
        message: expect.stringMatching(/not a mix/),
      });
      expect(check(o, { ...base, media_keys: VID })).toEqual([]);
      expect(first(o, { ...base })).toMatchObject({ param: 'text', code: 'MISSING_PARAMETER' });
      expect(check(o, { ...base, text: 'x', name: s(80) })).toEqual([]);
      expect(first(o, { ...base, text: 'x', name: s(81) })).toMatchObject({
        param: 'name',
        message: 'must be at most 80 characters',
      });
      expect(first(o, { ...base, text: 'x', card_uri: '' })?.param).toBe('card_uri');
    });
    it(`${res} update: an empty card_uri or media_keys removes it`, () => {
      const v = validateParams(op(res, 'update').params, { card_uri: '', media_keys: '' }, op(res, 'update').rules, {
        nowMs: NOW,
      });
      expect(v.violations).toEqual([]);
      expect(v.values).toMatchObject({ card_uri: null, media_keys: null });
    });
  }
});

describe('scheduled_at (spec 8: up to one year ahead, minute granularity)', () => {
  const o = op('scheduled_tweets', 'create');
  const at = (ms: number) => ({ as_user_id: '1', text: 'x', scheduled_at: new Date(ms).toISOString() });
  const YEAR = 365 * 86_400_000;
  it('exactly a year ahead passes, a minute more fails; seconds are ignored', () => {
    const minute = Math.floor(NOW / 60_000) * 60_000;
    expect(check(o, at(minute + YEAR))).toEqual([]);
    expect(check(o, at(minute + YEAR + 59_000))).toEqual([]); // same minute
    expect(first(o, at(minute + YEAR + 60_000))).toMatchObject({
      param: 'scheduled_at',
      message: 'must be at most one year ahead',
    });
    expect(
      first(op('scheduled_tweets', 'update'), { scheduled_at: new Date(minute + YEAR + 60_000).toISOString() })?.param,
    ).toBe('scheduled_at');
  });
  it('as_user_id and scheduled_at are required', () => {
    expect(check(o, { text: 'x' }).map((v) => v.param)).toEqual(['scheduled_at', 'as_user_id']);
  });
});

describe('poll cards', () => {
  const o = op('poll_cards', 'create');
  const base = { name: 'p', duration_in_minutes: '5', first_choice: 'a', second_choice: 'b' };
  it('choices 25 pass, 26 fail', () => {
    for (const c of ['first_choice', 'second_choice', 'third_choice', 'fourth_choice']) {
      expect(check(o, { ...base, third_choice: 'c', [c]: s(25) })).toEqual([]);
      expect(first(o, { ...base, third_choice: 'c', [c]: s(26) })).toMatchObject({
        param: c,
        message: 'must be at most 25 characters',
      });
    }
  });
  it('third needs first and second; fourth needs the first three', () => {
    expect(pollChoiceOrder({ first_choice: 'a', third_choice: 'c' }, { nowMs: 0 })).toMatchObject({
      param: 'third_choice',
      message: 'needs first_choice, second_choice (missing second_choice)',
    });
    expect(pollChoiceOrder({ first_choice: 'a', second_choice: 'b', third_choice: 'c' }, { nowMs: 0 })).toBeUndefined();
    expect(first(o, { ...base, fourth_choice: 'd' })).toMatchObject({
      param: 'fourth_choice',
      message: expect.stringMatching(/missing third_choice/),
    });
    expect(check(o, { ...base, third_choice: 'c', fourth_choice: 'd' })).toEqual([]);
  });
  it('duration 5 and 10080 pass, 4 and 10081 fail', () => {
    expect(check(o, { ...base, duration_in_minutes: '10080' })).toEqual([]);
    expect(first(o, { ...base, duration_in_minutes: '4' })).toMatchObject({
      param: 'duration_in_minutes',
      message: 'must be between 5 and 10080',
    });
    expect(first(o, { ...base, duration_in_minutes: '10081' })).toMatchObject({
      param: 'duration_in_minutes',
      message: 'must be between 5 and 10080',
    });
  });
  it('media_key is write-only and an image or video key; there is no update', () => {
    expect(o.params.find((p) => p.name === 'media_key')!.writeOnly).toBe(true);
    expect(check(o, { ...base, media_key: VID })).toEqual([]);
    expect(first(o, { ...base, media_key: GIF })?.param).toBe('media_key');
    expect(resourceByName('poll_cards')!.operations.map((x) => x.verb)).toEqual(['list', 'get', 'create', 'delete']);
    expect(BEHAVIOURS.poll_cards!.hooks!.deleteMode).toBe('hard');
  });
});

describe('video conversation cards', () => {
  const o = op('conversation_cards', 'create');
  const base = {
    name: 'c',
    first_cta: '#Yes',
    first_cta_tweet: 'yes',
    thank_you_text: 'thanks',
    media_key: VID,
    title: 't',
  };
  it('CTA: 20 characters not counting # pass, 21 fail', () => {
    expect(ctaLength('#' + s(20))).toBe(20);
    expect(check(o, { ...base, first_cta: '#' + s(20) })).toEqual([]);
    expect(check(o, { ...base, first_cta: s(20) })).toEqual([]);
    expect(first(o, { ...base, first_cta: '#' + s(21) })).toMatchObject({
      param: 'first_cta',
      message: 'must be at most 20 characters, not counting # (got 21)',
    });
    expect(first(o, { ...base, first_cta: '#' })?.message).toBe('must not be empty');
  });
  it('thank-you text and title: 23 pass, 24 fail', () => {
    expect(check(o, { ...base, thank_you_text: s(23), title: s(23) })).toEqual([]);
    expect(first(o, { ...base, thank_you_text: s(24) })).toMatchObject({
      param: 'thank_you_text',
      message: 'must be at most 23 characters',
    });
    expect(first(o, { ...base, title: s(24) })).toMatchObject({
      param: 'title',
      message: 'must be at most 23 characters',
    });
  });
  it('second_cta required when title is not set; each *_cta needs its *_cta_tweet; order', () => {
    const { title: _t, ...noTitle } = base;
    expect(first(o, noTitle)).toMatchObject({ param: 'second_cta', code: 'MISSING_PARAMETER' });
    expect(check(o, { ...noTitle, second_cta: '#No', second_cta_tweet: 'no' })).toEqual([]);
    expect(first(o, { ...noTitle, second_cta: '#No' })).toMatchObject({
      param: 'second_cta_tweet',
      message: 'is required when second_cta is set',
    });
    expect(first(o, { ...base, third_cta_tweet: 'x' })).toMatchObject({
      param: 'third_cta_tweet',
      message: 'needs third_cta',
    });
    expect(first(o, { ...base, third_cta: '#m', third_cta_tweet: 'm' })).toMatchObject({
      param: 'third_cta',
      message: 'needs second_cta',
    });
    expect(first(o, { ...base, media_key: IMG })?.param).toBe('media_key');
  });
  it('the merged card is checked on update (sandbox)', () => {
    expect(conversationCardProblem({ ...base, second_cta: null })).toBeUndefined();
    expect(conversationCardProblem({ ...base, title: null })).toMatchObject({ param: 'second_cta' });
    expect(conversationCardProblem({ ...base, second_cta: '#n' })).toMatchObject({ param: 'second_cta_tweet' });
  });
});

describe('media library (spec 8 text lengths)', () => {
  const upd = op('media_library', 'update');
  const cases: Array<[string, number]> = [
    ['description', 200],
    ['title', 70],
    ['name', 100],
    ['file_name', 255],
  ];
  for (const [param, max] of cases) {
    it(`${param}: ${max} passes, ${max + 1} fails`, () => {
      expect(check(upd, { [param]: s(max) })).toEqual([]);
      expect(first(upd, { [param]: s(max + 1) })).toMatchObject({
        param,
        message: `must be at most ${max} characters`,
      });
    });
  }
  it('description, title and poster apply to videos only (on add, by the key); the poster is an image', () => {
    const add = op('media_library', 'add');
    expect(check(add, { media_key: VID, title: 't', description: 'd', poster_media_key: IMG })).toEqual([]);
    expect(first(add, { media_key: IMG, title: 't' })).toMatchObject({
      param: 'title',
      message: expect.stringMatching(/videos only/),
    });
    expect(first(add, { media_key: GIF, description: 'd' })?.param).toBe('description');
    expect(first(upd, { poster_media_key: VID })).toMatchObject({
      param: 'poster_media_key',
      message: expect.stringMatching(/image/),
    });
  });
});

describe('preroll calls to action and previews', () => {
  it('call_to_action enum and URL required', () => {
    const o = op('preroll_call_to_actions', 'create');
    expect(check(o, { line_item_id: 'l', call_to_action: 'WATCH_NOW', call_to_action_url: 'https://e.com' })).toEqual(
      [],
    );
    expect(first(o, { line_item_id: 'l', call_to_action: 'BUY', call_to_action_url: 'https://e.com' })?.param).toBe(
      'call_to_action',
    );
    expect(first(o, { line_item_id: 'l', call_to_action: 'SHOP' })).toMatchObject({
      param: 'call_to_action_url',
      code: 'MISSING_PARAMETER',
    });
  });
  it('previews: tweet_ids (longs, up to 200) and tweet_type required', () => {
    const o = op('tweet_previews', 'list');
    expect(check(o, { tweet_ids: '1,2', tweet_type: 'DRAFT' })).toEqual([]);
    expect(check(o, {}).map((v) => v.param)).toEqual(['tweet_ids', 'tweet_type']);
    expect(first(o, { tweet_ids: '1', tweet_type: 'LIVE' })?.param).toBe('tweet_type');
  });
  it('soft deletes for account media, cards, preroll CTAs and the media library; hard for scheduled posts and conversation cards', () => {
    for (const r of ['account_media', 'cards', 'preroll_call_to_actions', 'media_library'] as const)
      expect(BEHAVIOURS[r]?.hooks?.deleteMode ?? 'soft').toBe('soft');
    for (const r of ['scheduled_tweets', 'conversation_cards', 'poll_cards'] as const)
      expect(BEHAVIOURS[r]!.hooks!.deleteMode).toBe('hard');
  });
});
