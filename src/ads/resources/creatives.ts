// Creatives (spec 2.2, 2.3, 3, 4.1, 8): account media, cards (component based, and the legacy
// lookup), draft posts, scheduled posts, poll cards, preroll calls to action, the media library,
// post previews and video conversation cards. Rules shared with the sandbox are in ../rules/cards.ts;
// the sandbox's behaviour is in src/sandbox/ads/creatives.ts and media-library.ts.
import * as z from 'zod';
import type { ParamDef, ResourceDef, Rule } from '../resource-types.js';
import { commonList, lazySchema, p } from '../params.js';
import { parseIsoTime } from '../../contract/time.js';
import { createOp, customOp, deleteOp, getOp, listOp, resource, updateOp } from '../ops.js';
import {
  CTA_MAX,
  CTA_ORDINALS,
  MEDIA_KEY,
  POLL_CHOICE_MAX,
  POLL_MAX_MINUTES,
  POLL_MIN_MINUTES,
  SCHEDULE_MAX_MS,
  THANK_YOU_MAX,
  clearable,
  componentsSchema,
  conversationRules,
  ctaLength,
  mediaKeysRule,
  mediaKindOfKey,
  oneOfComponentsOrSlides,
  pollChoiceOrder,
  slidesSchema,
  toMinute,
} from '../rules/cards.js';

const A = '/accounts/:account_id';

/** Spec 4.1 account media creative_types. */
export const CREATIVE_TYPES = [
  'BANNER',
  'BANNER_TABLET',
  'INTERSTITIAL',
  'INTERSTITIAL_LANDSCAPE',
  'INTERSTITIAL_LANDSCAPE_TABLET',
  'INTERSTITIAL_TABLET',
  'MEDIUM_RECTANGLE',
  'PREROLL',
  'VAST_PREROLL',
] as const;
/** Spec 2.2 component-based card types. */
export const CARD_TYPES = [
  'IMAGE_APP',
  'IMAGE_CAROUSEL_APP',
  'IMAGE_CAROUSEL_WEBSITE',
  'IMAGE_MULTI_DEST_CAROUSEL_WEBSITE',
  'IMAGE_WEBSITE',
  'MIXED_MEDIA_MULTI_DEST_CAROUSEL_WEBSITE',
  'MIXED_MEDIA_SINGLE_DEST_CAROUSEL_APP',
  'MIXED_MEDIA_SINGLE_DEST_CAROUSEL_WEBSITE',
  'VIDEO_APP',
  'VIDEO_CAROUSEL_APP',
  'VIDEO_CAROUSEL_WEBSITE',
  'VIDEO_MULTI_DEST_CAROUSEL_WEBSITE',
  'VIDEO_WEBSITE',
] as const;
export const PREROLL_CTAS = ['GO_TO', 'SEE_MORE', 'SHOP', 'VISIT_SITE', 'WATCH_NOW'] as const;
export const TWEET_TYPES = ['DRAFT', 'PUBLISHED', 'SCHEDULED'] as const;
/** Spec 8 text lengths. */
export const CARD_NAME_MAX = 80;
export const POST_NAME_MAX = 80;
export const CARD_Q_MAX = 80;
export const MEDIA_TITLE_MAX = 70;
export const MEDIA_DESCRIPTION_MAX = 200;
export const MEDIA_NAME_MAX = 100;
export const MEDIA_FILE_NAME_MAX = 255;

const withDeletedOnly = () => [p.bool('with_deleted', { default: false })];
const url = (name: string, o: { required?: boolean; help?: string } = {}) =>
  p.str(name, { ...o, max: 2048, pattern: /^https?:\/\/\S+$/, patternRule: 'an http(s) URL' });
const mediaKey = (name: string, o: { required?: boolean; help?: string; writeOnly?: boolean } = {}) =>
  p.str(name, { ...o, pattern: MEDIA_KEY, patternRule: 'a media key such as 3_1234567890' });
const cardUri = (name = 'card_uri') =>
  p.str(name, { pattern: /^card:\/\/[A-Za-z0-9_-]{1,64}$/, patternRule: 'a card URI such as card://1234' });
