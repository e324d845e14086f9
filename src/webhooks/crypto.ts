// The two HMAC-SHA256 values of the webhook contract (platform-notes.md "Webhook challenge" and
// "Delivery signature"): the CRC response token and the delivery signature. Both sides use these.
import crypto from 'node:crypto';

/** Both header names a delivery may carry: the spec's, then the live platform's. */
export const SIGNATURE_HEADERS = ['x-service-webhooks-signature', 'x-twitter-webhooks-signature'] as const;

/** "sha256=" + base64(HMAC-SHA256(consumer secret, message)), standard base64 with padding. */
export function hmacToken(secret: string, message: string | Buffer): string {
  return 'sha256=' + crypto.createHmac('sha256', secret).update(message).digest('base64');
}

/** The CRC answer: {"response_token": hmacToken(secret, crc_token)}. */
export function crcResponse(secret: string, crcToken: string): { response_token: string } {
  return { response_token: hmacToken(secret, crcToken) };
}

/** The signature header value of a delivery body (the raw bytes, never a re-serialization). */
export function signBody(secret: string, rawBody: string | Buffer): string {
  return hmacToken(secret, rawBody);
}

/** Constant-time check of a delivery signature; false for any malformed or missing value. */
export function verifySignature(secret: string, rawBody: string | Buffer, signature: string | undefined): boolean {
  const sig = typeof signature === 'string' ? signature.trim() : '';
  if (!sig.startsWith('sha256=')) return false;
  const expected = Buffer.from(signBody(secret, rawBody));
  const given = Buffer.from(sig);
  // timingSafeEqual needs equal lengths; compare against itself on a length mismatch so the
  // time spent does not reveal which case happened.
  const same = given.length === expected.length;
  return crypto.timingSafeEqual(same ? given : expected, expected) && same;
}

/**
 * Tokens shaped like the service's (at most 256 of letters, digits and `-_=+/.:`). A receiver
 * answers only these: anything else (e.g. a JSON body) could turn the CRC endpoint into an
 * oracle that signs forged deliveries (DESIGN.md "Webhook receiver").
 */
export function isServiceShapedCrcToken(token: string): boolean {
  return /^[A-Za-z0-9\-_=+/.:]{1,256}$/.test(token);
}

/**
 * Activity API event types: the platform's 29 (XDK's `CreateActivitySubscriptionRequest.eventType`
 * union, OpenAPI 2.167), with `chat.conversation.join` spelled as platform-notes-2.md section 1
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
 * (credentials-webhooks.md section 6) and XDK's spelling of the chat join event.
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
  if ((ACTIVITY_EVENT_TYPES as readonly string[]).includes(name)) return name as ActivityEventType;
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
