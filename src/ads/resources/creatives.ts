// Creatives (spec 2.2, 2.3, 3, 4.1, 8): account media, cards (component based, and the legacy
// lookup), draft posts, scheduled posts, poll cards, preroll calls to action, the media library,
// post previews and video conversation cards. Rules shared with the sandbox are in ../rules/cards.ts.
import { z } from 'zod';
import type { ParamDef, ResourceDef, Rule, SandboxOps, AdsCollection } from '../resource-types.js';
import { commonList, p } from '../params.js';
import { isoSeconds, parseIsoTime } from '../../contract/time.js';
import { createOp, customOp, deleteOp, getOp, listOp, updateOp } from '../ops.js';
import {
  CTA_MAX, CTA_ORDINALS, MEDIA_KEY, POLL_CHOICE_MAX, POLL_MAX_MINUTES, POLL_MIN_MINUTES, SCHEDULE_MAX_MS, THANK_YOU_MAX,
  attachmentProblem, cardMediaKeys, cardTypeOf, clearable, componentsSchema, conversationCardProblem, conversationRules,
  ctaLength, longId, mediaKeysRule, mediaKindOfKey, oneOfComponentsOrSlides, pollChoiceOrder, slidesSchema, toMinute,
  type MediaKind,
} from '../rules/cards.js';

const A = '/accounts/:account_id';
type Rec = Record<string, unknown> & { id: string };

