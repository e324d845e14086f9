// Emulator behaviour by resource name (see behaviour.ts). Keyed by AdsCollection: a misspelt
// resource name does not compile.
import type { AdsCollection } from '../../ads/resource-types.js';
import type { Behaviour } from './behaviour.js';
import { ACCOUNTS } from './accounts.js';
import { CAMPAIGNS, FUNDING_INSTRUMENTS } from './campaigns.js';
import {
  LINE_ITEM_CURATED_CATEGORIES,
  MEDIA_CREATIVES,
  PROMOTED_ACCOUNTS,
  PROMOTED_TWEETS,
  SCHEDULED_PROMOTED_TWEETS,
  TRACKING_TAGS,
} from './attachments.js';
import {
  ACCOUNT_MEDIA,
  CARDS,
  CONVERSATION_CARDS,
  DRAFT_TWEETS,
  POLL_CARDS,
  PREROLL_CALL_TO_ACTIONS,
  SCHEDULED_TWEETS,
  TWEET_PREVIEWS,
  TWEETS,
} from './creatives.js';
import {
  BIDDING_RULES,
  BUSINESS_CATEGORIES,
  CONTENT_CATEGORIES,
  CURATED_CATEGORIES,
  KEYWORD_INSIGHTS,
  PLACEMENTS,
  PUBLISHERS,
} from './reference.js';
import { TAX_SETTINGS, USER_SETTINGS } from './settings.js';
import {
  AUDIENCE_ESTIMATES,
  CUSTOM_AUDIENCES,
  CUSTOM_AUDIENCE_PERMISSIONS,
  DO_NOT_REACH_LISTS,
  TAILORED_AUDIENCE_PERMISSIONS,
} from './audiences.js';
import { LINE_ITEMS } from './line-items.js';
import { TARGETING, TARGETING_OPTIONS } from './targeting.js';
import { STATS, STATS_JOBS } from './stats.js';
import { MEDIA_LIBRARY } from './media-library.js';

export const BEHAVIOURS: Partial<Record<AdsCollection, Behaviour>> = {
  accounts: ACCOUNTS,
  campaigns: CAMPAIGNS,
  funding_instruments: FUNDING_INSTRUMENTS,
  line_items: LINE_ITEMS,
  promoted_accounts: PROMOTED_ACCOUNTS,
  promoted_tweets: PROMOTED_TWEETS,
  scheduled_promoted_tweets: SCHEDULED_PROMOTED_TWEETS,
  media_creatives: MEDIA_CREATIVES,
  tracking_tags: TRACKING_TAGS,
  line_item_curated_categories: LINE_ITEM_CURATED_CATEGORIES,
  account_media: ACCOUNT_MEDIA,
  cards: CARDS,
  poll_cards: POLL_CARDS,
  conversation_cards: CONVERSATION_CARDS,
  draft_tweets: DRAFT_TWEETS,
  scheduled_tweets: SCHEDULED_TWEETS,
  preroll_call_to_actions: PREROLL_CALL_TO_ACTIONS,
  media_library: MEDIA_LIBRARY,
  tweet_previews: TWEET_PREVIEWS,
  tweets: TWEETS,
  bidding_rules: BIDDING_RULES,
  content_categories: CONTENT_CATEGORIES,
  advertiser_business_categories: BUSINESS_CATEGORIES,
  publishers: PUBLISHERS,
  placements: PLACEMENTS,
  curated_categories: CURATED_CATEGORIES,
  keyword_insights: KEYWORD_INSIGHTS,
  tax_settings: TAX_SETTINGS,
  user_settings: USER_SETTINGS,
  custom_audiences: CUSTOM_AUDIENCES,
  custom_audience_permissions: CUSTOM_AUDIENCE_PERMISSIONS,
  tailored_audience_permissions: TAILORED_AUDIENCE_PERMISSIONS,
  do_not_reach_lists: DO_NOT_REACH_LISTS,
  audience_estimates: AUDIENCE_ESTIMATES,
  targeting_criteria: TARGETING,
  targeting_options: TARGETING_OPTIONS,
  stats: STATS,
  stats_jobs: STATS_JOBS,
};
