// What every subscription verb shares: how it signs, and the columns of a subscription.
import { ACTIVITY_ENDPOINTS as E } from '../../../contract/activity.js';
import type { V2Endpoint } from '../../v2-auth.js';

export const SUBSCRIPTION_COLUMNS = ['subscription_id', 'event_type', 'filter', 'tag', 'webhook_id', 'created_at'];

/**
 * Subscriptions accept OAuth 1.0a user context or an app-only bearer (section 5), and OAuth 2.0
 * user tokens where the contract's scope table lists the endpoint (create and list).
 */
export const SUBSCRIPTION_ENDPOINTS = {
  create: { ...E.createSubscription, kinds: ['user', 'app'] },
  list: { ...E.listSubscriptions, kinds: ['user', 'app'] },
  delete: { ...E.deleteSubscription, kinds: ['user', 'app'] },
} as const satisfies Record<string, V2Endpoint>;