const mediaKeys = () =>
  p.list('media_keys', {
    max: 4,
    pattern: MEDIA_KEY,
    patternRule: 'a media key such as 3_1234567890',
    help: 'up to 4 images, or 1 GIF, or 1 video, from the media library',
  });

// ---- account media ----

const accountMedia = resource({
  name: 'account_media',
  dataType: 'account_media',
  noun: 'account-media',
  idParam: 'account_media_id',
  description: 'account media: images and videos of the account, by creative type',
  columns: ['id', 'creative_type', 'media_url', 'video_id', 'created_at', 'deleted'],
  operations: () => [
    listOp(
      `${A}/account_media`,
      [p.list('account_media_ids'), ...commonList(), p.list('creative_types', { of: CREATIVE_TYPES })],
      { description: 'list account media' },
    ),
    getOp(`${A}/account_media/:account_media_id`, withDeletedOnly(), { description: 'one account media object' }),
    deleteOp(`${A}/account_media/:account_media_id`, [], {
      description: 'delete an account media object (deleted: true)',
    }),
  ],
});

// ---- cards (component based) ----

const CARDS = `${A}/cards`;
const cardQ = () => p.str('q', { min: 1, max: CARD_Q_MAX, help: 'name prefix, case-insensitive' });
const cardUris = (o: { required?: boolean } = {}) =>
  p.list('card_uris', {
    ...o,
    pattern: /^card:\/\/[A-Za-z0-9_-]{1,64}$/,
    patternRule: 'a card URI such as card://1234',
  });

function cardBody(create: boolean): ParamDef[] {
  return [
    p.str('name', { required: create, min: 1, max: CARD_NAME_MAX }),
    p.json('components', componentsSchema, { rule: 'array of components (spec 2.3)' }),
    p.json('slides', slidesSchema, { rule: 'array of 2-6 slides, each an array of components' }),
  ];
}

const cards = resource({
  name: 'cards',
  dataType: 'card',
  noun: 'cards',
  idParam: 'card_id',
  description: 'cards (component based): media plus a website DETAILS or an app BUTTON; carousels',
  columns: ['id', 'name', 'card_type', 'card_uri', 'created_at', 'deleted'],
  operations: () => [
    listOp(
      CARDS,
      [
        p.list('card_types', { of: CARD_TYPES }),
        p.list('card_id', { help: 'card ids' }),
        cardUris(),
        ...commonList({ count: 200, countDefault: 100, total: false }),
        p.bool('include_legacy_cards', { default: false }),
        cardQ(),
      ],
      {
        description: 'list cards made with POST cards (--include-legacy-cards adds poll and conversation cards)',
      },
    ),
    // Before GET cards/:card_id, so that `all` is not taken for an id (routes match in order).
    customOp(
      'all',
      'GET',
      'list',
      `${CARDS}/all`,
      [cardUris({ required: true }), p.bool('with_deleted', { default: false })],
      {
        description: 'legacy-style cards by card URI (any card type)',
        columns: ['id', 'name', 'card_type', 'card_uri', 'deleted'],
      },
    ),
    customOp('all-get', 'GET', 'one', `${CARDS}/all/:card_id`, withDeletedOnly(), {
      description: 'one card, legacy style',
    }),
    getOp(`${CARDS}/:card_id`, withDeletedOnly(), { description: 'one card' }),
    Object.assign(
      createOp(CARDS, cardBody(true), {
        description: 'create a card (--file card.json: name and components or slides)',
        rules: [oneOfComponentsOrSlides(true)],
      }),
      { body: 'json' as const },
    ),
    Object.assign(
      updateOp(`${CARDS}/:card_id`, cardBody(false), {
        description: 'replace name, components or slides (--file)',
        rules: [oneOfComponentsOrSlides(false)],
      }),
      { body: 'json' as const },
    ),
    deleteOp(`${CARDS}/:card_id`, [], { description: 'delete a card (deleted: true)' }),
  ],
});

// ---- draft and scheduled posts ----

