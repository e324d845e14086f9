// The Activity API (credentials-webhooks.md 6, platform-notes.md "Activity API subscriptions"):
// endpoints, event types, and the subscription filter's limits. The CLI checks them before
// sending; the sandbox answers a violation with the v2 problem the service gives.
import { endpoint } from './endpoint.js';

const opts = { auth: 'user-or-bearer', rate: 'activity', style: 'v2' } as const;

export const ACTIVITY_ENDPOINTS = {
  createSubscription: endpoint('POST', '/2/activity/subscriptions', { ...opts, doc: 'subscribe {"event_type","filter","tag"?,"webhook_id"?}' }),
  listSubscriptions: endpoint('GET', '/2/activity/subscriptions', { ...opts, doc: 'subscriptions of the app (max_results, pagination_token)' }),
  deleteSubscription: endpoint('DELETE', '/2/activity/subscriptions/:id', { ...opts, doc: 'delete a subscription' }),
  stream: endpoint('GET', '/2/activity/stream', { auth: 'app', rate: 'activity', style: 'v2', doc: 'NDJSON events of the subscriptions without a webhook (backfill_minutes)' }),
} as const;

/** Deprecated PascalCase event names and their dot-separated replacements (effective 2026-03-18). */
export const DEPRECATED_EVENT_NAMES: Record<string, string> = {
  ProfileBioUpdate: 'profile.update.bio',
  ProfilePictureUpdate: 'profile.update.picture',
  ProfileBannerUpdate: 'profile.update.banner',
  ProfileGeoUpdate: 'profile.update.geo',
  ProfileUrlUpdate: 'profile.update.url',
};

/**
 * Activity API event types (credentials-webhooks.md section 6). The dot-separated replacements of
 * the deprecated profile names are accepted too: the change history says they were renamed, not
 * removed.
 */
export const ACTIVITY_EVENT_TYPES = [
  'profile.update.bio',
  'profile.update.verified',
  'profile.update.affiliate',
  'profile.update.screenname',
  'profile.update.picture',
  'profile.update.banner',
  'profile.update.geo',
  'profile.update.url',
  'spaces.start',
  'spaces.end',
  'dm.received',
  'dm.sent',
  'dm.read',
  'dm.indicate_typing',
] as const;

/** Event types a `direction` filter applies to (direct-message events). */
export function isDirectional(eventType: string): boolean {
  return eventType.startsWith('dm.');
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
  /** GET stream: backfill_minutes 0 (none) to 5. */
  backfillMinutes: { min: 0, max: 5 },
} as const;

export type Direction = (typeof SUBSCRIPTION_LIMITS.directions)[number];

/** True when a text's length lies in a {min, max} range. */
export function lengthWithin(s: string, r: { min: number; max: number }): boolean {
  return s.length >= r.min && s.length <= r.max;
}
