// Audience user uploads (ads-api.md 4.4 and 8, platform-notes.md "Audience users"): the
// endpoints, their limits, the identifier types and the expiry rule. The uploader
// (src/audiences/) and the sandbox (src/sandbox/modules/audience-users.ts) both obey these.
// Loaded by the hash workers: keep it free of heavy imports.
import { endpoint } from './endpoint.js';
import { addMonthsUtc } from './time.js';
import { isOneOf } from './guards.js';

/** ads-api.md section 8: at most 2500 operations per request. */
export const MAX_OPERATIONS = 2500;
/** ads-api.md section 8: a request body is at most 5,000,000 bytes. */
export const MAX_BYTES = 5_000_000;
/** Users per request: the uploader's default (--batch-size) and the most it lets one ask for. */
export const USERS_PER_REQUEST = { default: 2500, max: 2_000_000 } as const;

export const UPLOAD_ENDPOINTS = {
  custom_audience: endpoint('POST', '/12/accounts/:account_id/custom_audiences/:custom_audience_id/users', {
    auth: 'user',
    rate: 'audience-upload',
    style: 'ads',
    doc: 'add (Update) or remove (Delete) hashed users of a custom audience (ads-api.md 4.4)',
  }),
  do_not_reach_list: endpoint('POST', '/12/batch/accounts/:account_id/do_not_reach_lists/:do_not_reach_list_id/users', {
    auth: 'user',
    rate: 'audience-upload',
    style: 'ads',
    doc: 'add or remove hashed users of the do-not-reach list (ads-api.md 4.4)',
  }),
} as const;

export type UploadTarget = keyof typeof UPLOAD_ENDPOINTS;

/** Identifier types a user object may carry, as the uploader names them. */
export const ID_TYPES = ['email', 'phone_number', 'handle', 'twitter_id', 'device_id', 'partner_user_id'] as const;
export type IdType = (typeof ID_TYPES)[number];

/** The spec's `service_id` is the platform's `twitter_id` (platform-notes.md "Audience users"). */
export const TYPE_ALIASES: Record<string, IdType> = {
  service_id: 'twitter_id',
  phone: 'phone_number',
  twitter_handle: 'handle',
  user_id: 'twitter_id',
};

/** ads-api.md 4.4: a do-not-reach list takes only email and phone_number arrays. */
export const DO_NOT_REACH_TYPES = ['email', 'phone_number'] as const satisfies readonly IdType[];

/** The keys a user object may have on the wire, per target (service_id and twitter_id both). */
export const WIRE_KEYS: Record<UploadTarget, readonly string[]> = {
  custom_audience: ['email', 'device_id', 'handle', 'twitter_id', 'service_id', 'phone_number', 'partner_user_id'],
  do_not_reach_list: DO_NOT_REACH_TYPES,
};

/** Every identifier except partner_user_id is sent as a SHA-256 digest (lowercase hex). */
export const UNHASHED_TYPE = 'partner_user_id';

export function canonicalType(name: string): IdType | undefined {
  const n = name.trim().toLowerCase();
  if (isOneOf(ID_TYPES, n)) return n;
  return TYPE_ALIASES[n];
}

/** ads-api.md 4.4 and section 8: expiry at most 13 months out. */
export const EXPIRY_MONTHS = 13;

/**
 * The expiry rule. A custom audience: expires_at after effective_at (default now) and at most 13
 * months after it. A do-not-reach list (no effective_at): expires_at in the future and less
 * than 13 months ahead. Returns which half is broken; each side words it for its own audience.
 */
export function expiryFault(
  target: UploadTarget,
  expiresMs: number,
  o: { nowMs: number; effectiveMs?: number },
): 'not-after-start' | 'too-far' | undefined {
  const start = target === 'custom_audience' ? (o.effectiveMs ?? o.nowMs) : o.nowMs;
  if (expiresMs <= start) return 'not-after-start';
  const limit = addMonthsUtc(start, EXPIRY_MONTHS);
  if (target === 'custom_audience' ? expiresMs > limit : expiresMs >= limit) return 'too-far';
  return undefined;
}
