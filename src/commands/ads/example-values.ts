// Values the generated ads examples show (issue 29: `--targeting-type TARGETING_TYPE ...` taught
// nothing): ids shaped as the service makes them (the ads reference's own examples), real
// times, URLs and words, each within its parameter's rule. Help only: nothing is sent.
import type { ParamDef } from '../../ads/resource-types.js';
import { SEEDED_IDS as S } from '../../contract/sandbox-seed.js';

/** By parameter (or path parameter) name. */
const BY_NAME: Record<string, string> = {
  account_id: S.account,
  campaign_id: S.campaign,
  funding_instrument_id: S.fundingInstrument,
  line_item_id: S.lineItems[0],
  line_item_ids: S.lineItems.slice(0, 2).join(','),
  targeting_criterion_id: S.targetingCriteria[0],
  recommendation_id: S.recommendation,
  job_id: '1381302245934485504',
  promoted_account_id: '19pl2',
  promoted_tweet_id: '1efwlo',
  scheduled_promoted_tweet_id: '1xboq',
  media_creative_id: '1bzq3',
  tracking_tag_id: '3m82',
  line_item_curated_category_id: '43853',
  promotable_user_id: S.promotableUsers[0],
  curated_category_id: '1vl8eo',
  custom_audience_id: S.audience,
  custom_audience_permission_id: '1x2a3',
  tailored_audience_id: S.audience,
  tailored_audience_permission_id: '1x2a3',
  do_not_reach_list_id: '1ne3h',
  account_media_id: S.accountMedia,
  granted_account_id: S.sisterAccount,
  card_id: '1jy3vu',
  card_uris: 'card://1044294149527166979',
  draft_tweet_id: '994747471329873920',
  scheduled_tweet_id: '1000000000000000001',
  preroll_call_to_action_id: '8f0',
  entity_id: S.campaign,
  entity: 'CAMPAIGN',
  entity_type: 'CAMPAIGN',
  objective: 'WEBSITE_CLICKS',
  product_type: 'PROMOTED_TWEETS',
  text: 'Spring sale: 20% off today',
  second_cta: '#SpringDeals',
  second_cta_tweet: 'Tell me more',
  granularity: 'TOTAL',
  entity_ids: S.campaign,
  user_id: S.owner,
  as_user_id: S.owner,
  // the sandbox's seeded posts (sandbox/seed-posts.ts)
  tweet_ids: '1440000000000000042',
  media_key: '3_1000000000000000011',
  name: 'Spring sale',
  currency: 'USD',
  locale: 'en-US',
  targeting_type: 'LOCATION',
  targeting_value: '96683cc9126741d1',
  country_codes: 'US,CA',
  keywords: 'shoes,sneakers',
  // relative (parseRelativeTime): an example that works on any day
  start_time: 'today-6d',
  end_time: 'today',
  scheduled_at: 'today+2d',
  tracking_tag_url: 'https://ad.doubleclick.net/ddm/trackimp/N1234.spring',
  call_to_action_url: 'https://example.com/spring',
  duration_in_minutes: '1440',
  first_choice: 'Yes',
  second_choice: 'No',
  first_cta: '#SpringSale',
  first_cta_tweet: "I'm in",
  thank_you_text: 'Thanks!',
};

/** Optional parameters an example still shows: the ones a rule asks for when others are absent. */
export const SHOWN_OPTIONAL = new Set(['text', 'second_cta', 'second_cta_tweet']);

/**
 * A real-looking value for a parameter: the table above, else by kind (an ads id, a time, a
 * URL, a number within its rule); never a placeholder in capitals.
 */
export function sampleValue(name: string, d?: Pick<ParamDef, 'kind' | 'enumValues'>): string {
  const named = BY_NAME[name];
  const v =
    (named !== undefined && (!d?.enumValues || d.enumValues.includes(named)) ? named : undefined) ?? d?.enumValues?.[0];
  if (v !== undefined) return /[\s'"]/.test(v) ? `"${v}"` : v;
  if (name.endsWith('_url')) return 'https://example.com/spring';
  if (name.endsWith('_ids')) return S.campaign;
  if (name.endsWith('_id') || d?.kind === 'id') return S.campaign;
  if (d?.kind === 'time' || /_(at|time)$/.test(name)) return 'today+1d';
  if (d?.kind === 'int' || d?.kind === 'long') return '10';
  if (d?.kind === 'micro') return '5000000';
  return 'spring';
}
