// The Account Activity API's paths (XDK accountActivity.*), and the checks its verbs share.
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { checkWebhookId } from '../webhooks/manage.js';

export const accountActivityPaths = {
  /** GET (is the user subscribed?) and POST (subscribe), user context. */
  all: (webhookId: string) => `/2/account_activity/webhooks/${checkWebhookId(webhookId)}/subscriptions/all`,
  /** GET, app-only bearer. */
  list: (webhookId: string) => `/2/account_activity/webhooks/${checkWebhookId(webhookId)}/subscriptions/all/list`,
  /** DELETE, app-only bearer. */
  one: (webhookId: string, userId: string) => `/2/account_activity/webhooks/${checkWebhookId(webhookId)}/subscriptions/${userId}/all`,
  count: '/2/account_activity/subscriptions/count',
};

/** The user a verb acts for: --user-id, else the profile's user, else the id an access token starts with. */
export async function userIdFor(ctx: Context, given: string | undefined): Promise<string> {
  if (given !== undefined) {
    if (!/^\d{1,19}$/.test(given)) throw new UsageError(`--user-id must be 1-19 digits (got "${given}")`, { flag: '--user-id' });
    return given;
  }
  const c = await ctx.credentials();
  const id = c.user_id ?? /^(\d{1,19})-/.exec(c.access_token ?? '')?.[1];
  if (!id) throw new UsageError('no user: pass --user-id (the profile has no user token)', { flag: '--user-id' });
  return id;
}