/** Spec 4.1 account media creative_types. */
export const CREATIVE_TYPES = [
  'BANNER', 'BANNER_TABLET', 'INTERSTITIAL', 'INTERSTITIAL_LANDSCAPE', 'INTERSTITIAL_LANDSCAPE_TABLET', 'INTERSTITIAL_TABLET',
  'MEDIUM_RECTANGLE', 'PREROLL', 'VAST_PREROLL',
] as const;
/** Spec 2.2 component-based card types. */
export const CARD_TYPES = [
  'IMAGE_APP', 'IMAGE_CAROUSEL_APP', 'IMAGE_CAROUSEL_WEBSITE', 'IMAGE_MULTI_DEST_CAROUSEL_WEBSITE', 'IMAGE_WEBSITE',
  'MIXED_MEDIA_MULTI_DEST_CAROUSEL_WEBSITE', 'MIXED_MEDIA_SINGLE_DEST_CAROUSEL_APP', 'MIXED_MEDIA_SINGLE_DEST_CAROUSEL_WEBSITE',
  'VIDEO_APP', 'VIDEO_CAROUSEL_APP', 'VIDEO_CAROUSEL_WEBSITE', 'VIDEO_MULTI_DEST_CAROUSEL_WEBSITE', 'VIDEO_WEBSITE',
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
const url = (name: string, o: { required?: boolean; help?: string } = {}) => p.str(name, { ...o, max: 2048, pattern: /^https?:\/\/\S+$/, patternRule: 'an http(s) URL' });
const mediaKey = (name: string, o: { required?: boolean; help?: string; writeOnly?: boolean } = {}) =>
  p.str(name, { ...o, pattern: MEDIA_KEY, patternRule: 'a media key such as 3_1234567890' });
const cardUri = (name = 'card_uri') => p.str(name, { pattern: /^card:\/\/[A-Za-z0-9_-]{1,64}$/, patternRule: 'a card URI such as card://1234' });
const mediaKeys = () => p.list('media_keys', { max: 4, pattern: MEDIA_KEY, patternRule: 'a media key such as 3_1234567890', help: 'up to 4 images, or 1 GIF, or 1 video, from the media library' });

// ---- sandbox helpers (no sandbox imports: hooks get SandboxOps) ----

const LIBRARY = 'media_library';
const CARD_COLLECTIONS: AdsCollection[] = ['cards', 'poll_cards', 'conversation_cards'];

function libraryItem(ops: SandboxOps, key: string, param: string): Rec {
  const m = ops.collection(LIBRARY).get(key);
  if (!m || m.account_id !== ops.accountId || m.deleted) ops.fail(400, 'INVALID_PARAMETER', `${param}: media ${key} is not in the media library of the account`, param);
  return m;
}
const kindOf = (m: Record<string, unknown>) => m.media_type as MediaKind;

/** Spec 8 attachments, checked against what the library says each key is. */
function checkAttachments(ops: SandboxOps, keys: unknown, param = 'media_keys'): void {
  if (!Array.isArray(keys)) return;
  const problem = attachmentProblem(keys.map((k) => kindOf(libraryItem(ops, String(k), param))));
  if (problem) ops.fail(400, 'INVALID_PARAMETER', `${param} ${problem}`, param);
}

/** A card of the account in any card collection (component, poll, conversation). */
function findAnyCard(ops: SandboxOps, id: string, withDeleted: boolean): Rec | undefined {
  for (const name of CARD_COLLECTIONS) {
    const e = ops.collection(name).get(id);
    if (e && e.account_id === ops.accountId && (withDeleted || !e.deleted)) return e;
  }
  return undefined;
}

/** A card_uri must name a live card of the account (component, poll or conversation card). */
function checkCardUri(ops: SandboxOps, uri: unknown): void {
  if (typeof uri !== 'string') return;
  if (!findAnyCard(ops, uri.slice('card://'.length), false)) ops.fail(400, 'INVALID_PARAMETER', `card_uri ${uri} is not a card of this account`, 'card_uri');
}

/** The account's FULL promotable user: the default user_id of draft and scheduled post lists. */
function fullUser(ops: SandboxOps): string | undefined {
  for (const u of ops.collection('promotable_users').values()) if (u.account_id === ops.accountId && !u.deleted && u.promotable_user_type === 'FULL') return String(u.user_id);
  return undefined;
}

/** as_user_id must be an advertiser who granted the caller access: a promotable user of the account. */
function checkAsUser(ops: SandboxOps, uid: unknown): void {
  for (const u of ops.collection('promotable_users').values()) if (u.account_id === ops.accountId && !u.deleted && u.user_id === uid) return;
  ops.fail(403, 'UNAUTHORIZED_ACCESS', `as_user_id ${String(uid)} has not granted this account access (not a promotable user of it)`, 'as_user_id');
}

/** An enum-list filter (creative_types, card_types): absent, or the record's value is listed. */
const inList = (list: unknown, value: unknown) => !Array.isArray(list) || list.includes(value);

const byUser = (e: Record<string, unknown>, ops: SandboxOps) => ops.values.user_id !== undefined || e.user_id === fullUser(ops);

// ---- account media ----

const accountMedia: ResourceDef = {
  name: 'account_media',
  dataType: 'account_media',
  noun: 'account-media',
  idParam: 'account_media_id',
  description: 'account media: images and videos of the account, by creative type',
  columns: ['id', 'creative_type', 'media_url', 'video_id', 'created_at', 'deleted'],
  operations: [
    listOp(`${A}/account_media`, [p.list('account_media_ids'), ...commonList(), p.list('creative_types', { of: CREATIVE_TYPES })], { description: 'list account media' }),
    getOp(`${A}/account_media/:account_media_id`, withDeletedOnly(), { description: 'one account media object' }),
    deleteOp(`${A}/account_media/:account_media_id`, [], { description: 'delete an account media object (deleted: true)' }),
  ],
  sandbox: { listFilter: (e, ops) => inList(ops.values.creative_types, e.creative_type) },
};

// ---- cards (component based) ----

const CARDS = `${A}/cards`;
const cardQ = () => p.str('q', { min: 1, max: CARD_Q_MAX, help: 'name prefix, case-insensitive' });
const cardUris = (o: { required?: boolean } = {}) =>
  p.list('card_uris', { ...o, pattern: /^card:\/\/[A-Za-z0-9_-]{1,64}$/, patternRule: 'a card URI such as card://1234' });

function cardBody(create: boolean): ParamDef[] {
  return [
    p.str('name', { required: create, min: 1, max: CARD_NAME_MAX }),
    p.json('components', componentsSchema, { rule: 'array of components (spec 2.3)' }),
    p.json('slides', slidesSchema, { rule: 'array of 2-6 slides, each an array of components' }),
  ];
}

/** Checks a card's media against the library and derives its card_type. */
function shapeCard(entity: Record<string, unknown>, ops: SandboxOps): void {
  const keys = cardMediaKeys(entity.components, entity.slides);
  const kinds = keys.map((k) => kindOf(libraryItem(ops, k, entity.slides !== undefined && entity.slides !== null ? 'slides' : 'components')));
  // Spec 2.3: a MEDIA component holds one video or image.
  if (kinds.includes('GIF')) ops.fail(400, 'INVALID_PARAMETER', 'card media must be images or videos (an animated GIF is neither)', 'components');
  entity.card_type = cardTypeOf(entity.components ?? undefined, entity.slides ?? undefined, kinds);
}

/** The legacy-style view of a card (GET cards/all): flat fields, numbers as strings (spec 2.2). */
function legacyCard(c: Rec, ops: SandboxOps): Record<string, unknown> {
  const base = { id: c.id, name: c.name, card_uri: c.card_uri, created_at: c.created_at, updated_at: c.updated_at, deleted: c.deleted };
  // Poll and conversation cards are legacy-style already (numbers as strings, spec 2.2).
  if (!c.components && !c.slides) return c.duration_in_minutes === undefined ? { ...c } : { ...c, duration_in_minutes: String(c.duration_in_minutes) };
  const comps = ((c.components as Rec[] | undefined) ?? (c.slides as Rec[][])[0]!) as Array<Record<string, any>>;
  const action = comps.find((x) => x.type === 'DETAILS' || x.type === 'BUTTON')!;
  const key = cardMediaKeys(comps, undefined)[0]!;
  const m: Record<string, unknown> = ops.collection(LIBRARY).get(key) ?? {};
  const video = m.media_type === 'VIDEO';
  const d = action.destination as Record<string, string>;
  if (d.type === 'APP') {
    return {
      ...base,
      card_type: video ? 'VIDEO_APP_DOWNLOAD' : 'IMAGE_APP_DOWNLOAD',
      country_code: d.country_code,
      ...(d.googleplay_app_id ? { googleplay_app_id: d.googleplay_app_id } : {}),
      ...(d.ios_app_store_identifier ? { ios_app_store_identifier: d.ios_app_store_identifier } : {}),
      wide_app_image: m.media_url ?? null,
      image_display_height: String(m._height ?? ''),
      image_display_width: String(m._width ?? ''),
      app_cta: action.label?.value,
    };
  }
  const host = /^https?:\/\/([^/]+)/.exec(d.url)?.[1] ?? d.url;
  const out: Record<string, unknown> = {
    ...base,
    card_type: video ? 'VIDEO_WEBSITE' : 'IMAGE_WEBSITE',
    title: action.title,
    website_url: d.url,
    website_shortened_url: `https://t.co/${c.id}`,
    website_display_url: host,
    website_dest_url: d.url,
  };
  if (video) {
    Object.assign(out, {
      video_url: m.media_url,
      video_hls_url: String(m.media_url).replace(/\.mp4$/, '.m3u8'),
      video_content_id: key,
      video_owner_id: ops.userId,
      video_width: String(m._width),
      video_height: String(m._height),
      content_duration_seconds: String(Math.round(Number(m.duration ?? 0) / 1000)),
      video_poster_url: m.poster_media_url,
      video_poster_width: String(m._width),
      video_poster_height: String(m._height),
    });
  } else out.image = m.media_url;
  return out;
}

const cards: ResourceDef = {
  name: 'cards',
  dataType: 'card',
  noun: 'cards',
  idParam: 'card_id',
  description: 'cards (component based): media plus a website DETAILS or an app BUTTON; carousels',
  columns: ['id', 'name', 'card_type', 'card_uri', 'created_at', 'deleted'],
  operations: [
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
        sandbox: (ops) => {
          const v = ops.values;
          const names: AdsCollection[] = v.include_legacy_cards === true ? CARD_COLLECTIONS : ['cards'];
          return names.flatMap((n) => [...ops.collection(n).values()]).filter(
            (e) =>
              e.account_id === ops.accountId &&
              (v.with_deleted === true || !e.deleted) &&
              inList(v.card_id, e.id) &&
              inList(v.card_types, e.card_type) &&
              inList(v.card_uris, e.card_uri) &&
              (typeof v.q !== 'string' || String(e.name ?? '').toLowerCase().startsWith(v.q.toLowerCase())),
          );
        },
      },
    ),
    // Before GET cards/:card_id, so that `all` is not taken for an id (routes match in order).
    customOp('all', 'GET', 'list', `${CARDS}/all`, [cardUris({ required: true }), p.bool('with_deleted', { default: false })], {
      description: 'legacy-style cards by card URI (any card type)',
      columns: ['id', 'name', 'card_type', 'card_uri', 'deleted'],
      sandbox: (ops) => {
        const out: Array<Record<string, unknown>> = [];
        for (const uri of ops.values.card_uris as string[]) {
          const c = findAnyCard(ops, uri.slice('card://'.length), ops.values.with_deleted === true);
          if (c) out.push(legacyCard(c, ops));
        }
        return out;
      },
    }),
    customOp('all-get', 'GET', 'one', `${CARDS}/all/:card_id`, withDeletedOnly(), {
      description: 'one card, legacy style',
      sandbox: (ops) => {
        const c = findAnyCard(ops, ops.id!, ops.values.with_deleted === true);
        if (!c) return ops.fail(404, 'NOT_FOUND', `card_id ${ops.id} was not found`, 'card_id');
        return legacyCard(c, ops);
      },
    }),
    getOp(`${CARDS}/:card_id`, withDeletedOnly(), { description: 'one card' }),
    Object.assign(createOp(CARDS, cardBody(true), { description: 'create a card (--file card.json: name and components or slides)', rules: [oneOfComponentsOrSlides(true)] }), { body: 'json' as const }),
    Object.assign(updateOp(`${CARDS}/:card_id`, cardBody(false), { description: 'replace name, components or slides (--file)', rules: [oneOfComponentsOrSlides(false)] }), { body: 'json' as const }),
    deleteOp(`${CARDS}/:card_id`, [], { description: 'delete a card (deleted: true)' }),
  ],
  sandbox: {
    create(entity, ops) {
      entity.card_uri = `card://${entity.id}`;
      shapeCard(entity, ops);
    },
    update(entity, before, ops) {
      // Each supplied field replaces the stored one; components and slides replace each other.
      if (ops.values.components !== undefined) delete entity.slides;
      if (ops.values.slides !== undefined) delete entity.components;
      shapeCard(entity, ops);
    },
  },
};

