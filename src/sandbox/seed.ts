// What a fresh sandbox holds: one app, its owner and two more users, an ads account with a
// funding instrument, so that every command has something to act on.
import type { SandboxSeed, SeedTarget } from './app.js';
import { seedAudiences } from './seed-audiences.js';
import { randomToken } from './state.js';
import { sandboxAccountFields } from './ads/accounts.js';
import { sandboxFundingInstrument } from './ads/campaigns.js';
import { seedCreatives } from './seed-creatives.js';
import { seedPosts } from './seed-posts.js';
import { isoSeconds } from '../contract/time.js';
import { SEEDED_IDS } from '../contract/sandbox-seed.js';

export const SEED_USERS = [
  { id: '2244994945', screen_name: 'xctl_dev', name: 'xctl Developer', bio: 'I build things with the API.' },
  { id: '783214', screen_name: 'sandbox_alice', name: 'Alice Sandbox', bio: 'Marketing at a sandbox company.' },
  { id: '6253282', screen_name: 'sandbox_bob', name: 'Bob Sandbox', bio: 'Just here for the webhooks.' },
];

export function seedState(app: SeedTarget): SandboxSeed {
  const { state } = app;
  for (const u of SEED_USERS) state.users.set(u.id, { ...u });
  const owner = SEED_USERS[0]!;
  const key = randomToken(25);
  state.apps.set(key, {
    key,
    secret: randomToken(50),
    name: 'xctl sandbox app',
    ownerUserId: owner.id,
    callbacks: [],
    tokenRequests: [],
    approvedBy: new Set(),
  });
  const a = state.apps.get(key)!;
  const t = state.issueUserToken(key, owner.id, 'read-write-directmessages');
  // OAuth 2.0 client ids look like the platform's (34 base64url characters).
  const clientId = randomToken(34);
  const publicClientId = randomToken(34);
  state.oauth2Clients.set(clientId, { clientId, secret: randomToken(50), appKey: key, type: 'confidential' });
  state.oauth2Clients.set(publicClientId, { clientId: publicClientId, appKey: key, type: 'public' });

  const now = isoSeconds(app.clock.now()); // ads timestamps are to the second (spec 2.1)
  const accountId = SEEDED_IDS.account;
  state.collection('accounts').set(accountId, {
    id: accountId,
    ...sandboxAccountFields('Sandbox Ads Account', now, owner.id),
    industry_type: 'TECHNOLOGY',
    salt: randomToken(32, '0123456789abcdef'),
    created_at: now,
    updated_at: now,
    deleted: false,
  });
  const fiId = SEEDED_IDS.fundingInstrument;
  state.collection('funding_instruments').set(fiId, sandboxFundingInstrument(fiId, accountId, now));
  seedAds(app, accountId, fiId, owner.id);
  seedAudiences(app, accountId, owner.id);
  seedPosts(app, owner.id, new Date(app.clock.now()).toISOString());
  return {
    base_url: '',
    api_key: a.key,
    api_secret: a.secret,
    access_token: t.token,
    access_token_secret: t.secret,
    user_id: owner.id,
    screen_name: owner.screen_name,
    account_id: accountId,
    client_id: clientId,
    client_secret: state.oauth2Clients.get(clientId)!.secret!,
    public_client_id: publicClientId,
  };
}

/** One line item of each product type (with a targeting criterion each), under the seeded campaign. */
function seedLineItems(
  app: SeedTarget,
  base: Record<string, unknown>,
  o: { campaignId: string; fiId: string; t: number },
): void {
  const { state } = app;
  const { campaignId, fiId, t } = o;
  const now = isoSeconds(t);
  // Seeded before the line-item endpoints existed; they stay, each a full record, so that older
  // scripts and the attachments have one line item of each product type to point at.
  const lineItems = [
    {
      name: 'Website clicks',
      objective: 'WEBSITE_CLICKS',
      product_type: 'PROMOTED_TWEETS',
      goal: 'LINK_CLICKS',
      pay_by: 'IMPRESSION',
      categories: [],
    },
    {
      name: 'Followers',
      objective: 'FOLLOWERS',
      product_type: 'PROMOTED_ACCOUNT',
      goal: 'FOLLOWERS',
      pay_by: 'IMPRESSION',
      categories: [],
    },
    {
      name: 'Preroll views',
      objective: 'PREROLL_VIEWS',
      product_type: 'MEDIA',
      goal: 'PREROLL',
      pay_by: 'IMPRESSION',
      categories: ['bc-tech'],
    },
  ];
  lineItems.forEach((li, i) => {
    const id = SEEDED_IDS.lineItems[i]!;
    state.collection('line_items').set(id, {
      id,
      ...base,
      campaign_id: campaignId,
      funding_instrument_id: fiId,
      currency: 'USD',
      ...li,
      entity_status: 'ACTIVE',
      placements: ['ALL_ON_TWITTER'],
      start_time: now,
      end_time: null,
      bid_strategy: 'AUTO',
      bid_amount_local_micro: null,
      creative_source: 'MANUAL',
      _delivery: [[t, null]],
    });
    const tcId = SEEDED_IDS.targetingCriteria[i]!;
    state.collection('targeting_criteria').set(tcId, {
      id: tcId,
      ...base,
      line_item_id: id,
      targeting_type: 'LOCATION',
      targeting_value: '96683cc9126741d1',
      name: 'United States',
      operator_type: 'EQ',
    });
  });
}

