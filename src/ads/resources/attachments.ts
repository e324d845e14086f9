// Line-item attachments (spec 4.3): promoted accounts, promoted posts, scheduled promoted posts,
// media creatives, tracking tags, curated categories; and promotable users (targeting criteria
// are in targeting.ts).
import type { ResourceDef, SandboxOps } from '../resource-types.js';
import { commonList, p } from '../params.js';
import { parseIsoTime } from '../../contract/time.js';
import { createOp, customOp, deleteOp, getOp, listOp, updateOp } from '../ops.js';

const A = '/accounts/:account_id';
/** Spec section 8: up to 50 tweet_ids per promoted-post association. */
export const PROMOTED_TWEETS_MAX = 50;

const withDeletedOnly = () => [p.bool('with_deleted', { default: false })];
const url = (name: string, o: { required?: boolean; help?: string } = {}) =>
  p.str(name, { ...o, max: 2048, pattern: /^https?:\/\/\S+$/, patternRule: 'an http(s) URL' });

function lineItem(ops: SandboxOps, id: unknown): Record<string, unknown> {
  return ops.find('line_items', String(id), { parameter: 'line_item_id' });
}

const promotedAccounts: ResourceDef = {
  name: 'promoted_accounts',
  dataType: 'promoted_account',
  noun: 'promoted-accounts',
  idParam: 'promoted_account_id',
  description: 'accounts promoted by PROMOTED_ACCOUNT line items',
  columns: ['id', 'line_item_id', 'user_id', 'entity_status', 'created_at', 'deleted'],
  operations: [
    listOp(`${A}/promoted_accounts`, [...commonList(), p.list('line_item_ids'), p.list('promoted_account_ids')], { description: 'list promoted accounts' }),
    getOp(`${A}/promoted_accounts/:promoted_account_id`, withDeletedOnly(), { description: 'one promoted account' }),
    createOp(`${A}/promoted_accounts`, [p.id('line_item_id', { required: true }), p.long('user_id', { required: true })], { description: 'promote an account on a line item' }),
    deleteOp(`${A}/promoted_accounts/:promoted_account_id`, [], { description: 'disassociate a promoted account' }),
  ],
  sandbox: {
    // Spec 7: listing with line items none of which support promoted accounts is a 400.
    beforeList(ops) {
      const ids = ops.values.line_item_ids as string[] | undefined;
      if (!ids) return;
      const lis = ops.collection('line_items');
      if (!ids.some((id) => lis.get(id)?.product_type === 'PROMOTED_ACCOUNT')) {
        ops.fail(400, 'INCOMPATIBLE_LINE_ITEM', 'none of the given line items supports promoted accounts', 'line_item_ids');
      }
    },
    create(entity, ops) {
      const li = lineItem(ops, entity.line_item_id);
      if (li.product_type !== 'PROMOTED_ACCOUNT') {
        ops.fail(400, 'INCOMPATIBLE_LINE_ITEM', `line item ${li.id} is not configured for promoted accounts (product_type ${String(li.product_type)})`, 'line_item_id');
      }
      // Spec 7: an ineligible user is a 400 and nobody is promoted.
      if (!ops.user(String(entity.user_id))) ops.fail(400, 'INVALID_PARAMETER', `user ${String(entity.user_id)} is not eligible for promotion`, 'user_id');
      // Spec 3: promoting an already-promoted user is ignored.
      for (const e of ops.collection('promoted_accounts').values()) {
        if (!e.deleted && e.line_item_id === entity.line_item_id && e.user_id === entity.user_id) return { existing: e };
      }
      entity.entity_status = 'ACTIVE';
    },
    history: 'PROMOTED_ACCOUNT',
  },
};

