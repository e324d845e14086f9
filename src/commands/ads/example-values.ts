// Values the generated ads examples show (issue 29: `--targeting-type TARGETING_TYPE ...` taught
// nothing): ids shaped as the service makes them (the ads reference's own examples), real
// times, URLs and words, each within its parameter's rule. Help only: nothing is sent.
import type { ParamDef } from '../../ads/resource-types.js';

/** By parameter (or path parameter) name. */
const BY_NAME: Record<string, string> = {
  account_id: '18ce54d4x5t',
  campaign_id: '8wku2',
  funding_instrument_id: 'lygyi',
  line_item_id: '8v7jo',
  line_item_ids: '8v7jo,8v7jp',
  targeting_criterion_id: 'dpl3a6',
  recommendation_id: '1nbx5',
  job_id: '1381302245934485504',
  promoted_account_id: '19pl2',
  promoted_tweet_id: '1efwlo',
  scheduled_promoted_tweet_id: '1xboq',
  media_creative_id: '1bzq3',
  tracking_tag_id: '3m82',
  line_item_curated_category_id: '43853',
  promotable_user_id: 'l310s',
  curated_category_id: '1vl8eo',
  custom_audience_id: '1nmth',
  custom_audience_permission_id: '1x2a3',
  tailored_audience_id: '1nmth',
  tailored_audience_permission_id: '1x2a3',
  do_not_reach_list_id: '1ne3h',
  account_media_id: '2pnfd',
  granted_account_id: '1ckh3z',
  card_id: '1jy3vu',
  card_uris: 'card://1044294149527166979',
  draft_tweet_id: '994747471329873920',
  scheduled_tweet_id: '1000000000000000001',
  preroll_call_to_action_id: '8f0',
  entity_id: '8wku2',
  entity_ids: '8wku2,8wku3',
  user_id: '756201191646691328',
  as_user_id: '756201191646691328',
  // the sandbox's seeded posts (sandbox/seed-posts.ts)
  tweet_ids: '1440000000000000042',
  media_key: '3_931236738554519552',
  name: 'Spring sale',
  currency: 'USD',
  locale: 'en-US',
  targeting_type: 'LOCATION',
  targeting_value: '96683cc9126741d1',
  country_codes: 'US,CA',
  keywords: 'shoes,sneakers',
  start_time: '2026-12-01T00:00:00Z',
  end_time: '2026-12-08T00:00:00Z',
  scheduled_at: '2026-12-01T09:00:00Z',
  tracking_tag_url: 'https://ad.doubleclick.net/ddm/trackimp/N1234.spring',
  call_to_action_url: 'https://example.com/spring',
  duration_in_minutes: '1440',
  first_choice: 'Yes',
  second_choice: 'No',
  first_cta: '#SpringSale',
  first_cta_tweet: "I'm in",
  thank_you_text: 'Thanks!',
};

/**
 * A real-looking value for a parameter: the table above, else by kind (an ads id, a time, a
 * URL, a number within its rule); never a placeholder in capitals.
 */
export function sampleValue(name: string, d?: Pick<ParamDef, 'kind' | 'enumValues'>): string {
  const v = d?.enumValues?.[0] ?? BY_NAME[name];
  if (v !== undefined) return /[\s'"]/.test(v) ? `"${v}"` : v;
  if (name.endsWith('_url')) return 'https://example.com/spring';
  if (name.endsWith('_ids')) return '8wku2,8wku3';
  if (name.endsWith('_id') || d?.kind === 'id') return '8wku2';
  if (d?.kind === 'time' || /_(at|time)$/.test(name)) return '2026-12-01T00:00:00Z';
  if (d?.kind === 'int' || d?.kind === 'long') return '10';
  if (d?.kind === 'micro') return '5000000';
  return 'spring';
}
