// The activity event-type list and the subscription answer shapes, in process.
import { describe, expect, it } from 'vitest';
import {
  ACTIVITY_EVENT_TYPES,
  DEPRECATED_EVENT_NAMES,
  EVENT_TYPE_ALIASES,
  acceptedEventTypes,
  canonicalEventType,
  isDirectional,
} from '../../src/contract/activity.js';
import { buildSubscription } from '../../src/commands/activity/subscriptions/create.js';
import { subscriptionOf } from '../../src/commands/activity/subscriptions/shape.js';

describe('event types', () => {
  it("are the platform's 29, unique; aliases and deprecated names point into the list", () => {
    expect(ACTIVITY_EVENT_TYPES).toHaveLength(29);
    expect(new Set(ACTIVITY_EVENT_TYPES).size).toBe(29);
    for (const target of [...Object.values(EVENT_TYPE_ALIASES), ...Object.values(DEPRECATED_EVENT_NAMES)])
      expect(ACTIVITY_EVENT_TYPES).toContain(target);
    for (const alias of Object.keys(EVENT_TYPE_ALIASES)) expect(ACTIVITY_EVENT_TYPES).not.toContain(alias);
    // The names the sandbox once invented are gone.
    expect(canonicalEventType('profile.update.picture')).toBeUndefined();
    expect(canonicalEventType('profile.update.banner')).toBeUndefined();
    expect(acceptedEventTypes()).toHaveLength(29 + Object.keys(EVENT_TYPE_ALIASES).length);
  });

  it('resolve aliases to the platform name', () => {
    expect(canonicalEventType('profile.update.verified')).toBe('profile.update.verified_badge');
    expect(canonicalEventType('chat.conversation_join')).toBe('chat.conversation.join');
    expect(canonicalEventType('post.create')).toBe('post.create');
    expect(canonicalEventType('ProfileBioUpdate')).toBeUndefined();
  });

  it('direction applies to dm.* and chat.* only', () => {
    expect(isDirectional('chat.received')).toBe(true);
    expect(isDirectional('dm.sent')).toBe(true);
    expect(isDirectional('post.create')).toBe(false);
    expect(buildSubscription({ event: 'chat.sent', direction: 'outbound' })).toEqual({
      event_type: 'chat.sent',
      filter: { direction: 'outbound' },
    });
    expect(() => buildSubscription({ event: 'follow.follow', direction: 'inbound' })).toThrow(/--direction applies/);
  });
});

describe('subscriptionOf reads every documented create/update answer', () => {
  const sub = {
    subscription_id: '1976325569252868096',
    event_type: 'profile.update.bio',
    filter: { user_id: '2244994945' },
  };
  it('OpenAPI {data:{subscription}}, the quickstart {data:[...]}, and a flat data', () => {
    expect(subscriptionOf({ subscription: sub })).toEqual(sub);
    expect(subscriptionOf({ subscription: sub, total_subscriptions: 3 })).toEqual(sub);
    expect(subscriptionOf([sub])).toEqual(sub);
    expect(subscriptionOf(sub)).toEqual(sub);
  });
  it('an answer without a subscription id is an error, not an empty row', () => {
    expect(() => subscriptionOf({})).toThrow(/without a subscription_id/);
    expect(() => subscriptionOf(undefined)).toThrow(/without the subscription/);
    expect(() => subscriptionOf([])).toThrow(/without the subscription/);
  });
});
