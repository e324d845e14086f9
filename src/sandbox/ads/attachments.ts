// Line-item attachments (src/ads/resources/attachments.ts) in the sandbox: each checks its line
// item (and what it attaches) against the store; promoted accounts need a PROMOTED_ACCOUNT line
// item and ignore a repeat; promoted posts are created in bulk and follow their line item's
// deletion; a scheduled promoted post can only be detached before its post goes out.
import type { SandboxOps } from '../../ads/resource-types.js';
import { parseIsoTime } from '../../contract/time.js';
import type { Behaviour } from './behaviour.js';
import { listOf, listOrUndefined } from '../../contract/guards.js';
import { longId } from '../../ads/rules/cards.js';
import { twitterDate } from './creatives.js';

function lineItem(ops: SandboxOps, id: unknown): Record<string, unknown> {
  return ops.find('line_items', String(id), { parameter: 'line_item_id' });
}

export const PROMOTED_ACCOUNTS: Behaviour = {
  hooks: {
    // Spec 7: listing with line items none of which support promoted accounts is a 400.
    beforeList(ops) {
      const ids = listOrUndefined(ops.values.line_item_ids);
      if (!ids) return;
      const lis = ops.collection('line_items');
      if (!ids.some((id) => lis.get(id)?.product_type === 'PROMOTED_ACCOUNT')) {
        ops.fail(
          400,
          'INCOMPATIBLE_LINE_ITEM',
          'none of the given line items supports promoted accounts',
          'line_item_ids',
        );
      }
    },
    create(entity, ops) {
      const li = lineItem(ops, entity.line_item_id);
      if (li.product_type !== 'PROMOTED_ACCOUNT') {
        ops.fail(
          400,
          'INCOMPATIBLE_LINE_ITEM',
          `line item ${String(li.id)} is not configured for promoted accounts (product_type ${String(li.product_type)})`,
          'line_item_id',
        );
      }
      // Spec 7: an ineligible user is a 400 and nobody is promoted.
      if (!ops.user(String(entity.user_id)))
        ops.fail(400, 'INVALID_PARAMETER', `user ${String(entity.user_id)} is not eligible for promotion`, 'user_id');
      // Spec 3: promoting an already-promoted user is ignored.
      for (const e of ops.collection('promoted_accounts').values()) {
        if (!e.deleted && e.line_item_id === entity.line_item_id && e.user_id === entity.user_id)
          return { existing: e };
      }
      entity.entity_status = 'ACTIVE';
      return undefined;
    },
    history: 'PROMOTED_ACCOUNT',
  },
};

/**
 * A post the sandbox knows: seeded or from a post.create event (the post store), made with
 * `ads tweets create`, or a scheduled post that went out.
 */
function postExists(ops: SandboxOps, tweetId: string): boolean {
  if (ops.collection('posts').has(tweetId) || ops.collection('tweets').has(tweetId)) return true;
  for (const s of ops.collection('scheduled_tweets').values()) {
    if (s.tweet_id === tweetId) return true;
  }
  return false;
}

/** The ads API's answer for a reference to nothing (as for scheduled_tweet_id): 404 NOT_FOUND. */
function unknownPost(ops: SandboxOps, tweetId: string): never {
  const message = `tweet_ids ${tweetId} was not found: no such post`;
  return ops.fail(404, 'NOT_FOUND', message, 'tweet_ids');
}

/** The author of a post the sandbox knows (the post store, or a post made with `ads tweets create`). */
function authorOf(ops: SandboxOps, tweetId: string): string | undefined {
  const p = ops.collection('posts').get(tweetId) ?? ops.collection('tweets').get(tweetId);
  const id = p?.author_id ?? p?.user_id;
  return id === undefined ? undefined : String(id);
}

/**
 * docs/contract.md, ads 5: a RETWEETS_ONLY user's post promoted by its id is promoted as a nullcasted
 * repost made for it, whose tweet_id differs from the one given: its id, or undefined for a
 * FULL user's post (promoted as it is).
 */
