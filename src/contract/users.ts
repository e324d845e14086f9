// The signed-in user's reads: GET /2/users/me (the v2 user object with the user.fields a client
// asks for) and the v1.1 account reads (verify_credentials, rate_limit_status), described with
// their parameters as the other endpoints are (params.ts). /2/users/me follows the platform's
// OpenAPI specification, version 2.167, operation getUsersMe.
import { param, type ParamSpec } from './params.js';

/** The user.fields of GET /2/users/me (OpenAPI 2.167 getUsersMe, UserFieldsParameter). */
export const USER_FIELDS = [
  'confirmed_email',
  'connection_status',
  'created_at',
  'description',
  'entities',
  'id',
  'is_identity_verified',
  'location',
  'name',
  'parody',
  'profile_banner_url',
  'profile_image_url',
  'protected',
  'public_metrics',
  'receives_your_dm',
  'subscribes_to_you',
  'subscription',
  'subscription_type',
  'url',
  'username',
  'verified',
  'verified_followers_count',
  'verified_type',
  'withheld',
] as const;

/** The expansions of a user (OpenAPI 2.167, UserExpansionsParameter). */
export const USER_EXPANSIONS = ['affiliation', 'most_recent_post_id', 'pinned_post_id'] as const;

/** The post.fields of an expanded post (OpenAPI 2.167, PostFieldsParameter). */
export const POST_FIELDS = [
  'article',
  'article_title',
  'attachments',
  'card_uri',
  'community_id',
  'context_annotations',
  'conversation_id',
  'created_at',
  'display_text_range',
  'edit_controls',
  'entities',
  'geo',
  'id',
  'lang',
  'matched_media_notes',
  'media_metadata',
  'non_public_metrics',
  'note_post',
  'note_request_suggestions',
  'organic_metrics',
  'paid_partnership',
  'possibly_sensitive',
  'promoted_metrics',
  'public_metrics',
  'reply_settings',
  'scopes',
  'source',
  'suggested_source_links',
  'suggested_source_links_with_counts',
  'text',
  'withheld',
] as const;

/**
 * The fields asked for: a comma list of at least one field, each once (the key may repeat: the
 * sandbox joins its values with commas). The platform's words for a field it does not know:
 * `value [x] is not one of [...]`.
 */
export const USER_FIELDS_PARAM: ParamSpec = param.list(
  'user.fields',
  { items: USER_FIELDS, noun: 'user fields', unique: true },
  { in: 'query', flag: '--user-fields' },
);

/** GET /2/users/me's query: user.fields, expansions, post.fields. */
export const USERS_ME_PARAMS: readonly ParamSpec[] = [
  USER_FIELDS_PARAM,
  param.list('expansions', { items: USER_EXPANSIONS, noun: 'expansions', unique: true }, { in: 'query' }),
  param.list('post.fields', { items: POST_FIELDS, noun: 'post fields', unique: true }, { in: 'query' }),
];

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