// ---- draft and scheduled posts ----

const textOrMedia: Rule = (v) =>
  v.text === undefined && (v.media_keys === undefined || v.media_keys === null) ? { param: 'text', code: 'MISSING_PARAMETER', message: 'is required when media_keys is not given' } : undefined;

function postParams(create: boolean, scheduled: boolean): ParamDef[] {
  const list: ParamDef[] = [];
  if (scheduled) list.push(scheduledAt(create));
  if (create) list.push(p.long('as_user_id', { required: true, help: 'the advertiser on whose behalf (has granted access to your handle)' }));
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
  return p.time('scheduled_at', { required, help: 'when to post: at most one year ahead, minute granularity (seconds ignored)' });
}

/** Spec 4.1/8: scheduled_at at most one year ahead (compared at minute granularity). */
export const withinAYear: Rule = (v, env) => {
  if (typeof v.scheduled_at !== 'string') return undefined;
  const t = toMinute(parseIsoTime(v.scheduled_at)!);
  return t - (env?.nowMs ?? Date.now()) > SCHEDULE_MAX_MS ? { param: 'scheduled_at', code: 'INVALID_PARAMETER', message: 'must be at most one year ahead' } : undefined;
};

const postRules = (create: boolean): Rule[] => [...(create ? [textOrMedia] : []), mediaKeysRule()];

