// The Activity API (docs/contract.md, credentials 6, docs/contract.md, notes "Activity API subscriptions"):
// endpoints, event types, and the subscription filter's limits. The CLI checks them before
// sending; the sandbox answers a violation with the v2 problem the service gives. Each endpoint
// follows the platform's OpenAPI specification (version 2.167, the operation in `op`); where the
// recorded platform answers otherwise, `departures` says how.
import { endpoint } from './endpoint.js';
import { param, type CrossRule, type ParamSpec } from './params.js';
import { isOneOf, isRecord } from './guards.js';
import { parseIsoParts } from './time.js';

/**
 * Activity API event types: the platform's 29 (XDK's `CreateActivitySubscriptionRequest.eventType`
 * union, OpenAPI 2.167), with `chat.conversation.join` spelled as docs/contract.md, notes-2 section 1
 * says responses spell it. The one list the CLI flags, completion, `sandbox trigger`, the receiver
 * and the sandbox read.
 */
export const ACTIVITY_EVENT_TYPES = [
  'profile.update.bio',
  'profile.update.profile_picture',
  'profile.update.banner_picture',
  'profile.update.screenname',
  'profile.update.geo',
  'profile.update.url',
  'profile.update.verified_badge',
  'profile.update.affiliate_badge',
  'profile.update.handle',
  'news.new',
  'follow.follow',
  'follow.unfollow',
  'spaces.start',
  'spaces.end',
  'chat.received',
  'chat.sent',
  'chat.conversation.join',
  'dm.sent',
  'dm.received',
  'dm.indicate_typing',
  'dm.read',
  'post.create',
  'post.delete',
  'post.mention.create',
  'like.create',
  'mute.mute',
  'mute.unmute',
  'block.block',
  'block.unblock',
] as const;

export type ActivityEventType = (typeof ACTIVITY_EVENT_TYPES)[number];

/**
 * Other names that stay accepted and the platform name they stand for: the spec's own names
 * (docs/contract.md, credentials section 6) and XDK's spelling of the chat join event.
 */
export const EVENT_TYPE_ALIASES: Record<string, ActivityEventType> = {
  'profile.update.verified': 'profile.update.verified_badge',
  'profile.update.affiliate': 'profile.update.affiliate_badge',
  'chat.conversation_join': 'chat.conversation.join',
};

/** Deprecated PascalCase event names and their dot-separated replacements (effective 2026-03-18). */
export const DEPRECATED_EVENT_NAMES: Record<string, ActivityEventType> = {
  ProfileBioUpdate: 'profile.update.bio',
  ProfilePictureUpdate: 'profile.update.profile_picture',
  ProfileBannerUpdate: 'profile.update.banner_picture',
  ProfileGeoUpdate: 'profile.update.geo',
  ProfileUrlUpdate: 'profile.update.url',
};

/** The platform name of an accepted event type (an alias resolved), or undefined if unknown. */
export function canonicalEventType(name: string): ActivityEventType | undefined {
  if (isOneOf(ACTIVITY_EVENT_TYPES, name)) return name;
  return EVENT_TYPE_ALIASES[name];
}

/** Every name a user may type: the platform's, then the accepted aliases (for completion and help). */
export function acceptedEventTypes(): string[] {
  return [...ACTIVITY_EVENT_TYPES, ...Object.keys(EVENT_TYPE_ALIASES)];
}

/** Event types a `direction` filter applies to (direct-message and chat events, section 6). */
export function isDirectional(eventType: string): boolean {
  return eventType.startsWith('dm.') || eventType.startsWith('chat.');
}

