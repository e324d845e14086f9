// Line-item attachments (spec 4.3): promoted accounts, promoted posts, scheduled promoted posts,
// media creatives, tracking tags, curated categories; and promotable users (targeting criteria
// are in targeting.ts). The sandbox's behaviour is in src/sandbox/ads/attachments.ts.
import type { ResourceDef } from '../resource-types.js';
import { commonList, p } from '../params.js';
import { createOp, customOp, deleteOp, getOp, listOp, resource, updateOp } from '../ops.js';

const A = '/accounts/:account_id';
/** Spec section 8: up to 50 tweet_ids per promoted-post association. */
export const PROMOTED_TWEETS_MAX = 50;

const withDeletedOnly = () => [p.bool('with_deleted', { default: false })];
const url = (name: string, o: { required?: boolean; help?: string } = {}) =>
  p.str(name, { ...o, max: 2048, pattern: /^https?:\/\/\S+$/, patternRule: 'an http(s) URL' });

const promotedAccounts = resource({
  name: 'promoted_accounts',
  dataType: 'promoted_account',
  noun: 'promoted-accounts',
  idParam: 'promoted_account_id',
  description: 'accounts promoted by PROMOTED_ACCOUNT line items',
  columns: ['id', 'line_item_id', 'user_id', 'entity_status', 'created_at', 'deleted'],
  operations: () => [
    listOp(`${A}/promoted_accounts`, [...commonList(), p.list('line_item_ids'), p.list('promoted_account_ids')], {
      description: 'list promoted accounts',
    }),
    getOp(`${A}/promoted_accounts/:promoted_account_id`, withDeletedOnly(), { description: 'one promoted account' }),
    createOp(
      `${A}/promoted_accounts`,
      [p.id('line_item_id', { required: true }), p.long('user_id', { required: true })],
      { description: 'promote an account on a line item' },
    ),
    deleteOp(`${A}/promoted_accounts/:promoted_account_id`, [], { description: 'disassociate a promoted account' }),
  ],
});

const promotedTweets = resource({
  name: 'promoted_tweets',
  dataType: 'promoted_tweet',
  noun: 'promoted-tweets',
  idParam: 'promoted_tweet_id',
  description: 'posts promoted by line items',
  columns: ['id', 'line_item_id', 'tweet_id', 'entity_status', 'approval_status', 'deleted'],
  operations: () => [
    listOp(`${A}/promoted_tweets`, [...commonList(), p.list('line_item_ids'), p.list('promoted_tweet_ids')], {
      description: 'list promoted posts',
    }),
    getOp(`${A}/promoted_tweets/:promoted_tweet_id`, withDeletedOnly(), { description: 'one promoted post' }),
    customOp(
      'create',
      'POST',
      'list',
      `${A}/promoted_tweets`,
      [
        p.id('line_item_id', { required: true }),
        p.list('tweet_ids', { of: 'long', max: PROMOTED_TWEETS_MAX, required: true }),
      ],
      { std: 'create', description: `promote up to ${PROMOTED_TWEETS_MAX} posts on a line item` },
    ),
    deleteOp(`${A}/promoted_tweets/:promoted_tweet_id`, [], {
      description: 'disassociate a promoted post (the id of the promoted_tweets record, not the post id)',
    }),
  ],
});

const scheduledPromotedTweets = resource({
  name: 'scheduled_promoted_tweets',
  dataType: 'scheduled_promoted_tweet',
  noun: 'scheduled-promoted-tweets',
  idParam: 'scheduled_promoted_tweet_id',
  description: 'scheduled posts attached to line items',
  columns: ['id', 'line_item_id', 'scheduled_tweet_id', 'created_at', 'deleted'],
  operations: () => [
    listOp(
      `${A}/scheduled_promoted_tweets`,
      [...commonList(), p.list('line_item_ids'), p.list('scheduled_promoted_tweet_ids')],
      { description: 'list scheduled promoted posts' },
    ),
    getOp(`${A}/scheduled_promoted_tweets/:scheduled_promoted_tweet_id`, withDeletedOnly(), {
      description: 'one scheduled promoted post',
    }),
    createOp(
      `${A}/scheduled_promoted_tweets`,
      [p.id('line_item_id', { required: true }), p.long('scheduled_tweet_id', { required: true })],
      {
        description: 'attach a scheduled post to a line item',
      },
    ),
    deleteOp(`${A}/scheduled_promoted_tweets/:scheduled_promoted_tweet_id`, [], {
      description: "detach it (only before the post's scheduled_at)",
    }),
  ],
});