function checkPost(entity: Record<string, unknown>, ops: SandboxOps): void {
  checkAttachments(ops, entity.media_keys);
  checkCardUri(ops, entity.card_uri);
  if (entity.media_keys === null || entity.media_keys === undefined) entity.media_keys = [];
  if (entity.card_uri === undefined) entity.card_uri = null;
}

/** A new draft or scheduled post: a long id, posted as as_user_id (spec 4.1). */
function newPost(entity: Record<string, unknown>, ops: SandboxOps): void {
  checkAsUser(ops, entity.as_user_id);
  entity.id = longId(ops.nowMs());
  entity.user_id = entity.as_user_id;
  delete entity.as_user_id;
  entity.name ??= null;
  checkPost(entity, ops);
}

const drafts: ResourceDef = {
  name: 'draft_tweets',
  dataType: 'draft_tweet',
  noun: 'drafts',
  idParam: 'draft_tweet_id',
  description: 'draft posts: prepared posts of an advertiser, not yet posted',
  columns: ['id', 'name', 'text', 'user_id', 'card_uri', 'media_keys', 'updated_at'],
  operations: [
    listOp(`${A}/draft_tweets`, [p.int('count', { min: 1, max: 200, default: 100 }), p.str('cursor', { min: 1 }), p.long('user_id', { help: "default: the account's FULL promotable user" })], { description: 'list draft posts' }),
    getOp(`${A}/draft_tweets/:draft_tweet_id`, [], { description: 'one draft post' }),
    createOp(`${A}/draft_tweets`, postParams(true, false), { description: 'create a draft post', rules: postRules(true) }),
    updateOp(`${A}/draft_tweets/:draft_tweet_id`, postParams(false, false), { description: "change a draft post (--card-uri '' removes the card)", rules: postRules(false) }),
  ],
  sandbox: {
    create(entity, ops) {
      newPost(entity, ops);
    },
    update: (entity, _before, ops) => checkPost(entity, ops),
    listFilter: byUser,
  },
};

/**
 * Completes a scheduled post at its scheduled_at on the sandbox clock (spec 3: SUCCESS with
 * completed_at and tweet_id). `due` is the scheduled_at the job was armed for: a post moved since
 * (or deleted, or done) is left to its own job.
 */
export function scheduleCompletion(coll: Map<string, Record<string, unknown>>, id: string, due: number, at: (ms: number, fn: () => void) => void, nowMs: () => number): void {
  // Node timers cannot wait longer than 2^31-1 ms (~24.8 days): wake up early and re-arm.
  at(Math.min(due, nowMs() + 2 ** 31 - 1), () => {
    const cur = coll.get(id);
    if (!cur || cur.scheduled_status !== 'SCHEDULED' || parseIsoTime(String(cur.scheduled_at)) !== due) return;
    if (nowMs() < due) return scheduleCompletion(coll, id, due, at, nowMs);
    cur.scheduled_status = 'SUCCESS';
    cur.completed_at = isoSeconds(nowMs());
    cur.tweet_id = longId(nowMs());
    cur.updated_at = cur.completed_at;
  });
}

function setScheduledAt(entity: Record<string, unknown>, ops: SandboxOps): void {
  // Minute granularity: seconds are ignored.
  const t = toMinute(parseIsoTime(String(entity.scheduled_at))!);
  if (t <= toMinute(ops.nowMs())) ops.fail(400, 'INVALID_PARAMETER', 'scheduled_at must be in the future', 'scheduled_at');
  entity.scheduled_at = isoSeconds(t);
}