const textOrMedia: Rule = (v) =>
  v.text === undefined && (v.media_keys === undefined || v.media_keys === null)
    ? { param: 'text', code: 'MISSING_PARAMETER', message: 'is required when media_keys is not given' }
    : undefined;

function postParams(create: boolean, scheduled: boolean): ParamDef[] {
  const list: ParamDef[] = [];
  if (scheduled) list.push(scheduledAt(create));
  if (create)
    list.push(
      p.long('as_user_id', {
        required: true,
        help: 'the advertiser on whose behalf (has granted access to your handle)',
      }),
    );
  list.push(
    p.str('text', { min: 1 }),
    create ? cardUri() : clearable(cardUri()),
    create ? mediaKeys() : clearable(mediaKeys()),
    p.bool('nullcast', create ? { default: true } : {}),
    p.str('name', { max: POST_NAME_MAX }),
  );
  return list;
}

function scheduledAt(required: boolean): ParamDef {
  return p.time('scheduled_at', {
    required,
    help: 'when to post: at most one year ahead, minute granularity (seconds ignored)',
  });
}

/** Spec 4.1/8: scheduled_at at most one year ahead (compared at minute granularity). */
export const withinAYear: Rule = (v, env) => {
  if (typeof v.scheduled_at !== 'string') return undefined;
  const t = toMinute(parseIsoTime(v.scheduled_at)!);
  return t - (env?.nowMs ?? Date.now()) > SCHEDULE_MAX_MS
    ? { param: 'scheduled_at', code: 'INVALID_PARAMETER', message: 'must be at most one year ahead' }
    : undefined;
};

const postRules = (create: boolean): Rule[] => [...(create ? [textOrMedia] : []), mediaKeysRule()];

const drafts = resource({
  name: 'draft_tweets',
  dataType: 'draft_tweet',
  noun: 'drafts',
  idParam: 'draft_tweet_id',
  description: 'draft posts: prepared posts of an advertiser, not yet posted',
  columns: ['id', 'name', 'text', 'user_id', 'card_uri', 'media_keys', 'updated_at'],
  operations: () => [
    listOp(
      `${A}/draft_tweets`,
      [
        p.int('count', { min: 1, max: 200, default: 100 }),
        p.str('cursor', { min: 1 }),
        p.long('user_id', { help: "default: the account's FULL promotable user" }),
      ],
      { description: 'list draft posts' },
    ),
    getOp(`${A}/draft_tweets/:draft_tweet_id`, [], { description: 'one draft post' }),
    createOp(`${A}/draft_tweets`, postParams(true, false), {
      description: 'create a draft post',
      rules: postRules(true),
    }),
    updateOp(`${A}/draft_tweets/:draft_tweet_id`, postParams(false, false), {
      description: "change a draft post (--card-uri '' removes the card)",
      rules: postRules(false),
    }),
  ],
});

const scheduled = resource({
  name: 'scheduled_tweets',
  dataType: 'scheduled_tweet',
  noun: 'scheduled',
  idParam: 'scheduled_tweet_id',
  description: 'scheduled posts: SCHEDULED until scheduled_at, then SUCCESS with tweet_id',
  columns: ['id', 'name', 'text', 'scheduled_at', 'scheduled_status', 'tweet_id', 'completed_at'],
  operations: () => [
    listOp(
      `${A}/scheduled_tweets`,
      [
        p.int('count', { min: 1, max: 200, default: 100 }),
        p.str('cursor', { min: 1 }),
        p.long('user_id', { help: "default: the account's FULL promotable user" }),
      ],
      { description: 'list scheduled posts' },
    ),
    getOp(`${A}/scheduled_tweets/:scheduled_tweet_id`, [], { description: 'one scheduled post' }),
    createOp(`${A}/scheduled_tweets`, postParams(true, true), {
      description: 'schedule a post',
      rules: [...postRules(true), withinAYear],
    }),
    updateOp(`${A}/scheduled_tweets/:scheduled_tweet_id`, postParams(false, true), {
      description: "change a scheduled post (--card-uri '' / --media-keys '' remove)",
      rules: [...postRules(false), withinAYear],
    }),
    deleteOp(`${A}/scheduled_tweets/:scheduled_tweet_id`, [], {
      description: 'delete a scheduled post for good (answers scheduled_status DELETED)',
    }),
  ],
});

