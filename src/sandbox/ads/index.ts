// Emulator behaviour by resource name (see behaviour.ts).
import type { Behaviour } from './behaviour.js';
import { BIDDING_RULES, BUSINESS_CATEGORIES, CONTENT_CATEGORIES, CURATED_CATEGORIES, KEYWORD_INSIGHTS, PUBLISHERS } from './reference.js';
import { TAX_SETTINGS, USER_SETTINGS } from './settings.js';
import { AUDIENCE_ESTIMATES, CUSTOM_AUDIENCES, CUSTOM_AUDIENCE_PERMISSIONS, DO_NOT_REACH_LISTS, TAILORED_AUDIENCE_PERMISSIONS } from './audiences.js';
import { LINE_ITEMS, campaignBehaviour } from './line-items.js';
import { TARGETING, TARGETING_OPTIONS } from './targeting.js';
import { STATS, STATS_JOBS } from './stats.js';
import { mediaLibraryBehaviour } from './media-library.js';
import { resourceByName } from '../../ads/resources.js';

export const BEHAVIOURS: Partial<Record<string, Behaviour>> = {
  bidding_rules: BIDDING_RULES,
  content_categories: CONTENT_CATEGORIES,
  advertiser_business_categories: BUSINESS_CATEGORIES,
  publishers: PUBLISHERS,
  curated_categories: CURATED_CATEGORIES,
  keyword_insights: KEYWORD_INSIGHTS,
  tax_settings: TAX_SETTINGS,
  user_settings: USER_SETTINGS,
  custom_audiences: CUSTOM_AUDIENCES,
  custom_audience_permissions: CUSTOM_AUDIENCE_PERMISSIONS,
  tailored_audience_permissions: TAILORED_AUDIENCE_PERMISSIONS,
  do_not_reach_lists: DO_NOT_REACH_LISTS,
  audience_estimates: AUDIENCE_ESTIMATES,
  campaigns: campaignBehaviour(resourceByName('campaigns')!),
  line_items: LINE_ITEMS,
  targeting_criteria: TARGETING,
  targeting_options: TARGETING_OPTIONS,
  stats: STATS,
  stats_jobs: STATS_JOBS,
  media_library: mediaLibraryBehaviour(resourceByName('media_library')!),
};
