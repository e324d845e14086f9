// The signed-in user's reads: GET /2/users/me (the v2 user object with the user.fields a client
// asks for) and the v1.1 account reads (verify_credentials, rate_limit_status), described with
// their parameters as the other endpoints are (params.ts).
import { type ParamSpec } from './params.js';

/** v2 user.fields the OpenAPI knows (the XDKs send any of them); the sandbox gives those it has. */
export const USER_FIELDS = [
  'affiliation',
  'confirmed_email',
  'connection_status',
  'created_at',
  'description',
  'entities',
  'id',
  'is_identity_verified',
  'location',
  'most_recent_post_id',
  'most_recent_tweet_id',
  'name',
  'parody',
  'pinned_post_id',
  'pinned_tweet_id',
  'profile_banner_url',
  'profile_image_url',
  'protected',
  'public_metrics',
  'receives_your_dm',
  'subscription',
  'subscription_type',
  'url',
  'username',
  'verified',
  'verified_followers_count',
  'verified_type',
  'withheld',
] as const;

/** The fields asked for: a comma list, the key repeatable (the values are joined with commas). */
export const USER_FIELDS_PARAM: ParamSpec = {
  name: 'user.fields',
  in: 'query',
  rule: 'a comma list of user fields',
  ok: (v) => typeof v === 'string',
  // The platform's words: `The \`user.fields\` query parameter value [x] is not one of [...]`.
  refuse: (v) => {
    const bad = typeof v === 'string' ? v.split(',').find((f) => f !== '' && !isUserField(f)) : undefined;
    return bad === undefined ? undefined : `value [${bad}] is not one of [${USER_FIELDS.join(',')}]`;
  },
};

function isUserField(f: string): boolean {
  return USER_FIELDS.some((x) => x === f);
}

/**
 * A v1.1 boolean flag: the platform reads true, t and 1 as on and anything else as off, and
 * refuses no value.
 */
export function v1Flag(name: string, what: string): ParamSpec {
  return { name, in: 'query', rule: `true, t or 1 to ${what} (anything else: false)`, ok: () => true };
}

/** v1.1's true (true, t, 1), else false. */
export function v1True(v: string | null | undefined): boolean {
  return v === 'true' || v === 't' || v === '1';
}