// ---- posts made through the ads API (POST accounts/:account_id/tweet, spec 2.2) ----

/** `xctl ads tweets create`: a post as a promotable user, promoted-only (nullcast) unless told. */
const tweets = resource({
  name: 'tweets',
  dataType: 'tweet',
  noun: 'tweets',
  description:
    'posts created through the ads API: promoted-only (nullcast) by default, ready for promoted-tweets create',
  columns: ['id', 'tweet_type', 'nullcast', 'text', 'card_uri', 'created_at'],
  operations: () => [
    customOp(
      'create',
      'POST',
      'one',
      `${A}/tweet`,
      [
        p.long('as_user_id', {
          required: true,
          help: 'the promotable user who posts (has granted access to your handle)',
        }),
        p.str('text', { min: 1 }),
        cardUri(),
        mediaKeys(),
        p.bool('nullcast', {
          default: true,
          help: 'promoted-only (the default); --no-nullcast: organic (the FULL promotable user only)',
        }),
        p.bool('trim_user', { default: false, help: 'the author as ids only' }),
        p.enumOf('tweet_mode', ['compat', 'extended'], { help: 'extended: the text as full_text' }),
      ],
      {
        description: 'create a post (promoted-only unless --nullcast false); promote it with promoted-tweets create',
        rules: postRules(true),
      },
    ),
  ],
});

// ---- poll cards ----

const POLLS = `${CARDS}/poll`;
const choice = (name: string, required = false) => p.str(name, { required, min: 1, max: POLL_CHOICE_MAX });

/** Poll media: an image (or a video) in the library; GIFs are not poll media. */
const pollMediaKind: Rule = (v) =>
  typeof v.media_key === 'string' && !['IMAGE', 'VIDEO'].includes(mediaKindOfKey(v.media_key) ?? '')
    ? {
        param: 'media_key',
        code: 'INVALID_PARAMETER',
        message: 'must be the media key of an image (3_) or a video (7_, 13_)',
      }
    : undefined;

const polls = resource({
  name: 'poll_cards',
  dataType: 'card',
  noun: 'polls',
  idParam: 'card_id',
  description: 'poll cards: 2-4 choices, open for duration_in_minutes from creation (no update)',
  columns: ['id', 'name', 'card_type', 'first_choice', 'second_choice', 'duration_in_minutes', 'end_time', 'closed'],
  operations: () => [
    listOp(POLLS, [p.list('card_ids'), ...commonList(), cardQ()], { description: 'list poll cards' }),
    getOp(`${POLLS}/:card_id`, withDeletedOnly(), { description: 'one poll card' }),
    createOp(
      POLLS,
      [
        p.int('duration_in_minutes', {
          required: true,
          min: POLL_MIN_MINUTES,
          max: POLL_MAX_MINUTES,
          help: 'counted from creation',
        }),
        choice('first_choice', true),
        choice('second_choice', true),
        p.str('name', { required: true, min: 1, max: CARD_NAME_MAX }),
        choice('third_choice'),
        choice('fourth_choice'),
        mediaKey('media_key', { writeOnly: true, help: 'image at least 800 px wide, 1.91:1 (media polls: beta)' }),
      ],
      { description: 'create a poll card', rules: [pollChoiceOrder, pollMediaKind] },
    ),
    deleteOp(`${POLLS}/:card_id`, [], { description: 'delete a poll card for good' }),
  ],
});

// ---- preroll calls to action ----