function repostOf(ops: SandboxOps, tweetId: string): string | undefined {
  const author = authorOf(ops, tweetId);
  const promotable = [...ops.collection('promotable_users').values()].find(
    (u) => u.account_id === ops.accountId && !u.deleted && String(u.user_id) === author,
  );
  if (promotable?.promotable_user_type !== 'RETWEETS_ONLY') return undefined;
  const original = ops.collection('posts').get(tweetId) ?? ops.collection('tweets').get(tweetId);
  const now = ops.nowMs();
  let id = longId(now);
  while (ops.collection('tweets').has(id) || ops.collection('posts').has(id)) id = longId(now);
  ops.collection('tweets').set(id, {
    id,
    account_id: ops.accountId,
    user_id: ops.account?.user_ids !== undefined ? listOf(ops.account.user_ids)[0] : ops.userId,
    text: `RT: ${String(original?.text ?? '')}`,
    nullcast: true,
    retweeted_status_id: tweetId,
    created_at: twitterDate(now),
  });
  return id;
}

export const PROMOTED_TWEETS: Behaviour = {
  hooks: {
    // Spec 3: after the parent line item is deleted a promoted post stays deleted=false but
    // is returned only with with_deleted=true.
    listFilter: (e, ops) =>
      ops.values.with_deleted === true || ops.collection('line_items').get(String(e.line_item_id))?.deleted !== true,
    // Spec 3: a disassociated post shows as paused in the management UI.
    delete(entity) {
      entity.entity_status = 'PAUSED';
    },
    history: 'PROMOTED_TWEET',
  },
  ops: {
    // Up to PROMOTED_TWEETS_MAX posts at once; a post already promoted on the line item is answered as it is.
    create: (ops) => {
      const li = lineItem(ops, ops.values.line_item_id);
      const existing = [...ops.collection('promoted_tweets').values()].filter(
        (e) => e.line_item_id === li.id && !e.deleted,
      );
      const ids = listOf(ops.values.tweet_ids);
      for (const tweetId of ids) if (!postExists(ops, tweetId)) unknownPost(ops, tweetId);
      // As recorded (the Ads SDK's promoted_tweets_attach.json): total_count, tweet_ids as numbers.
      ops.envelope({
        total_count: ids.length,
        request: { params: { ...ops.path, ...ops.values, tweet_ids: ids.map((x) => BigInt(x)) } },
      });
      return ids.map((asked) => {
        const same = existing.find((e) => e.tweet_id === asked || e._reposted_from === asked);
        if (same) return same;
        const repost = repostOf(ops, asked);
        return ops.insert({
          line_item_id: li.id,
          tweet_id: repost ?? asked,
          entity_status: 'ACTIVE',
          approval_status: 'ACCEPTED',
          ...(repost ? { _reposted_from: asked } : {}),
        });
      });
    },
  },
};

export const SCHEDULED_PROMOTED_TWEETS: Behaviour = {
  hooks: {
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
        ops.fail(
          400,
          'INVALID_PARAMETER',
          `the scheduled post went out at ${String(st!.scheduled_at)}: a scheduled promoted post can only be deleted before then`,
          'scheduled_promoted_tweet_id',
        );
      }
    },
  },
};

export const MEDIA_CREATIVES: Behaviour = {
  hooks: {
    create(entity, ops) {
      const li = lineItem(ops, entity.line_item_id);
      const media = ops.find('account_media', String(entity.account_media_id), { parameter: 'account_media_id' });
      if (li.objective === 'WEBSITE_CLICKS' && entity.landing_url === undefined) {
        ops.fail(
          400,
          'MISSING_PARAMETER',
          'landing_url is required when the line item objective is WEBSITE_CLICKS',
          'landing_url',
        );
      }
      if (media.creative_type === 'PREROLL') delete entity.landing_url; // ignored for preroll
      entity.campaign_id = li.campaign_id;
      entity.serving_status = 'ACTIVE';
      entity.approval_status = 'ACCEPTED';
    },
  },
};

export const TRACKING_TAGS: Behaviour = {
  hooks: {
    create(entity, ops) {
      lineItem(ops, entity.line_item_id);
    },
  },
};

function checkCategory(entity: Record<string, unknown>, ops: SandboxOps): void {
  lineItem(ops, entity.line_item_id);
  ops.find('curated_categories', String(entity.curated_category_id), { parameter: 'curated_category_id' });
}

export const LINE_ITEM_CURATED_CATEGORIES: Behaviour = {
  hooks: {
    create: (entity, ops) => checkCategory(entity, ops),
    update: (entity, _before, ops) => checkCategory(entity, ops),
  },
};
