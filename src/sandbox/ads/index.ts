// Emulator behaviour by resource name (see behaviour.ts).
import type { Behaviour } from './behaviour.js';
import { BIDDING_RULES, BUSINESS_CATEGORIES, CONTENT_CATEGORIES, CURATED_CATEGORIES, KEYWORD_INSIGHTS, PUBLISHERS } from './reference.js';
import { TAX_SETTINGS, USER_SETTINGS } from './settings.js';

export const BEHAVIOURS: Partial<Record<string, Behaviour>> = {
  bidding_rules: BIDDING_RULES,
  content_categories: CONTENT_CATEGORIES,
  advertiser_business_categories: BUSINESS_CATEGORIES,
  publishers: PUBLISHERS,
  curated_categories: CURATED_CATEGORIES,
  keyword_insights: KEYWORD_INSIGHTS,
  tax_settings: TAX_SETTINGS,
  user_settings: USER_SETTINGS,
};
