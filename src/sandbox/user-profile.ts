// The sandbox users as the platform describes a user: the v2 user object with the `user.fields`
// a client asks for (GET /2/users/me), and the v1.1 user object (verify_credentials, whose
// recorded answers carry about 45 fields). Values are fixed per user, derived from its id.
import type { SandboxUser } from './state.js';

/** Numbers that differ per user but never change (counts, the account's creation time). */
function facts(u: SandboxUser): {
  created: number;
  followers: number;
  following: number;
  tweets: number;
  listed: number;
  likes: number;
} {
  const n = Number(BigInt(u.id) % 1000n);
  return {
    created: Date.UTC(2012, n % 12, 1 + (n % 28), 9, 30, 0),
    followers: 100 + n * 7,
    following: 50 + n,
    tweets: 1000 + n * 3,
    listed: n % 40,
    likes: 200 + n * 2,
  };
}

const image = (u: SandboxUser) => `https://pbs.twimg.com/profile_images/${u.id}/${u.screen_name}_normal.png`;

/** The v2 user with the fields asked for (id, name, username always). */
export function userV2(u: SandboxUser, fields: readonly string[]): Record<string, unknown> {
  const f = facts(u);
  const all: Record<string, unknown> = {
    created_at: new Date(f.created).toISOString(),
    description: u.bio,
    entities: { description: {} },
    location: 'Sandbox',
    profile_image_url: image(u),
    protected: false,
    // The OpenAPI specification's UserPublicMetrics (2.167): post_count is required (the Python
    // XDK refuses a reply without it); the older tweet_count is not in it, so it is not answered.
    public_metrics: {
      followers_count: f.followers,
      following_count: f.following,
      post_count: f.tweets,
      listed_count: f.listed,
      like_count: f.likes,
      media_count: f.listed,
    },
    url: '',
    verified: false,
    verified_type: 'none',
  };
  const out: Record<string, unknown> = { id: u.id, name: u.name, username: u.screen_name };
  for (const k of fields) if (k in all) out[k] = all[k];
  return out;
}

/** Twitter's v1.1 time format: "Wed Aug 29 17:12:58 +0000 2012". */
function v1Date(ms: number): string {
  const [wd, day, mon, year, time] = new Date(ms).toUTCString().replace(',', '').split(' ') as [
    string,
    string,
    string,
    string,
    string,
  ];
  return `${wd} ${mon} ${day} ${time} +0000 ${year}`;
}

/** The v1.1 user object, every field a recorded verify_credentials answer has. */
export function userV1(u: SandboxUser): Record<string, unknown> {
  const f = facts(u);
  return {
    id: BigInt(u.id),
    id_str: u.id,
    name: u.name,
    screen_name: u.screen_name,
    location: 'Sandbox',
    description: u.bio,
    url: null,
    entities: { description: { urls: [] } },
    protected: false,
    followers_count: f.followers,
    friends_count: f.following,
    listed_count: f.listed,
    created_at: v1Date(f.created),
    favourites_count: f.likes,
    utc_offset: null,
    time_zone: null,
    geo_enabled: false,
    verified: false,
    statuses_count: f.tweets,
    lang: null,
    contributors_enabled: false,
    is_translator: false,
    is_translation_enabled: false,
    profile_background_color: 'F5F8FA',
    profile_background_image_url: null,
    profile_background_image_url_https: null,
    profile_background_tile: false,
    profile_image_url: image(u).replace('https:', 'http:'),
    profile_image_url_https: image(u),
    profile_link_color: '1DA1F2',
    profile_sidebar_border_color: 'C0DEED',
    profile_sidebar_fill_color: 'DDEEF6',
    profile_text_color: '333333',
    profile_use_background_image: true,
    has_extended_profile: false,
    default_profile: true,
    default_profile_image: false,
    following: false,
    follow_request_sent: false,
    notifications: false,
    translator_type: 'none',
    withheld_in_countries: [],
    suspended: false,
    needs_phone_verification: false,
  };
}
