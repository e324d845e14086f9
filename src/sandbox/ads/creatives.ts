// Creatives (src/ads/resources/creatives.ts) in the sandbox: media checked against the account's
// media library, card types derived from their media, the legacy view of every card kind, posts
// posted as a promotable user, scheduled posts completed on the sandbox clock, polls that close,
// previews. The media library itself is media-library.ts.
import type { AdsCollection, SandboxOps } from '../../ads/resource-types.js';
import { isoSeconds, parseIsoTime } from '../../contract/time.js';
import {
  attachmentProblem,
  cardMediaKeys,
  cardTypeOf,
  conversationCardProblem,
  longId,
  toMinute,
  type MediaKind,
} from '../../ads/rules/cards.js';
import type { Behaviour } from './behaviour.js';
import { libraryItem } from './media-library.js';
import { accountFeatures } from './accounts.js';
import { listOf, stringOrUndefined } from '../../contract/guards.js';

type Rec = Record<string, unknown> & { id: string };

const CARD_COLLECTIONS: AdsCollection[] = ['cards', 'poll_cards', 'conversation_cards'];

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
  if (!findAnyCard(ops, uri.slice('card://'.length), false))
    ops.fail(400, 'INVALID_PARAMETER', `card_uri ${uri} is not a card of this account`, 'card_uri');
}

/** The account's FULL promotable user: the default user_id of draft and scheduled post lists. */
function fullUser(ops: SandboxOps): string | undefined {
  for (const u of ops.collection('promotable_users').values())
    if (u.account_id === ops.accountId && !u.deleted && u.promotable_user_type === 'FULL') return String(u.user_id);
  return undefined;
}

/** as_user_id must be an advertiser who granted the caller access: a promotable user of the account. */
function checkAsUser(ops: SandboxOps, uid: unknown): void {
  for (const u of ops.collection('promotable_users').values())
    if (u.account_id === ops.accountId && !u.deleted && u.user_id === uid) return;
  ops.fail(
    403,
    'UNAUTHORIZED_ACCESS',
    `as_user_id ${String(uid)} has not granted this account access (not a promotable user of it)`,
    'as_user_id',
  );
}

/** An enum-list filter (creative_types, card_types): absent, or the record's value is listed. */
const inList = (list: unknown, value: unknown) => !Array.isArray(list) || list.includes(value);

const byUser = (e: Record<string, unknown>, ops: SandboxOps) =>
  ops.values.user_id !== undefined || e.user_id === fullUser(ops);

// ---- account media ----

export const ACCOUNT_MEDIA: Behaviour = {
  hooks: { listFilter: (e, ops) => inList(ops.values.creative_types, e.creative_type) },
};

// ---- cards (component based) ----

/** The fields of a card component the legacy view reads (spec 2.3). */
interface Component {
  type?: string;
  title?: unknown;
  label?: { value?: unknown };
  destination?: Record<string, string>;
}

/** Checks a card's media against the library and derives its card_type. */
function shapeCard(entity: Record<string, unknown>, ops: SandboxOps): void {
  const keys = cardMediaKeys(entity.components, entity.slides);
  const kinds = keys.map((k) =>
    kindOf(libraryItem(ops, k, entity.slides !== undefined && entity.slides !== null ? 'slides' : 'components')),
  );
  // Spec 2.3: a MEDIA component holds one video or image.
  if (kinds.includes('GIF'))
    ops.fail(
      400,
      'INVALID_PARAMETER',
      'card media must be images or videos (an animated GIF is neither)',
      'components',
    );
  entity.card_type = cardTypeOf(entity.components ?? undefined, entity.slides ?? undefined, kinds);
  addMediaMetadata(entity, ops);
}

/**
 * Each MEDIA component carries `media_metadata` keyed by its media key, as the service answers
 * (the Ads SDK's v11 `cards_all.json`): type, url, width, height, video duration and aspect.
 */
