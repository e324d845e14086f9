// What every subscription verb shares: how it signs, and the columns of a subscription.
import type { Context } from '../../../context.js';
import type { AuthMode } from '../../../core/http.js';
import { ApiError } from '../../../core/errors.js';

export const SUBSCRIPTION_COLUMNS = ['subscription_id', 'event_type', 'filter', 'tag', 'webhook_id', 'created_at'];

/** Subscriptions accept OAuth 1.0a user context or an app-only bearer (section 5): user when set. */
export async function authMode(ctx: Context): Promise<AuthMode> {
  const c = await ctx.credentials();
  return c.access_token && c.access_token_secret ? 'user' : 'app';
}

/**
 * The subscription in a create or update answer: OpenAPI's `{"data":{"subscription":{...}}}`
 * (chosen), the quickstart's `{"data":[{...}]}`, or a flat `data` (platform-notes-2.md section 7).
 */
export function subscriptionOf(data: unknown): Record<string, unknown> {
  const d = Array.isArray(data) ? data[0] : data;
  if (!d || typeof d !== 'object') throw new ApiError('the service answered without the subscription', { body: data });
  const rec = d as Record<string, unknown>;
  const sub = rec.subscription && typeof rec.subscription === 'object' ? (rec.subscription as Record<string, unknown>) : rec;
  if (typeof sub.subscription_id !== 'string') throw new ApiError('the service answered without a subscription_id', { body: data });
  return sub;
}