const scheduled: ResourceDef = {
  name: 'scheduled_tweets',
  dataType: 'scheduled_tweet',
  noun: 'scheduled',
  idParam: 'scheduled_tweet_id',
  description: 'scheduled posts: SCHEDULED until scheduled_at, then SUCCESS with tweet_id',
  columns: ['id', 'name', 'text', 'scheduled_at', 'scheduled_status', 'tweet_id', 'completed_at'],
  operations: [
    listOp(`${A}/scheduled_tweets`, [p.int('count', { min: 1, max: 200, default: 100 }), p.str('cursor', { min: 1 }), p.long('user_id', { help: "default: the account's FULL promotable user" })], { description: 'list scheduled posts' }),
    getOp(`${A}/scheduled_tweets/:scheduled_tweet_id`, [], { description: 'one scheduled post' }),
    createOp(`${A}/scheduled_tweets`, postParams(true, true), { description: 'schedule a post', rules: [...postRules(true), withinAYear] }),
    updateOp(`${A}/scheduled_tweets/:scheduled_tweet_id`, postParams(false, true), { description: "change a scheduled post (--card-uri '' / --media-keys '' remove)", rules: [...postRules(false), withinAYear] }),
    deleteOp(`${A}/scheduled_tweets/:scheduled_tweet_id`, [], { description: 'delete a scheduled post for good (answers scheduled_status DELETED)' }),
  ],
  sandbox: {
    deleteMode: 'hard',
    create(entity, ops) {
      newPost(entity, ops);
      setScheduledAt(entity, ops);
      Object.assign(entity, { scheduled_status: 'SCHEDULED', completed_at: null, tweet_id: null });
      // The entity is stored after this hook returns; the job looks it up when it runs.
      scheduleCompletion(ops.collection('scheduled_tweets'), entity.id as string, parseIsoTime(String(entity.scheduled_at))!, ops.at, ops.nowMs);
    },
    update(entity, before, ops) {
      if (before.scheduled_status !== 'SCHEDULED') ops.fail(400, 'INVALID_PARAMETER', `the post is ${String(before.scheduled_status)}: only SCHEDULED posts can change`, 'scheduled_tweet_id');
      checkPost(entity, ops);
      if (ops.values.scheduled_at !== undefined) {
        setScheduledAt(entity, ops);
        scheduleCompletion(ops.collection('scheduled_tweets'), entity.id as string, parseIsoTime(String(entity.scheduled_at))!, ops.at, ops.nowMs);
      }
    },
    // Spec 3: a SCHEDULED post is hard-deleted; the answer shows DELETED.
    delete(entity, ops) {
      if (entity.scheduled_status !== 'SCHEDULED') ops.fail(400, 'INVALID_PARAMETER', `the post is ${String(entity.scheduled_status)}: only SCHEDULED posts can be deleted`, 'scheduled_tweet_id');
      entity.scheduled_status = 'DELETED';
    },
    listFilter: byUser,
  },
};

// ---- poll cards ----

const POLLS = `${CARDS}/poll`;
const choice = (name: string, required = false) => p.str(name, { required, min: 1, max: POLL_CHOICE_MAX });

/** Poll media: an image (or a video) in the library; GIFs are not poll media. */
const pollMediaKind: Rule = (v) =>
  typeof v.media_key === 'string' && !['IMAGE', 'VIDEO'].includes(mediaKindOfKey(v.media_key) ?? '')
    ? { param: 'media_key', code: 'INVALID_PARAMETER', message: 'must be the media key of an image (3_) or a video (7_, 13_)' }
    : undefined;