const PREROLL = `${A}/preroll_call_to_actions`;
const prerollCtas = resource({
  name: 'preroll_call_to_actions',
  dataType: 'preroll_call_to_action',
  noun: 'preroll-ctas',
  idParam: 'preroll_call_to_action_id',
  description: 'preroll calls to action of PREROLL_VIEWS line items',
  columns: ['id', 'line_item_id', 'call_to_action', 'call_to_action_url', 'deleted'],
  operations: () => [
    listOp(PREROLL, [p.list('line_item_ids'), ...commonList(), p.list('preroll_call_to_action_ids')], {
      description: 'list preroll calls to action',
    }),
    getOp(`${PREROLL}/:preroll_call_to_action_id`, withDeletedOnly(), { description: 'one preroll call to action' }),
    createOp(
      PREROLL,
      [
        p.enumOf('call_to_action', PREROLL_CTAS, { required: true }),
        url('call_to_action_url', { required: true }),
        p.id('line_item_id', { required: true }),
      ],
      {
        description: 'add a call to action to a PREROLL_VIEWS line item',
      },
    ),
    updateOp(
      `${PREROLL}/:preroll_call_to_action_id`,
      [p.enumOf('call_to_action', PREROLL_CTAS), url('call_to_action_url')],
      { description: 'change a preroll call to action' },
    ),
    deleteOp(`${PREROLL}/:preroll_call_to_action_id`, [], {
      description: 'delete a preroll call to action (deleted: true)',
    }),
  ],
});

// ---- media library ----

const LIB = `${A}/media_library`;
/** Media library fields that apply to videos only (the sandbox checks them against the stored type on update). */
export const VIDEO_ONLY_FIELDS = ['description', 'title', 'poster_media_key'] as const;
/** description, title and poster_media_key apply to videos only; the key's prefix tells (on add). */
const videoOnlyRule: Rule = (v) => {
  if (typeof v.media_key !== 'string' || mediaKindOfKey(v.media_key) === 'VIDEO') return undefined;
  const bad = VIDEO_ONLY_FIELDS.find((n) => v[n] !== undefined);
  return bad
    ? { param: bad, code: 'INVALID_PARAMETER', message: 'applies to videos only (media keys 7_ or 13_)' }
    : undefined;
};
const posterIsImage: Rule = (v) =>
  typeof v.poster_media_key === 'string' && mediaKindOfKey(v.poster_media_key) !== 'IMAGE'
    ? { param: 'poster_media_key', code: 'INVALID_PARAMETER', message: 'must be the media key of an image (3_)' }
    : undefined;

function libraryParams(): ParamDef[] {
  return [
    p.str('description', {
      max: MEDIA_DESCRIPTION_MAX,
      help: 'videos only; shown via video_description of the post endpoint',
    }),
    p.str('file_name', { max: MEDIA_FILE_NAME_MAX }),
    p.str('name', { max: MEDIA_NAME_MAX, help: 'label; untitled when unset' }),
    mediaKey('poster_media_key', { help: 'videos only; an image of the library' }),
    p.str('title', { max: MEDIA_TITLE_MAX, help: 'videos only; shown via video_title of the post endpoint' }),
  ];
}

const mediaLibrary = resource({
  name: 'media_library',
  dataType: 'media_library',
  noun: 'media-library',
  idParam: 'media_key',
  description: 'media library: images, GIFs and videos usable in cards and posts (by media_key)',
  columns: ['media_key', 'media_type', 'name', 'file_name', 'aspect_ratio', 'media_status', 'deleted'],
  operations: () => [
    // Listing, retrieval and adding are "not shown" in the spec; the platform's are used.
    listOp(
      LIB,
      [
        p.int('count', { min: 1, max: 50, default: 20 }),
        p.str('cursor', { min: 1 }),
        p.enumOf('media_type', ['GIF', 'IMAGE', 'VIDEO']),
        p.str('q', { min: 1, max: 255, help: 'name prefix' }),
        p.bool('with_deleted', { default: false }),
      ],
      {
        description: 'list the media library',
      },
    ),
    getOp(`${LIB}/:media_key`, withDeletedOnly(), { description: 'one media library object' }),
    createOp(LIB, [mediaKey('media_key', { required: true, help: 'key of an uploaded media' }), ...libraryParams()], {
      verb: 'add',
      description: 'add an uploaded media to the library',
      rules: [videoOnlyRule, posterIsImage],
    }),
    updateOp(`${LIB}/:media_key`, libraryParams(), {
      description: 'change name, file name, title, description or poster',
      rules: [posterIsImage],
    }),
    deleteOp(`${LIB}/:media_key`, [], { description: 'delete a media library object (deleted: true)' }),
  ],
});