/** Section 8: filter keyword 1-150 characters, tag 1-200, direction inbound or outbound. */
export const SUBSCRIPTION_LIMITS = {
  keyword: { min: 1, max: 150 },
  tag: { min: 1, max: 200 },
  directions: ['inbound', 'outbound'] as const,
  /** The filter's fields; anything else is refused. */
  filterFields: ['user_id', 'keyword', 'direction'] as const,
  /** GET subscriptions: max_results 1-1000, default 100. */
  maxResults: { min: 1, max: 1000, default: 100 },
  /** GET subscriptions: a page token is at least 16 characters (the sandbox's are 16). */
  pageToken: 16,
  /** GET stream: backfill_minutes 0 (none) to 5. */
  backfillMinutes: { min: 0, max: 5 },
  /** Delete many: 1-100 ids a request (docs/contract.md, notes-2 section 7). */
  deleteManyIds: { min: 1, max: 100 },
  /** GET stream: up to 2 redundant connections per stream (docs/contract.md, credentials, limits). */
  streamConnections: 2,
  /** GET stream start_time: at most this far back (**Proposal**, as webhook replay). */
  streamWindowMs: 24 * 3_600_000,
} as const;

export type Direction = (typeof SUBSCRIPTION_LIMITS.directions)[number];

/** True when a text's length lies in a {min, max} range. */
export function lengthWithin(s: string, r: { min: number; max: number }): boolean {
  return s.length >= r.min && s.length <= r.max;
}

const L = SUBSCRIPTION_LIMITS;
const opts = { auth: 'user-or-bearer', rate: 'activity', style: 'v2' } as const;
const subscriptionId = param.id('id', {
  in: 'path',
  flag: 'subscription id',
  label: 'subscription_id',
  required: true,
});
const tag = param.text('tag', L.tag, { in: 'body', flag: '--tag' });
// A webhook of the app's: the walking test names one (an unknown id is a 400 of its own).
const webhookId = {
  ...param.id('webhook_id', { in: 'body', flag: 'webhook id' }),
  samples: { ok: [], bad: ['w1', 5] },
};

/** The subscription's filter: an object (of the fields `closed` names). */
const filterParam: ParamSpec = {
  name: 'filter',
  in: 'body',
  required: true,
  rule: 'an object of user_id, keyword and direction',
  ok: isRecord,
  samples: { ok: [{}], bad: ['all', []] },
};

/** start_time / end_time of the stream: ISO 8601 in UTC, to the second. */
const streamTime = (name: string, flag: string): ParamSpec => ({
  name,
  in: 'query',
  flag,
  rule: 'an ISO 8601 UTC time such as 2026-01-15T12:00:00Z',
  ok: (v) => typeof v === 'string' && v.endsWith('Z') && parseIsoParts(v)?.second !== undefined,
  // The accepted times lie in the window of the service's clock: the walking test makes them.
  samples: { ok: [], bad: ['yesterday', '2026-01-15T12:00'] },
});

/** event_type: the platform's names and their aliases; a renamed one is refused with its new name. */
export const EVENT_TYPE_PARAM: ParamSpec = {
  name: 'event_type',
  in: 'body',
  flag: '--event',
  required: true,
  rule: "one of the platform's event types",
  ok: (v) => typeof v === 'string' && canonicalEventType(v) !== undefined,
  refuse: (v) =>
    typeof v === 'string' && DEPRECATED_EVENT_NAMES[v]
      ? `is a deprecated name (renamed 2026-03-18): use ${DEPRECATED_EVENT_NAMES[v]}`
      : undefined,
  samples: { ok: ['profile.update.bio', 'chat.conversation_join'], bad: ['nope.event', 'ProfileBioUpdate', 5] },
};

/** A direction filter only for direct-message and chat events. */
const directional: CrossRule = {
  name: 'filter.direction',
  in: 'body',
  flag: '--direction',
  refuse: ({ body }) => {
    const b = body as { event_type?: unknown; filter?: { direction?: unknown } } | undefined;
    const ev = typeof b?.event_type === 'string' ? b.event_type : '';
    return b?.filter?.direction !== undefined && !isDirectional(ev)
      ? `applies to direct-message and chat events (dm.*, chat.*), not ${ev}`
      : undefined;
  },
};

