// `xctl account-activity unsubscribe <webhook-id> [--user-id ID]`
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { accountActivityPaths, userIdFor } from './paths.js';

export interface UnsubscribeOptions {
  webhookId: string;
  userId?: string;
}

/** DELETE /2/account_activity/webhooks/:webhook_id/subscriptions/:user_id/all (app-only bearer) */
export async function unsubscribeRun(ctx: Context, o: UnsubscribeOptions): Promise<void> {
  const userId = await userIdFor(ctx, o.userId);
  const path = accountActivityPaths.one(o.webhookId, userId);
  if (!(await ctx.confirm(`stop delivering user ${userId}'s events to webhook ${o.webhookId}?`))) throw new UsageError('not unsubscribed');
  const http = await ctx.http();
  await http.request({ method: 'DELETE', path, auth: 'app' });
  ctx.io.info(`user ${userId} unsubscribed from webhook ${o.webhookId}`);
}