// ---- post previews ----

const previews = resource({
  name: 'tweet_previews',
  dataType: 'tweet_preview',
  noun: 'previews',
  description: 'post previews (iframe markup) of draft, scheduled or published posts',
  columns: ['tweet_id', 'preview'],
  operations: () => [
    customOp(
      'list',
      'GET',
      'list',
      `${A}/tweet_previews`,
      [p.list('tweet_ids', { of: 'long', required: true }), p.enumOf('tweet_type', TWEET_TYPES, { required: true })],
      {
        description: 'previews of posts (ids must match --tweet-type, others get no preview)',
      },
    ),
  ],
});

// ---- video conversation cards ----

const CONV = `${CARDS}/video_conversation`;

function cta(name: string, required = false): ParamDef {
  const d = p.str(name, { required });
  lazySchema(
    d,
    () =>
      z.string({ error: 'must be a string' }).superRefine((s, ctx) => {
        const n = ctaLength(s);
        if (n < 1) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
        else if (n > CTA_MAX)
          ctx.addIssue({ code: 'custom', message: `must be at most ${CTA_MAX} characters, not counting # (got ${n})` });
      }) as z.ZodType<unknown>,
  );
  d.rule = `max ${CTA_MAX} chars without #`;
  return d;
}

function conversationParams(create: boolean): ParamDef[] {
  const list: ParamDef[] = [];
  for (const [i, o] of CTA_ORDINALS.entries()) {
    const req = create && i === 0;
    list.push(
      cta(`${o}_cta`, req),
      p.str(`${o}_cta_tweet`, { required: req, min: 1, help: `post text sent when ${o}_cta is tapped` }),
    );
  }
  list.push(
    mediaKey('media_key', { required: create, help: 'a 16:9 video of the library' }),
    p.str('name', { required: create, min: 1, max: CARD_NAME_MAX }),
    mediaKey('poster_media_key', { help: 'default: the first frame' }),
    p.str('thank_you_text', { required: create, min: 1, max: THANK_YOU_MAX }),
    url('thank_you_url'),
    p.str('title', { min: 1, max: THANK_YOU_MAX, help: 'required when --second-cta is not set' }),
    mediaKey('unlocked_image_media_key', { writeOnly: true }),
    mediaKey('unlocked_video_media_key'),
  );
  return list;
}

const conversationVideo: Rule = (v) =>
  typeof v.media_key === 'string' && mediaKindOfKey(v.media_key) !== 'VIDEO'
    ? { param: 'media_key', code: 'INVALID_PARAMETER', message: 'must be the media key of a video (7_ or 13_)' }
    : undefined;

const conversationCards = resource({
  name: 'conversation_cards',
  dataType: 'card',
  noun: 'conversation-cards',
  idParam: 'card_id',
  description: 'video conversation cards: a video with up to four hashtag calls to action',
  columns: ['id', 'name', 'card_uri', 'title', 'first_cta', 'second_cta', 'thank_you_text'],
  operations: () => [
    // List and retrieval are "not shown" in the spec; the platform has both.
    listOp(CONV, [p.list('card_ids'), ...commonList(), cardQ()], { description: 'list video conversation cards' }),
    getOp(`${CONV}/:card_id`, [], { description: 'one video conversation card' }),
    createOp(CONV, conversationParams(true), {
      description: 'create a video conversation card',
      rules: [...conversationRules(true), conversationVideo],
    }),
    updateOp(`${CONV}/:card_id`, conversationParams(false), {
      description: 'change a video conversation card',
      rules: [conversationVideo],
    }),
    deleteOp(`${CONV}/:card_id`, [], { description: 'delete a video conversation card for good' }),
  ],
});

// Order matters for the sandbox routes: cards/poll, cards/video_conversation and cards/all come
// before cards/:card_id.
export const RESOURCES: ResourceDef[] = [
  accountMedia,
  polls,
  conversationCards,
  cards,
  drafts,
  scheduled,
  tweets,
  prerollCtas,
  mediaLibrary,
  previews,
];