export const ACTIVITY_ENDPOINTS = {
  createSubscription: endpoint('POST', '/2/activity/subscriptions', {
    ...opts,
    op: 'createActivitySubscription',
    doc: 'subscribe {"event_type","filter","tag"?,"webhook_id"?} -> {"data":{"subscription"}}',
    params: [
      EVENT_TYPE_PARAM,
      filterParam,
      param.id('filter.user_id', { in: 'body', flag: '--user-id' }),
      param.text('filter.keyword', L.keyword, { in: 'body', flag: '--keyword' }),
      param.oneOf('filter.direction', L.directions, { in: 'body', flag: '--direction' }),
      tag,
      webhookId,
    ],
    rules: [directional],
    closed: [
      { at: '', fields: ['event_type', 'filter', 'tag', 'webhook_id'] },
      { at: 'filter', fields: SUBSCRIPTION_LIMITS.filterFields },
    ],
    departures: [
      'event_type chat.conversation.join is spelled with a dot, as the recorded answers spell it (the specification: chat.conversation_join, still accepted)',
      'filter.keyword is 1-150 characters and filter.user_id 1-19 digits (recorded limits; the specification gives plain strings)',
    ],
    answer: '{"data":{"subscription":{subscription_id,event_type,filter,tag?,webhook_id?,created_at,updated_at}}}',
  }),
  listSubscriptions: endpoint('GET', '/2/activity/subscriptions', {
    ...opts,
    op: 'getActivitySubscriptions',
    doc: 'subscriptions of the app (max_results, pagination_token)',
    params: [
      param.int('max_results', L.maxResults, { in: 'query', flag: '--max-results' }),
      param.token('pagination_token', { min: L.pageToken }, { in: 'query', flag: '--cursor' }),
    ],
    departures: [
      'meta {total_subscriptions} as the recorded answers carry it, with next_token (16 characters) when a page follows; the specification lists data and errors only',
    ],
    answer: '{"data":[subscription],"meta":{total_subscriptions,next_token?}}',
  }),
  // PUT and both DELETEs take an app-only bearer only (docs/contract.md, notes-2 section 7).
  updateSubscription: endpoint('PUT', '/2/activity/subscriptions/:id', {
    ...opts,
    auth: 'app',
    op: 'updateActivitySubscription',
    doc: 'change {"tag"?,"webhook_id"?} of a subscription',
    params: [subscriptionId, tag, webhookId],
    closed: [{ at: '', fields: ['tag', 'webhook_id'] }],
    answer: '{"data":{"subscription","total_subscriptions"}}',
  }),
  deleteSubscription: endpoint('DELETE', '/2/activity/subscriptions/:id', {
    ...opts,
    auth: 'app',
    op: 'deleteActivitySubscription',
    doc: 'delete a subscription',
    params: [subscriptionId],
    answer: '{"data":{"deleted":true},"meta":{total_subscriptions}}',
  }),
  deleteSubscriptions: endpoint('DELETE', '/2/activity/subscriptions', {
    ...opts,
    auth: 'app',
    op: 'deleteActivitySubscriptionsByIds',
    doc: 'delete many: ?ids= (1-100), per-id results',
    params: [
      param.list(
        'ids',
        { items: 'id', noun: 'subscription ids', min: L.deleteManyIds.min, max: L.deleteManyIds.max },
        { in: 'query', required: true },
      ),
    ],
    answer:
      '{"data":[{subscription_id,deleted}],"errors"?:[{subscription_id,reason,message}],"meta":{total_subscriptions}}',
  }),
  stream: endpoint('GET', '/2/activity/stream', {
    auth: 'app',
    rate: 'activity',
    style: 'v2',
    op: 'activityStream',
    doc: 'NDJSON events of the subscriptions without a webhook (backfill_minutes, start_time, end_time)',
    params: [
      param.int('backfill_minutes', L.backfillMinutes, { in: 'query', flag: '--backfill-minutes' }),
      streamTime('start_time', '--start-time'),
      streamTime('end_time', '--end-time'),
    ],
    answer: 'NDJSON lines {"data":{event_uuid,event_type,filter,tag?,payload}}, blank keep-alive lines',
  }),
} as const;