const promotedTweets: ResourceDef = {
  name: 'promoted_tweets',
  dataType: 'promoted_tweet',
  noun: 'promoted-tweets',
  idParam: 'promoted_tweet_id',
  description: 'posts promoted by line items',
  columns: ['id', 'line_item_id', 'tweet_id', 'entity_status', 'approval_status', 'deleted'],
  operations: [
    listOp(`${A}/promoted_tweets`, [...commonList(), p.list('line_item_ids'), p.list('promoted_tweet_ids')], { description: 'list promoted posts' }),
    getOp(`${A}/promoted_tweets/:promoted_tweet_id`, withDeletedOnly(), { description: 'one promoted post' }),
    customOp(
      'create',
      'POST',
      'list',
      `${A}/promoted_tweets`,
      [p.id('line_item_id', { required: true }), p.list('tweet_ids', { of: 'long', max: PROMOTED_TWEETS_MAX, required: true })],
      {
        std: 'create',
        description: `promote up to ${PROMOTED_TWEETS_MAX} posts on a line item`,
        sandbox: (ops) => {
          const li = lineItem(ops, ops.values.line_item_id);
          const existing = [...ops.collection('promoted_tweets').values()].filter((e) => e.line_item_id === li.id && !e.deleted);
          return (ops.values.tweet_ids as string[]).map(
            (tweetId) =>
              existing.find((e) => e.tweet_id === tweetId) ??
              ops.insert({ line_item_id: li.id, tweet_id: tweetId, entity_status: 'ACTIVE', approval_status: 'ACCEPTED' }),
          );
        },
      },
    ),
    deleteOp(`${A}/promoted_tweets/:promoted_tweet_id`, [], { description: 'disassociate a promoted post (the id of the promoted_tweets record, not the post id)' }),
  ],
  sandbox: {
    // Spec 3: after the parent line item is deleted a promoted post stays deleted=false but
    // is returned only with with_deleted=true.
    listFilter: (e, ops) => ops.values.with_deleted === true || ops.collection('line_items').get(String(e.line_item_id))?.deleted !== true,
    // Spec 3: a disassociated post shows as paused in the management UI.
    delete(entity) {
      entity.entity_status = 'PAUSED';
    },
    history: 'PROMOTED_TWEET',
  },
};

const scheduledPromotedTweets: ResourceDef = {
  name: 'scheduled_promoted_tweets',
  dataType: 'scheduled_promoted_tweet',
  noun: 'scheduled-promoted-tweets',
  idParam: 'scheduled_promoted_tweet_id',
  description: 'scheduled posts attached to line items',
  columns: ['id', 'line_item_id', 'scheduled_tweet_id', 'created_at', 'deleted'],
  operations: [
    listOp(`${A}/scheduled_promoted_tweets`, [...commonList(), p.list('line_item_ids'), p.list('scheduled_promoted_tweet_ids')], { description: 'list scheduled promoted posts' }),
    getOp(`${A}/scheduled_promoted_tweets/:scheduled_promoted_tweet_id`, withDeletedOnly(), { description: 'one scheduled promoted post' }),
    createOp(`${A}/scheduled_promoted_tweets`, [p.id('line_item_id', { required: true }), p.long('scheduled_tweet_id', { required: true })], {
      description: 'attach a scheduled post to a line item',
    }),
    deleteOp(`${A}/scheduled_promoted_tweets/:scheduled_promoted_tweet_id`, [], { description: "detach it (only before the post's scheduled_at)" }),
  ],
  sandbox: {
    deleteMode: 'hard',
    create(entity, ops) {
      lineItem(ops, entity.line_item_id);
      ops.find('scheduled_tweets', String(entity.scheduled_tweet_id), { parameter: 'scheduled_tweet_id' });
    },
    // Spec 3: only before the scheduled post's scheduled_at.
    delete(entity, ops) {
      const st = ops.collection('scheduled_tweets').get(String(entity.scheduled_tweet_id));
      const at = st ? parseIsoTime(String(st.scheduled_at)) : undefined;
      if (at !== undefined && ops.nowMs() >= at) {
        ops.fail(400, 'INVALID_PARAMETER', `the scheduled post went out at ${String(st!.scheduled_at)}: a scheduled promoted post can only be deleted before then`, 'scheduled_promoted_tweet_id');
      }
    },
  },
};

const mediaCreatives: ResourceDef = {
  name: 'media_creatives',
  dataType: 'media_creative',
  noun: 'media-creatives',
  idParam: 'media_creative_id',
  description: 'account media attached to line items',
  columns: ['id', 'line_item_id', 'account_media_id', 'campaign_id', 'landing_url', 'deleted'],
  operations: [
    listOp(`${A}/media_creatives`, [p.id('campaign_id'), ...commonList(), p.list('line_item_ids'), p.list('media_creative_ids')], { description: 'list media creatives' }),
    getOp(`${A}/media_creatives/:media_creative_id`, withDeletedOnly(), { description: 'one media creative' }),
    createOp(
      `${A}/media_creatives`,
      [p.id('account_media_id', { required: true }), p.id('line_item_id', { required: true }), url('landing_url', { help: 'required when the line item objective is WEBSITE_CLICKS' })],
      { description: 'attach account media to a line item' },
    ),
    deleteOp(`${A}/media_creatives/:media_creative_id`, [], { description: 'detach a media creative' }),
  ],
  sandbox: {
    create(entity, ops) {
      const li = lineItem(ops, entity.line_item_id);
      const media = ops.find('account_media', String(entity.account_media_id), { parameter: 'account_media_id' });
      if (li.objective === 'WEBSITE_CLICKS' && entity.landing_url === undefined) {
        ops.fail(400, 'MISSING_PARAMETER', 'landing_url is required when the line item objective is WEBSITE_CLICKS', 'landing_url');
      }
      if (media.creative_type === 'PREROLL') delete entity.landing_url; // ignored for preroll
      entity.campaign_id = li.campaign_id;
      entity.serving_status = 'ACTIVE';
      entity.approval_status = 'ACCEPTED';
    },
  },
};

