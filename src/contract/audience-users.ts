// Audience user uploads (docs/contract.md, ads 4.4 and 8, docs/contract.md, notes "Audience users"): the
// endpoints, their limits, the identifier types and the expiry rule. The uploader
// (src/audiences/) and the sandbox (src/sandbox/modules/audience-users.ts) both obey these.
// Loaded by the hash workers: keep it free of heavy imports.
import { endpoint } from './endpoint.js';
import { addMonthsUtc, parseIsoTime } from './time.js';
import { isOneOf } from './guards.js';
import { param, valueOf, type CrossRule, type EndpointInput, type ParamSpec } from './params.js';

/** docs/contract.md, ads section 8: at most 2500 operations per request. */
export const MAX_OPERATIONS = 2500;
/** docs/contract.md, ads section 8: a request body is at most 5,000,000 bytes. */
export const MAX_BYTES = 5_000_000;
/**
 * Users per request: sync's and apply's default (--batch-size) and the most any command lets one
 * ask for. An upload's default is a full body (UPLOAD_BODY_BYTES).
 */
export const USERS_PER_REQUEST = { default: 2500, max: 2_000_000 } as const;
/**
 * An upload fills each request up to this many bytes (at most MAX_OPERATIONS operations; all its
 * users go in one): at 1500 requests a minute, requests of 2500 users cap any client at 62,500
 * users/s, full ones (about 62,000 single-email users) at 1.5 M/s. 2% under MAX_BYTES, in case
 * the service counts a little more than the JSON body (a proxy's framing, a re-encoding): a full
 * request it refused would be retried in vain. The margin costs 2% more requests.
 */
export const UPLOAD_BODY_BYTES = 4_900_000;

/**
 * The parameters of one operation of a batch (the body is a JSON array of them, each checked
 * on its own: validate(e, { body: operation })). The users of an operation are the hot path:
 * the sandbox reads them record by record as behaviour (their shape, hashing and types), so
 * they are not described here.
 */
function operationParams(target: 'custom_audience' | 'do_not_reach_list'): ParamSpec[] {
  const time = (name: 'effective_at' | 'expires_at', flag: string): ParamSpec => ({
    name: `params.${name}`,
    in: 'body',
    label: name,
    flag,
    rule: 'an ISO 8601 time such as 2026-05-01T00:00:00Z',
    ok: (v) => isoMs(v) !== undefined,
  });
  const effective = time('effective_at', '--effective-at');
  return [
    param.oneOf('operation_type', ['Update', 'Delete'], { in: 'body', flag: '--delete', required: true }),
    {
      name: 'params',
      in: 'body',
      required: true,
      rule: 'an object with the users',
      ok: (v) => typeof v === 'object' && v !== null,
    },
    target === 'custom_audience'
      ? effective
      : { ...effective, refuse: () => 'is not accepted for do-not-reach lists (the current time is used)' },
    time('expires_at', '--expires-at'),
  ];
}

/** An ISO time as the upload endpoints take it (a date alone too): epoch ms. */
function isoMs(v: unknown): number | undefined {
  return typeof v === 'string' ? parseIsoTime(v, { loose: true }) : undefined;
}

/** The expiry window against the service's clock (expiryFault), in the words both sides use. */
function expiryRule(target: 'custom_audience' | 'do_not_reach_list'): CrossRule {
  return {
    name: 'params.expires_at',
    in: 'body',
    label: 'expires_at',
    flag: '--expires-at',
    refuse: (input: EndpointInput, env) => {
      const expires = isoMs(valueOf(input, 'body', 'params.expires_at'));
      if (expires === undefined || env.now === undefined) return undefined;
      const effectiveMs = isoMs(valueOf(input, 'body', 'params.effective_at'));
      const fault = expiryFault(target, expires, { nowMs: env.now, effectiveMs });
      if (target === 'do_not_reach_list') {
        if (fault === 'not-after-start') return 'must be in the future (do-not-reach list)';
        return fault ? `must be less than ${EXPIRY_MONTHS} months ahead (do-not-reach list)` : undefined;
      }
      if (fault === 'not-after-start') return 'must be after effective_at (or now, without one)';
      return fault ? `must be at most ${EXPIRY_MONTHS} months after effective_at (or now, without one)` : undefined;
    },
  };
}

const upload = { auth: 'user', rate: 'audience-upload', style: 'ads' } as const;
const ANSWER = '{"request":{"params":{account_id,<list>_id}},"data":{success_count,total_count}}';

export const UPLOAD_ENDPOINTS = {
  custom_audience: endpoint('POST', '/12/accounts/:account_id/custom_audiences/:custom_audience_id/users', {
    ...upload,
    doc: 'add (Update) or remove (Delete) hashed users of a custom audience (docs/contract.md, ads 4.4)',
    params: operationParams('custom_audience'),
    rules: [expiryRule('custom_audience')],
    answer: ANSWER,
  }),
  do_not_reach_list: endpoint('POST', '/12/batch/accounts/:account_id/do_not_reach_lists/:do_not_reach_list_id/users', {
    ...upload,
    doc: 'add or remove hashed users of the do-not-reach list (docs/contract.md, ads 4.4)',
    params: operationParams('do_not_reach_list'),
    rules: [expiryRule('do_not_reach_list')],
    answer: ANSWER,
  }),
} as const;

/** One operation of a batch as validate() reads it. */
export function operationInput(o: { delete?: boolean; effective_at?: string; expires_at?: string }): EndpointInput {
  const params: Record<string, unknown> = {};
  if (o.effective_at !== undefined) params.effective_at = o.effective_at;
  if (o.expires_at !== undefined) params.expires_at = o.expires_at;
  return { body: { operation_type: o.delete ? 'Delete' : 'Update', params } };
}

export type UploadTarget = keyof typeof UPLOAD_ENDPOINTS;

/** Identifier types a user object may carry, as the uploader names them. */
export const ID_TYPES = ['email', 'phone_number', 'handle', 'twitter_id', 'device_id', 'partner_user_id'] as const;
export type IdType = (typeof ID_TYPES)[number];

/** The spec's `service_id` is the platform's `twitter_id` (docs/contract.md, notes "Audience users"). */
export const TYPE_ALIASES: Record<string, IdType> = {
  service_id: 'twitter_id',
  phone: 'phone_number',
  twitter_handle: 'handle',
  user_id: 'twitter_id',
};

/** docs/contract.md, ads 4.4: a do-not-reach list takes only email and phone_number arrays. */
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

/** docs/contract.md, ads 4.4 and section 8: expiry at most 13 months out. */
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
