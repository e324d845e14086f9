// What every subscription verb shares: how it signs, and the columns of a subscription.
import { ACTIVITY_ENDPOINTS as E } from '../../../contract/activity.js';
import { ApiError } from '../../../core/errors.js';
import type { V2Endpoint } from '../../v2-auth.js';
import { isRecord } from '../../../contract/guards.js';

export const SUBSCRIPTION_COLUMNS = ['subscription_id', 'event_type', 'filter', 'tag', 'webhook_id', 'created_at'];

/**
 * Create and list accept OAuth 1.0a user context or an app-only bearer (section 5), and OAuth 2.0
 * user tokens per the contract's scope table; update and delete take the bearer only.
 */
export const SUBSCRIPTION_ENDPOINTS = {
  create: { ...E.createSubscription, kinds: ['user', 'app'] },
  list: { ...E.listSubscriptions, kinds: ['user', 'app'] },
} as const satisfies Record<string, V2Endpoint>;

/**
 * The subscription in a create or update answer: OpenAPI's `{"data":{"subscription":{...}}}`
 * (chosen), the quickstart's `{"data":[{...}]}`, or a flat `data` (docs/contract.md, notes-2 section 7).
 */
export function subscriptionOf(data: unknown): Record<string, unknown> {
  const d = Array.isArray(data) ? data[0] : data;
  if (!isRecord(d)) throw new ApiError('the service answered without the subscription', { body: data });
  const rec = d;
  const sub = isRecord(rec.subscription) ? rec.subscription : rec;
  if (typeof sub.subscription_id !== 'string')
    throw new ApiError('the service answered without a subscription_id', { body: data });
  return sub;
}