const trackingTags: ResourceDef = {
  name: 'tracking_tags',
  dataType: 'tracking_tag',
  noun: 'tracking-tags',
  idParam: 'tracking_tag_id',
  description: 'third-party impression and click trackers of line items',
  columns: ['id', 'line_item_id', 'tracking_tag_type', 'tracking_tag_url', 'deleted'],
  operations: [
    listOp(`${A}/tracking_tags`, [...commonList(), p.list('line_item_ids'), p.list('tracking_tag_ids')], { description: 'list tracking tags' }),
    getOp(`${A}/tracking_tags/:tracking_tag_id`, withDeletedOnly(), { description: 'one tracking tag' }),
    createOp(
      `${A}/tracking_tags`,
      [p.id('line_item_id', { required: true }), p.enumOf('tracking_tag_type', ['IMPRESSION_TAG', 'CLICK_TRACKER'], { required: true }), url('tracking_tag_url', { required: true })],
      { description: 'add a tracking tag to a line item' },
    ),
    updateOp(`${A}/tracking_tags/:tracking_tag_id`, [url('tracking_tag_url', { required: true })], { description: 'change the URL of a tracking tag' }),
    deleteOp(`${A}/tracking_tags/:tracking_tag_id`, [], { description: 'delete a tracking tag' }),
  ],
  sandbox: {
    create(entity, ops) {
      lineItem(ops, entity.line_item_id);
    },
  },
};

const lineItemCategories: ResourceDef = {
  name: 'line_item_curated_categories',
  dataType: 'line_item_curated_category',
  noun: 'line-item-categories',
  idParam: 'line_item_curated_category_id',
  description: 'curated categories of line items (listing is not in the spec)',
  columns: ['id', 'line_item_id', 'curated_category_id', 'deleted'],
  operations: [
    createOp(`${A}/line_item_curated_categories`, [p.id('line_item_id', { required: true }), p.id('curated_category_id', { required: true })], {
      description: 'set the curated category of a line item',
    }),
    updateOp(`${A}/line_item_curated_categories/:line_item_curated_category_id`, [p.id('curated_category_id'), p.id('line_item_id')], {
      description: 'change the line item or the category',
    }),
    deleteOp(`${A}/line_item_curated_categories/:line_item_curated_category_id`, [], { description: 'remove the curated category of a line item' }),
  ],
  sandbox: {
    create(entity, ops) {
      lineItem(ops, entity.line_item_id);
      ops.find('curated_categories', String(entity.curated_category_id), { parameter: 'curated_category_id' });
    },
    update(entity, _before, ops) {
      lineItem(ops, entity.line_item_id);
      ops.find('curated_categories', String(entity.curated_category_id), { parameter: 'curated_category_id' });
    },
  },
};

const promotableUsers: ResourceDef = {
  name: 'promotable_users',
  dataType: 'promotable_user',
  noun: 'promotable-users',
  idParam: 'promotable_user_id',
  description: 'users whose posts the account may promote (FULL or RETWEETS_ONLY)',
  columns: ['id', 'user_id', 'promotable_user_type', 'created_at'],
  operations: [
    listOp(`${A}/promotable_users`, [...commonList(), p.list('promotable_user_ids')], { description: 'list promotable users' }),
    getOp(`${A}/promotable_users/:promotable_user_id`, withDeletedOnly(), { description: 'one promotable user' }),
  ],
};

export const RESOURCES: ResourceDef[] = [
  promotedAccounts,
  promotedTweets,
  scheduledPromotedTweets,
  mediaCreatives,
  trackingTags,
  lineItemCategories,
  promotableUsers,
];
