// The Account Activity API (docs/contract.md, credentials 1, 6 name it; the endpoints and bodies are
// XDK's accountActivity.*, OpenAPI 2.167): a user subscribes a webhook to their own account with
// user context; the app lists, counts and removes subscriptions with its bearer. Each endpoint is
// the operation `op` of the platform's OpenAPI specification, version 2.167.
import { endpoint } from './endpoint.js';
import { param } from './params.js';
import { webhookIdParam } from './webhooks.js';

const opts = { rate: 'webhooks', style: 'v2' } as const;

export const ACCOUNT_ACTIVITY_ENDPOINTS = {
  check: endpoint('GET', '/2/account_activity/webhooks/:webhook_id/subscriptions/all', {
    ...opts,
    op: 'validateAccountActivitySubscription',
    auth: 'user',
    doc: 'is the user subscribed? {"data":{"subscribed"}}',
    params: [webhookIdParam('webhook_id', 'path')],
    answer: '{"data":{"subscribed"}}',
  }),
  subscribe: endpoint('POST', '/2/account_activity/webhooks/:webhook_id/subscriptions/all', {
    ...opts,
    op: 'createAccountActivitySubscription',
    auth: 'user',
    doc: "deliver the user's events to the webhook",
    params: [webhookIdParam('webhook_id', 'path')],
    answer: '{"data":{"subscribed":true}}',
  }),
  unsubscribe: endpoint('DELETE', '/2/account_activity/webhooks/:webhook_id/subscriptions/:user_id/all', {
    ...opts,
    op: 'deleteAccountActivitySubscription',
    auth: 'app',
    doc: "stop delivering a user's events",
    params: [
      param.id('webhook_id', { in: 'path', flag: 'webhook id', required: true }),
      param.id('user_id', { in: 'path', flag: '--user-id', required: true }),
    ],
    answer: '{"data":{"subscribed":false}}',
  }),
  count: endpoint('GET', '/2/account_activity/subscriptions/count', {
    ...opts,
    op: 'getAccountActivitySubscriptionCount',
    auth: 'app',
    doc: 'subscriptions: all, with direct messages, provisioned',
  }),
  list: endpoint('GET', '/2/account_activity/webhooks/:webhook_id/subscriptions/all/list', {
    ...opts,
    op: 'getAccountActivitySubscriptions',
    auth: 'app',
    doc: 'users subscribed to a webhook',
    params: [webhookIdParam('webhook_id', 'path')],
    answer: '{"data":{application_id,webhook_id,webhook_url,subscriptions:[{user_id}]}}',
  }),
} as const;

/**
 * Not in the spec: the platform provisions subscriptions per app by access tier. **Proposal**: the
 * sandbox provisions 15 (the historical free tier), and refuses the 16th.
 */
export const PROVISIONED_SUBSCRIPTIONS = 15;

/** Activity event type -> the account activity body's array key (the platform's classic names). */
export const ACCOUNT_ACTIVITY_KEYS: Record<string, string> = {
  'post.create': 'tweet_create_events',
  'post.delete': 'tweet_delete_events',
  'post.mention.create': 'tweet_create_events',
  'like.create': 'favorite_events',
  'follow.follow': 'follow_events',
  'follow.unfollow': 'unfollow_events',
  'block.block': 'block_events',
  'block.unblock': 'unblock_events',
  'mute.mute': 'mute_events',
  'mute.unmute': 'unmute_events',
  'dm.sent': 'direct_message_events',
  'dm.received': 'direct_message_events',
  'chat.sent': 'direct_message_events',
  'chat.received': 'direct_message_events',
  'dm.indicate_typing': 'direct_message_indicate_typing_events',
  'dm.read': 'direct_message_mark_read_events',
};