const mediaCreatives = resource({
  name: 'media_creatives',
  dataType: 'media_creative',
  noun: 'media-creatives',
  idParam: 'media_creative_id',
  description: 'account media attached to line items',
  columns: ['id', 'line_item_id', 'account_media_id', 'campaign_id', 'landing_url', 'deleted'],
  operations: () => [
    listOp(
      `${A}/media_creatives`,
      [p.id('campaign_id'), ...commonList(), p.list('line_item_ids'), p.list('media_creative_ids')],
      { description: 'list media creatives' },
    ),
    getOp(`${A}/media_creatives/:media_creative_id`, withDeletedOnly(), { description: 'one media creative' }),
    createOp(
      `${A}/media_creatives`,
      [
        p.id('account_media_id', { required: true }),
        p.id('line_item_id', { required: true }),
        url('landing_url', { help: 'required when the line item objective is WEBSITE_CLICKS' }),
      ],
      { description: 'attach account media to a line item' },
    ),
    deleteOp(`${A}/media_creatives/:media_creative_id`, [], { description: 'detach a media creative' }),
  ],
});

const trackingTags = resource({
  name: 'tracking_tags',
  dataType: 'tracking_tag',
  noun: 'tracking-tags',
  idParam: 'tracking_tag_id',
  description: 'third-party impression and click trackers of line items',
  columns: ['id', 'line_item_id', 'tracking_tag_type', 'tracking_tag_url', 'deleted'],
  operations: () => [
    listOp(`${A}/tracking_tags`, [...commonList(), p.list('line_item_ids'), p.list('tracking_tag_ids')], {
      description: 'list tracking tags',
    }),
    getOp(`${A}/tracking_tags/:tracking_tag_id`, withDeletedOnly(), { description: 'one tracking tag' }),
    createOp(
      `${A}/tracking_tags`,
      [
        p.id('line_item_id', { required: true }),
        p.enumOf('tracking_tag_type', ['IMPRESSION_TAG', 'CLICK_TRACKER'], { required: true }),
        url('tracking_tag_url', { required: true }),
      ],
      { description: 'add a tracking tag to a line item' },
    ),
    updateOp(`${A}/tracking_tags/:tracking_tag_id`, [url('tracking_tag_url', { required: true })], {
      description: 'change the URL of a tracking tag',
    }),
    deleteOp(`${A}/tracking_tags/:tracking_tag_id`, [], { description: 'delete a tracking tag' }),
  ],
});

const lineItemCategories = resource({
  name: 'line_item_curated_categories',
  dataType: 'line_item_curated_category',
  noun: 'line-item-categories',
  idParam: 'line_item_curated_category_id',
  description: 'curated categories of line items (listing is not in the spec)',
  columns: ['id', 'line_item_id', 'curated_category_id', 'deleted'],
  operations: () => [
    createOp(
      `${A}/line_item_curated_categories`,
      [p.id('line_item_id', { required: true }), p.id('curated_category_id', { required: true })],
      {
        description: 'set the curated category of a line item',
      },
    ),
    updateOp(
      `${A}/line_item_curated_categories/:line_item_curated_category_id`,
      [p.id('curated_category_id'), p.id('line_item_id')],
      {
        description: 'change the line item or the category',
      },
    ),
    deleteOp(`${A}/line_item_curated_categories/:line_item_curated_category_id`, [], {
      description: 'remove the curated category of a line item',
    }),
  ],
});

const promotableUsers = resource({
  name: 'promotable_users',
  dataType: 'promotable_user',
  noun: 'promotable-users',
  idParam: 'promotable_user_id',
  description: 'users whose posts the account may promote (FULL or RETWEETS_ONLY)',
  columns: ['id', 'user_id', 'promotable_user_type', 'created_at'],
  operations: () => [
    listOp(`${A}/promotable_users`, [...commonList(), p.list('promotable_user_ids')], {
      description: 'list promotable users',
    }),
    getOp(`${A}/promotable_users/:promotable_user_id`, withDeletedOnly(), { description: 'one promotable user' }),
  ],
});

export const RESOURCES: ResourceDef[] = [
  promotedAccounts,
  promotedTweets,
  scheduledPromotedTweets,
  mediaCreatives,
  trackingTags,
  lineItemCategories,
  promotableUsers,
];