/**
 * Ads entities whose CRUD the spec does not show (line items, promotable users, account apps,
 * recommendations, targeting criteria), plus one account media object and one scheduled post
 * for the line-item attachments to point at. Line items, one per product type:
 *   "Website clicks" (WEBSITE_CLICKS, PROMOTED_TWEETS): media creatives need landing_url;
 *   "Followers" (FOLLOWERS, PROMOTED_ACCOUNT): the only one promoted accounts may join;
 *   "Preroll views" (PREROLL_VIEWS, MEDIA): for preroll calls to action.
 */
function seedAds(app: SeedTarget, accountId: string, fiId: string, ownerId: string): void {
  const { state } = app;
  const t = app.clock.now();
  const now = isoSeconds(t);
  const base = { account_id: accountId, created_at: now, updated_at: now, deleted: false };
  const campaignId = SEEDED_IDS.campaign;
  state.collection('campaigns').set(campaignId, {
    id: campaignId,
    ...base,
    name: 'Seeded campaign',
    funding_instrument_id: fiId,
    budget_optimization: 'CAMPAIGN',
    daily_budget_amount_local_micro: 50_000_000,
    entity_status: 'ACTIVE',
    standard_delivery: true,
    currency: 'USD',
    servable: true,
    reasons_not_servable: [],
  });
  seedLineItems(app, base, { campaignId, fiId, t });
  const users = [
    { user_id: ownerId, promotable_user_type: 'FULL' },
    { user_id: '783214', promotable_user_type: 'RETWEETS_ONLY' },
  ];
  users.forEach((u, i) => {
    const id = SEEDED_IDS.promotableUsers[i]!;
    state.collection('promotable_users').set(id, { id, ...base, ...u });
  });
  const appId = SEEDED_IDS.accountApp;
  state.collection('account_apps').set(appId, {
    id: appId,
    ...base,
    name: 'Sandbox App',
    app_store_identifier: 'com.example.sandbox',
    os_type: 'Android',
  });
  const mediaId = SEEDED_IDS.accountMedia;
  state.collection('account_media').set(mediaId, {
    id: mediaId,
    ...base,
    video_id: null,
    media_url: 'https://pbs.example/media/banner.png',
    creative_type: 'BANNER',
  });
  // Scheduled post ids are longs (scheduled_promoted_tweets takes scheduled_tweet_id as a long).
  const stId = '1000000000000000001';
  state.collection('scheduled_tweets').set(stId, {
    id: stId,
    ...base,
    name: 'Seeded scheduled post',
    text: 'Coming soon',
    user_id: ownerId,
    nullcast: true,
    card_uri: null,
    media_keys: [],
    scheduled_at: isoSeconds(t + 24 * 3600_000),
    scheduled_status: 'SCHEDULED',
    completed_at: null,
    tweet_id: null,
  });
  const recId = SEEDED_IDS.recommendation;
  state.collection('recommendations').set(recId, {
    id: recId,
    ...base,
    funding_instrument_id: fiId,
    message: 'Raise the daily budget of "Seeded campaign" to reach more people',
    recommendation: {
      campaigns: [
        { operation_type: 'Update', params: { campaign_id: campaignId, daily_budget_amount_local_micro: 75_000_000 } },
      ],
    },
  });
  seedCreatives(app, base);
}