const polls: ResourceDef = {
  name: 'poll_cards',
  dataType: 'card',
  noun: 'polls',
  idParam: 'card_id',
  description: 'poll cards: 2-4 choices, open for duration_in_minutes from creation (no update)',
  columns: ['id', 'name', 'card_type', 'first_choice', 'second_choice', 'duration_in_minutes', 'end_time', 'closed'],
  operations: [
    listOp(POLLS, [p.list('card_ids'), ...commonList(), cardQ()], { description: 'list poll cards' }),
    getOp(`${POLLS}/:card_id`, withDeletedOnly(), { description: 'one poll card' }),
    createOp(
      POLLS,
      [
        p.int('duration_in_minutes', { required: true, min: POLL_MIN_MINUTES, max: POLL_MAX_MINUTES, help: 'counted from creation' }),
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
  sandbox: {
    deleteMode: 'hard',
    create(entity, ops) {
      const minutes = entity.duration_in_minutes as number;
      const start = ops.nowMs();
      entity.card_uri = `card://${entity.id}`;
      entity.card_type = 'TEXT_POLLS';
      const key = ops.values.media_key as string | undefined;
      if (key) {
        const m = libraryItem(ops, key, 'media_key');
        if (m.media_type === 'IMAGE') {
          // Spec 4.1: an image at least 800 px wide with width:height 1.91:1.
          const w = Number(m._width);
          const h = Number(m._height);
          if (w < 800 || Math.abs(w / h - 1.91) > 0.01) ops.fail(400, 'INVALID_PARAMETER', `media_key must be an image at least 800 px wide with width:height 1.91:1 (got ${w}x${h})`, 'media_key');
          entity.card_type = 'IMAGE_POLLS';
          entity.media_url = m.media_url;
        } else if (m.media_type === 'VIDEO') {
          entity.card_type = 'VIDEO_POLLS';
          Object.assign(entity, { video_url: m.media_url, video_poster_url: m.poster_media_url, video_width: String(m._width), video_height: String(m._height), content_duration_seconds: String(Math.round(Number(m.duration) / 1000)) });
        } else ops.fail(400, 'INVALID_PARAMETER', 'media_key must be an image or a video', 'media_key');
      }
      // Spec 3: open from creation; end_time = creation + duration; closes then (sandbox clock).
      const end = start + minutes * 60_000;
      Object.assign(entity, { start_time: isoSeconds(start), end_time: isoSeconds(end), closed: false });
      const coll = ops.collection('poll_cards');
      const id = entity.id as string;
      ops.at(end, () => {
        const cur = coll.get(id);
        if (cur) cur.closed = true;
      });
    },
    // duration_in_minutes is a string in responses (spec 2.2).
    present: (e) => ({ ...e, duration_in_minutes: String(e.duration_in_minutes) }),
  },
};

// ---- preroll calls to action ----

const PREROLL = `${A}/preroll_call_to_actions`;
const prerollCtas: ResourceDef = {
  name: 'preroll_call_to_actions',
  dataType: 'preroll_call_to_action',
  noun: 'preroll-ctas',
  idParam: 'preroll_call_to_action_id',
  description: 'preroll calls to action of PREROLL_VIEWS line items',
  columns: ['id', 'line_item_id', 'call_to_action', 'call_to_action_url', 'deleted'],
  operations: [
    listOp(PREROLL, [p.list('line_item_ids'), ...commonList(), p.list('preroll_call_to_action_ids')], { description: 'list preroll calls to action' }),
    getOp(`${PREROLL}/:preroll_call_to_action_id`, withDeletedOnly(), { description: 'one preroll call to action' }),
    createOp(PREROLL, [p.enumOf('call_to_action', PREROLL_CTAS, { required: true }), url('call_to_action_url', { required: true }), p.id('line_item_id', { required: true })], {
      description: 'add a call to action to a PREROLL_VIEWS line item',
    }),
    updateOp(`${PREROLL}/:preroll_call_to_action_id`, [p.enumOf('call_to_action', PREROLL_CTAS), url('call_to_action_url')], { description: 'change a preroll call to action' }),
    deleteOp(`${PREROLL}/:preroll_call_to_action_id`, [], { description: 'delete a preroll call to action (deleted: true)' }),
  ],
  sandbox: {
    create(entity, ops) {
      const li = ops.find('line_items', String(entity.line_item_id), { parameter: 'line_item_id' });
      if (li.objective !== 'PREROLL_VIEWS') ops.fail(400, 'INCOMPATIBLE_LINE_ITEM', `line item ${li.id} has objective ${String(li.objective)}: preroll calls to action need PREROLL_VIEWS`, 'line_item_id');
    },
  },
};

// ---- media library ----

const LIB = `${A}/media_library`;
const videoOnly = ['description', 'title', 'poster_media_key'];
/** description, title and poster_media_key apply to videos only; the key's prefix tells (on add). */
const videoOnlyRule: Rule = (v) => {
  if (typeof v.media_key !== 'string' || mediaKindOfKey(v.media_key) === 'VIDEO') return undefined;
  const bad = videoOnly.find((n) => v[n] !== undefined);
  return bad ? { param: bad, code: 'INVALID_PARAMETER', message: 'applies to videos only (media keys 7_ or 13_)' } : undefined;
};
const posterIsImage: Rule = (v) =>
  typeof v.poster_media_key === 'string' && mediaKindOfKey(v.poster_media_key) !== 'IMAGE'
    ? { param: 'poster_media_key', code: 'INVALID_PARAMETER', message: 'must be the media key of an image (3_)' }
    : undefined;

function libraryParams(): ParamDef[] {
  return [
    p.str('description', { max: MEDIA_DESCRIPTION_MAX, help: 'videos only; shown via video_description of the post endpoint' }),
    p.str('file_name', { max: MEDIA_FILE_NAME_MAX }),
    p.str('name', { max: MEDIA_NAME_MAX, help: 'label; untitled when unset' }),
    mediaKey('poster_media_key', { help: 'videos only; an image of the library' }),
    p.str('title', { max: MEDIA_TITLE_MAX, help: 'videos only; shown via video_title of the post endpoint' }),
  ];
}

function checkLibraryUpdate(entity: Record<string, unknown>, ops: SandboxOps): void {
  if (entity.media_type !== 'VIDEO') {
    const bad = videoOnly.find((n) => ops.values[n] !== undefined);
    if (bad) ops.fail(400, 'INVALID_PARAMETER', `${bad} applies to videos only`, bad);
  }
  if (typeof ops.values.poster_media_key === 'string') {
    const poster = libraryItem(ops, ops.values.poster_media_key, 'poster_media_key');
    if (poster.media_type !== 'IMAGE') ops.fail(400, 'INVALID_PARAMETER', 'poster_media_key must be an image of the library', 'poster_media_key');
    entity.poster_media_url = poster.media_url;
  }
}

/** What a media key of each category looks like in the sandbox library (an upload stand-in). */
export function libraryDefaults(key: string): Record<string, unknown> | undefined {
  const kind = mediaKindOfKey(key);
  const id = key.split('_')[1];
  if (kind === 'IMAGE') return { media_type: 'IMAGE', media_category: 'TWEET_IMAGE', media_url: `https://pbs.example/media/${id}.jpg`, aspect_ratio: '1.91:1', duration: null, _width: 1200, _height: 628 };
  if (kind === 'GIF') return { media_type: 'GIF', media_category: 'TWEET_GIF', media_url: `https://video.example/tweet_video/${id}.mp4`, aspect_ratio: '16:9', duration: 3000, _width: 480, _height: 270 };
  if (kind === 'VIDEO') {
    return {
      media_type: 'VIDEO',
      media_category: key.startsWith('13_') ? 'AMPLIFY_VIDEO' : 'TWEET_VIDEO',
      media_url: `https://video.example/amplify_video/${id}/vid/1280x720/${id}.mp4`,
      aspect_ratio: '16:9',
      duration: 15000,
      _width: 1280,
      _height: 720,
    };
  }
  return undefined;
}

const mediaLibrary: ResourceDef = {
  name: 'media_library',
  dataType: 'media_library',
  noun: 'media-library',
  idParam: 'media_key',
  description: 'media library: images, GIFs and videos usable in cards and posts (by media_key)',
  columns: ['media_key', 'media_type', 'name', 'file_name', 'aspect_ratio', 'media_status', 'deleted'],
  operations: [
    // Listing, retrieval and adding are "not shown" in the spec; the platform's are used.
    listOp(LIB, [p.int('count', { min: 1, max: 50, default: 20 }), p.str('cursor', { min: 1 }), p.enumOf('media_type', ['GIF', 'IMAGE', 'VIDEO']), p.str('q', { min: 1, max: 255, help: 'name prefix' }), p.bool('with_deleted', { default: false })], {
      description: 'list the media library',
    }),
    getOp(`${LIB}/:media_key`, withDeletedOnly(), { description: 'one media library object' }),
    createOp(LIB, [mediaKey('media_key', { required: true, help: 'key of an uploaded media' }), ...libraryParams()], { verb: 'add', description: 'add an uploaded media to the library', rules: [videoOnlyRule, posterIsImage] }),
    updateOp(`${LIB}/:media_key`, libraryParams(), { description: 'change name, file name, title, description or poster', rules: [posterIsImage] }),
    deleteOp(`${LIB}/:media_key`, [], { description: 'delete a media library object (deleted: true)' }),
  ],
  sandbox: {
    create(entity, ops) {
      const key = String(entity.media_key);
      if (ops.collection(LIBRARY).has(key)) ops.fail(400, 'INVALID_PARAMETER', `media_key ${key} is already in the media library`, 'media_key');
      const defaults = libraryDefaults(key);
      if (!defaults) ops.fail(400, 'INVALID_PARAMETER', 'media_key must be an image (3_), GIF (16_) or video (7_, 13_) key', 'media_key');
      entity.id = key;
      Object.assign(entity, { name: null, file_name: null, description: null, title: null, poster_media_key: null, poster_media_url: null, ...defaults }, pick(entity, ['name', 'file_name', 'description', 'title', 'poster_media_key']));
      Object.assign(entity, { tweeted: false, media_status: 'TRANSCODE_COMPLETED' });
      checkLibraryUpdate(entity, ops);
    },
    update: (entity, _before, ops) => checkLibraryUpdate(entity, ops),
    listFilter: (e, ops) => ops.values.media_type === undefined || e.media_type === ops.values.media_type,
    present: (e) => {
      const { id: _id, account_id: _a, ...rest } = e;
      return rest;
    },
  },
};

function pick(e: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => e[k] !== undefined && e[k] !== null).map((k) => [k, e[k]]));
}

// ---- post previews ----

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const previews: ResourceDef = {
  name: 'tweet_previews',
  dataType: 'tweet_preview',
  noun: 'previews',
  description: 'post previews (iframe markup) of draft, scheduled or published posts',
  columns: ['tweet_id', 'preview'],
  operations: [
    customOp('list', 'GET', 'list', `${A}/tweet_previews`, [p.list('tweet_ids', { of: 'long', required: true }), p.enumOf('tweet_type', TWEET_TYPES, { required: true })], {
      description: 'previews of posts (ids must match --tweet-type, others get no preview)',
      sandbox: (ops) => {
        const type = ops.values.tweet_type as string;
        const out: Array<Record<string, unknown>> = [];
        for (const tid of ops.values.tweet_ids as string[]) {
          const post = findPost(ops, type, tid);
          if (!post) continue;
          const text = escapeHtml(String(post.text ?? ''));
          out.push({ id: tid, tweet_id: tid, preview: `<iframe class="tweet-preview" data-tweet-type="${type}" data-card-uri="${escapeHtml(String(post.card_uri ?? ''))}" srcdoc="<p>${text}</p>" width="560" height="400"></iframe>` });
        }
        return out;
      },
    }),
  ],
  sandbox: { present: ({ id: _id, ...rest }) => rest },
};

/** A draft (DRAFT), a scheduled post not yet out (SCHEDULED), or a post that went out (PUBLISHED, by its tweet_id). */
function findPost(ops: SandboxOps, type: string, tid: string): Record<string, unknown> | undefined {
  const mine = (e: Record<string, unknown> | undefined) => (e && e.account_id === ops.accountId ? e : undefined);
  if (type === 'DRAFT') return mine(ops.collection('draft_tweets').get(tid));
  if (type === 'SCHEDULED') {
    const e = mine(ops.collection('scheduled_tweets').get(tid));
    return e?.scheduled_status === 'SCHEDULED' ? e : undefined;
  }
  for (const e of ops.collection('scheduled_tweets').values()) if (e.tweet_id === tid && mine(e)) return e;
  return undefined;
}

// ---- video conversation cards ----

const CONV = `${CARDS}/video_conversation`;

function cta(name: string, required = false): ParamDef {
  const d = p.str(name, { required });
  d.schema = z.string({ error: 'must be a string' }).superRefine((s, ctx) => {
    const n = ctaLength(s);
    if (n < 1) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    else if (n > CTA_MAX) ctx.addIssue({ code: 'custom', message: `must be at most ${CTA_MAX} characters, not counting # (got ${n})` });
  }) as z.ZodType<unknown>;
  d.rule = `max ${CTA_MAX} chars without #`;
  return d;
}

function conversationParams(create: boolean): ParamDef[] {
  const list: ParamDef[] = [];
  for (const [i, o] of CTA_ORDINALS.entries()) {
    const req = create && i === 0;
    list.push(cta(`${o}_cta`, req), p.str(`${o}_cta_tweet`, { required: req, min: 1, help: `post text sent when ${o}_cta is tapped` }));
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
  typeof v.media_key === 'string' && mediaKindOfKey(v.media_key) !== 'VIDEO' ? { param: 'media_key', code: 'INVALID_PARAMETER', message: 'must be the media key of a video (7_ or 13_)' } : undefined;

function shapeConversation(entity: Record<string, unknown>, ops: SandboxOps): void {
  const bad = conversationCardProblem(entity);
  if (bad) ops.fail(400, bad.code, `${bad.param} ${bad.message}`, bad.param);
  const m = libraryItem(ops, String(entity.media_key), 'media_key');
  if (m.media_type !== 'VIDEO' || m.aspect_ratio !== '16:9') ops.fail(400, 'INVALID_PARAMETER', `media_key must be a 16:9 video (got ${String(m.media_type)} ${String(m.aspect_ratio)})`, 'media_key');
  let poster: unknown = m.poster_media_url ?? `${String(m.media_url).replace(/\.mp4$/, '')}.jpg`;
  if (typeof entity.poster_media_key === 'string') poster = libraryItem(ops, entity.poster_media_key, 'poster_media_key').media_url;
  Object.assign(entity, { media_url: m.media_url, poster_media_url: poster, video_width: String(m._width), video_height: String(m._height), video_owner_id: ops.userId });
}

const conversationCards: ResourceDef = {
  name: 'conversation_cards',
  dataType: 'card',
  noun: 'conversation-cards',
  idParam: 'card_id',
  description: 'video conversation cards: a video with up to four hashtag calls to action',
  columns: ['id', 'name', 'card_uri', 'title', 'first_cta', 'second_cta', 'thank_you_text'],
  operations: [
    // List and retrieval are "not shown" in the spec; the platform has both.
    listOp(CONV, [p.list('card_ids'), ...commonList(), cardQ()], { description: 'list video conversation cards' }),
    getOp(`${CONV}/:card_id`, [], { description: 'one video conversation card' }),
    createOp(CONV, conversationParams(true), { description: 'create a video conversation card', rules: [...conversationRules(true), conversationVideo] }),
    updateOp(`${CONV}/:card_id`, conversationParams(false), { description: 'change a video conversation card', rules: [conversationVideo] }),
    deleteOp(`${CONV}/:card_id`, [], { description: 'delete a video conversation card for good' }),
  ],
  sandbox: {
    deleteMode: 'hard',
    create(entity, ops) {
      entity.card_uri = `card://${entity.id}`;
      entity.card_type = 'VIDEO_CONVERSATION';
      shapeConversation(entity, ops);
    },
    update: (entity, _before, ops) => shapeConversation(entity, ops),
  },
};

// Order matters for the sandbox routes: cards/poll, cards/video_conversation and cards/all come
// before cards/:card_id.
export const RESOURCES: ResourceDef[] = [accountMedia, polls, conversationCards, cards, drafts, scheduled, prerollCtas, mediaLibrary, previews];
