// What every subscription verb shares: how it signs, and the columns of a subscription.
import type { Context } from '../../../context.js';
import type { AuthMode } from '../../../core/http.js';

export const SUBSCRIPTION_COLUMNS = ['subscription_id', 'event_type', 'filter', 'tag', 'webhook_id', 'created_at'];

/** Subscriptions accept OAuth 1.0a user context or an app-only bearer (section 5): user when set. */
export async function authMode(ctx: Context): Promise<AuthMode> {
  const c = await ctx.credentials();
  return c.access_token && c.access_token_secret ? 'user' : 'app';
}