function addMediaMetadata(entity: Record<string, unknown>, ops: SandboxOps): void {
  const groups = [entity.components, ...(Array.isArray(entity.slides) ? entity.slides : [])].filter(
    Array.isArray,
  ) as Array<Array<Record<string, unknown>>>;
  for (const comp of groups.flat()) {
    const keys =
      typeof comp.media_key === 'string'
        ? [comp.media_key]
        : Array.isArray(comp.media_keys)
          ? comp.media_keys.map(String)
          : [];
    if (!keys.length) continue;
    const meta: Record<string, unknown> = {};
    for (const key of keys) {
      const m: Record<string, unknown> = ops.collection('media_library').get(key) ?? {};
      const video = m.media_type !== 'IMAGE';
      meta[key] = {
        type: m.media_type ?? null,
        url: m.media_url ?? null,
        width: m._width ?? null,
        height: m._height ?? null,
        ...(video ? { video_duration: m.duration ?? null, video_aspect_ratio: m.aspect_ratio ?? null } : {}),
      };
    }
    comp.media_metadata = meta;
  }
}

/** The legacy-style view of a card (GET cards/all): flat fields, numbers as strings (spec 2.2). */
function legacyCard(c: Rec, ops: SandboxOps): Record<string, unknown> {
  const base = {
    id: c.id,
    name: c.name,
    card_uri: c.card_uri,
    created_at: c.created_at,
    updated_at: c.updated_at,
    deleted: c.deleted,
  };
  // Poll and conversation cards are legacy-style already (numbers as strings, spec 2.2).
  if (!c.components && !c.slides)
    return c.duration_in_minutes === undefined
      ? { ...c }
      : { ...c, duration_in_minutes: String(c.duration_in_minutes) };
  const comps = (c.components as Component[] | undefined) ?? (c.slides as Component[][])[0]!;
  const action = comps.find((x) => x.type === 'DETAILS' || x.type === 'BUTTON')!;
  const key = cardMediaKeys(comps, undefined)[0]!;
  const m: Record<string, unknown> = ops.collection('media_library').get(key) ?? {};
  const video = m.media_type === 'VIDEO';
  const d = action.destination!;
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

export const CARDS: Behaviour = {
  hooks: {
    create(entity, ops) {
      entity.card_uri = `card://${entity.id}`;
      shapeCard(entity, ops);
    },
    update(entity, _before, ops) {
      // Each supplied field replaces the stored one; components and slides replace each other.
      if (ops.values.components !== undefined) delete entity.slides;
      if (ops.values.slides !== undefined) delete entity.components;
      shapeCard(entity, ops);
    },
  },
  ops: {
    list: (ops) => {
      const v = ops.values;
      const names: AdsCollection[] = v.include_legacy_cards === true ? CARD_COLLECTIONS : ['cards'];
      return names
        .flatMap((n) => [...ops.collection(n).values()])
        .filter(
          (e) =>
            e.account_id === ops.accountId &&
            (v.with_deleted === true || !e.deleted) &&
            inList(v.card_id, e.id) &&
            inList(v.card_types, e.card_type) &&
            inList(v.card_uris, e.card_uri) &&
            (typeof v.q !== 'string' ||
              String(e.name ?? '')
                .toLowerCase()
                .startsWith(v.q.toLowerCase())),
        );
    },
    all: (ops) => {
      const out: Array<Record<string, unknown>> = [];
      for (const uri of listOf(ops.values.card_uris)) {
        const c = findAnyCard(ops, uri.slice('card://'.length), ops.values.with_deleted === true);
        if (c) out.push(legacyCard(c, ops));
      }
      return out;
    },
    'all-get': (ops) => {
      const c = findAnyCard(ops, ops.id!, ops.values.with_deleted === true);
      if (!c) return ops.fail(404, 'NOT_FOUND', `card_id ${ops.id} was not found`, 'card_id');
      return legacyCard(c, ops);
    },
  },
};

// ---- draft and scheduled posts ----

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

export const DRAFT_TWEETS: Behaviour = {
  hooks: {
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
export function scheduleCompletion(
  coll: Map<string, Record<string, unknown>>,
  id: string,
  due: number,
  at: (ms: number, fn: () => void) => void,
  nowMs: () => number,
): void {
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
  if (t <= toMinute(ops.nowMs()))
    ops.fail(400, 'INVALID_PARAMETER', 'scheduled_at must be in the future', 'scheduled_at');
  entity.scheduled_at = isoSeconds(t);
}

export const SCHEDULED_TWEETS: Behaviour = {
  hooks: {
    deleteMode: 'hard',
    create(entity, ops) {
      newPost(entity, ops);
      setScheduledAt(entity, ops);
      Object.assign(entity, { scheduled_status: 'SCHEDULED', completed_at: null, tweet_id: null });
      // The entity is stored after this hook returns; the job looks it up when it runs.
      scheduleCompletion(
        ops.collection('scheduled_tweets'),
        String(entity.id),
        parseIsoTime(String(entity.scheduled_at))!,
        ops.at,
        ops.nowMs,
      );
    },
    update(entity, before, ops) {
      if (before.scheduled_status !== 'SCHEDULED')
        ops.fail(
          400,
          'INVALID_PARAMETER',
          `the post is ${String(before.scheduled_status)}: only SCHEDULED posts can change`,
          'scheduled_tweet_id',
        );
      checkPost(entity, ops);
      if (ops.values.scheduled_at !== undefined) {
        setScheduledAt(entity, ops);
        scheduleCompletion(
          ops.collection('scheduled_tweets'),
          String(entity.id),
          parseIsoTime(String(entity.scheduled_at))!,
          ops.at,
          ops.nowMs,
        );
      }
    },
    // Spec 3: a SCHEDULED post is hard-deleted; the answer shows DELETED.
    delete(entity, ops) {
      if (entity.scheduled_status !== 'SCHEDULED')
        ops.fail(
          400,
          'INVALID_PARAMETER',
          `the post is ${String(entity.scheduled_status)}: only SCHEDULED posts can be deleted`,
          'scheduled_tweet_id',
        );
      entity.scheduled_status = 'DELETED';
    },
    listFilter: byUser,
  },
};

// ---- posts made through the ads API (POST accounts/:account_id/tweet) ----

/** The v1.1 time format the post's created_at has: "Tue Aug 27 22:22:12 +0000 2019". */
export function twitterDate(ms: number): string {
  // toUTCString: "Tue, 27 Aug 2019 22:22:12 GMT"
  const [wd, day, mon, year, time] = new Date(ms).toUTCString().replace(',', '').split(' ') as [
    string,
    string,
    string,
    string,
    string,
  ];
  return `${wd} ${mon} ${day} ${time} +0000 ${year}`;
}

/**
 * A post as the service answers POST tweet and GET tweets (the v1.1 post plus the ads fields
 * tweet_type, nullcast, scheduled_at; recorded in the Ads SDK's `tweets_get.json`): `id` is the
 * 64-bit number, `id_str` and `tweet_id` the same as strings.
 */
export function presentTweet(
  t: Record<string, unknown>,
  o: { trimUser: boolean; extended: boolean },
): Record<string, unknown> {
  const text = String(t.text ?? '');
  const uid = String(t.user_id);
  return {
    coordinates: null,
    retweeted: false,
    source: '<a href="https://ads-api.x.com" rel="nofollow">xctl sandbox</a>',
    entities: { hashtags: [], symbols: [], user_mentions: [], urls: [] },
    display_text_range: [0, [...text].length],
    favorite_count: 0,
    in_reply_to_status_id_str: null,
    geo: null,
    id: BigInt(String(t.id)),
    id_str: String(t.id),
    scopes: { followers: t.nullcast !== true },
    in_reply_to_user_id: null,
    truncated: false,
    retweet_count: 0,
    in_reply_to_status_id: null,
    nullcast: t.nullcast === true,
    created_at: t.created_at,
    place: null,
    scheduled_at: null,
    tweet_type: 'PUBLISHED',
    favorited: false,
    [o.extended ? 'full_text' : 'text']: text,
    lang: 'en',
    contributors: null,
    in_reply_to_screen_name: null,
    in_reply_to_user_id_str: null,
    user: o.trimUser
      ? { id: BigInt(uid), id_str: uid }
      : { id: BigInt(uid), id_str: uid, screen_name: t.screen_name ?? null },
    card_uri: t.card_uri ?? null,
    media_keys: t.media_keys ?? [],
    tweet_id: String(t.id),
  };
}

function createTweet(ops: SandboxOps): Record<string, unknown> {
  const v = ops.values;
  checkAsUser(ops, v.as_user_id);
  const post: Record<string, unknown> = { media_keys: v.media_keys, card_uri: v.card_uri };
  checkPost(post, ops);
  const now = ops.nowMs();
  const id = longId(now);
  const user = ops.collection('promotable_users');
  let screen: unknown = null;
  for (const u of user.values()) if (u.user_id === v.as_user_id) screen = u.screen_name ?? screen;
  const rec = {
    ...post,
    id,
    account_id: ops.accountId,
    user_id: v.as_user_id,
    screen_name: screen,
    text: v.text ?? '',
    nullcast: v.nullcast !== false,
    created_at: twitterDate(now),
  };
  ops.collection('tweets').set(id, rec);
  return presentTweet(rec, { trimUser: v.trim_user === true, extended: v.tweet_mode === 'extended' });
}

export const TWEETS: Behaviour = { ops: { create: createTweet } };

// ---- poll cards ----

/** docs/contract.md, ads 4.1: a poll with media_key needs this feature on the account. */
const MEDIA_POLLS_FEATURE = 'PROMOTED_MEDIA_POLLS';

export const POLL_CARDS: Behaviour = {
  hooks: {
    deleteMode: 'hard',
    create(entity, ops) {
      const minutes = Number(entity.duration_in_minutes);
      const start = ops.nowMs();
      entity.card_uri = `card://${entity.id}`;
      entity.card_type = 'TEXT_POLLS';
      const key = stringOrUndefined(ops.values.media_key);
      if (key) {
        if (!accountFeatures(ops.account).includes(MEDIA_POLLS_FEATURE))
          ops.fail(
            400,
            'INVALID_PARAMETER',
            `media_key: media polls are a beta that needs the account feature ${MEDIA_POLLS_FEATURE}`,
            'media_key',
          );
        const m = libraryItem(ops, key, 'media_key');
        if (m.media_type === 'IMAGE') {
          // Spec 4.1: an image at least 800 px wide with width:height 1.91:1.
          const w = Number(m._width);
          const h = Number(m._height);
          if (w < 800 || Math.abs(w / h - 1.91) > 0.01)
            ops.fail(
              400,
              'INVALID_PARAMETER',
              `media_key must be an image at least 800 px wide with width:height 1.91:1 (got ${w}x${h})`,
              'media_key',
            );
          entity.card_type = 'IMAGE_POLLS';
          entity.media_url = m.media_url;
        } else if (m.media_type === 'VIDEO') {
          entity.card_type = 'VIDEO_POLLS';
          Object.assign(entity, {
            video_url: m.media_url,
            video_poster_url: m.poster_media_url,
            video_width: String(m._width),
            video_height: String(m._height),
            content_duration_seconds: String(Math.round(Number(m.duration) / 1000)),
          });
        } else ops.fail(400, 'INVALID_PARAMETER', 'media_key must be an image or a video', 'media_key');
      }
      // Spec 3: open from creation; end_time = creation + duration; closes then (sandbox clock).
      const end = start + minutes * 60_000;
      Object.assign(entity, { start_time: isoSeconds(start), end_time: isoSeconds(end), closed: false });
      const coll = ops.collection('poll_cards');
      const id = String(entity.id);
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

export const PREROLL_CALL_TO_ACTIONS: Behaviour = {
  hooks: {
    create(entity, ops) {
      const li = ops.find('line_items', String(entity.line_item_id), { parameter: 'line_item_id' });
      if (li.objective !== 'PREROLL_VIEWS')
        ops.fail(
          400,
          'INCOMPATIBLE_LINE_ITEM',
          `line item ${li.id} has objective ${String(li.objective)}: preroll calls to action need PREROLL_VIEWS`,
          'line_item_id',
        );
    },
  },
};

// ---- post previews ----

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A draft (DRAFT), a scheduled post not yet out (SCHEDULED), or a post that went out (PUBLISHED, by its tweet_id). */
function findPost(ops: SandboxOps, type: string, tid: string): Record<string, unknown> | undefined {
  const mine = (e: Record<string, unknown> | undefined) => (e && e.account_id === ops.accountId ? e : undefined);
  if (type === 'DRAFT') return mine(ops.collection('draft_tweets').get(tid));
  if (type === 'SCHEDULED') {
    const e = mine(ops.collection('scheduled_tweets').get(tid));
    return e?.scheduled_status === 'SCHEDULED' ? e : undefined;
  }
  for (const e of ops.collection('scheduled_tweets').values()) if (e.tweet_id === tid && mine(e)) return e;
  const posted = mine(ops.collection('tweets').get(tid));
  if (posted) return posted;
  // A post of the sandbox's store (the seeded ones, post.create events) by a user of the account.
  const stored = ops.collection('posts').get(tid);
  if (stored && listOf(ops.account?.user_ids).includes(String(stored.author_id)))
    return { text: stored.text, card_uri: null };
  // A post promoted on the account (promoted_tweets took its id): published, its text unknown here.
  for (const e of ops.collection('promoted_tweets').values())
    if (e.tweet_id === tid && mine(e)) return { text: '', card_uri: null };
  return undefined;
}

export const TWEET_PREVIEWS: Behaviour = {
  hooks: { present: ({ id: _id, ...rest }) => rest },
  ops: {
    list: (ops) => {
      const type = String(ops.values.tweet_type);
      const out: Array<Record<string, unknown>> = [];
      for (const tid of listOf(ops.values.tweet_ids)) {
        const post = findPost(ops, type, tid);
        if (!post) continue;
        const text = escapeHtml(String(post.text ?? ''));
        out.push({
          id: tid,
          tweet_id: tid,
          preview: `<iframe class="tweet-preview" data-tweet-type="${type}" data-card-uri="${escapeHtml(String(post.card_uri ?? ''))}" srcdoc="<p>${text}</p>" width="560" height="400"></iframe>`,
        });
      }
      return out;
    },
  },
};

// ---- video conversation cards ----

function shapeConversation(entity: Record<string, unknown>, ops: SandboxOps): void {
  const bad = conversationCardProblem(entity);
  if (bad) ops.fail(400, bad.code, `${bad.param} ${bad.message}`, bad.param);
  const m = libraryItem(ops, String(entity.media_key), 'media_key');
  if (m.media_type !== 'VIDEO' || m.aspect_ratio !== '16:9')
    ops.fail(
      400,
      'INVALID_PARAMETER',
      `media_key must be a 16:9 video (got ${String(m.media_type)} ${String(m.aspect_ratio)})`,
      'media_key',
    );
  let poster: unknown = m.poster_media_url ?? `${String(m.media_url).replace(/\.mp4$/, '')}.jpg`;
  if (typeof entity.poster_media_key === 'string')
    poster = libraryItem(ops, entity.poster_media_key, 'poster_media_key').media_url;
  Object.assign(entity, {
    media_url: m.media_url,
    poster_media_url: poster,
    video_width: String(m._width),
    video_height: String(m._height),
    video_owner_id: ops.userId,
  });
}

export const CONVERSATION_CARDS: Behaviour = {
  hooks: {
    deleteMode: 'hard',
    // Every optional field is in every answer, null until set (thank_you_url included).
    keys: [
      'second_cta',
      'second_cta_tweet',
      'third_cta',
      'third_cta_tweet',
      'fourth_cta',
      'fourth_cta_tweet',
      'poster_media_key',
      'thank_you_url',
      'title',
      'unlocked_video_media_key',
    ],
    create(entity, ops) {
      entity.card_uri = `card://${entity.id}`;
      entity.card_type = 'VIDEO_CONVERSATION';
      shapeConversation(entity, ops);
    },
    update: (entity, _before, ops) => shapeConversation(entity, ops),
  },
};
