// `xctl account-activity subscribe <webhook-id> [--check]`
import type { Context } from '../../context.js';
import { CheckFailed } from '../../core/errors.js';
import { accountActivityPaths } from './paths.js';

export interface SubscribeOptions {
  webhookId: string;
  check?: boolean;
}

/**
 * POST /2/account_activity/webhooks/:webhook_id/subscriptions/all (user token): the signed-in
 * user's events go to the webhook. With --check, GET on the same path: is the user subscribed?
 */
export async function subscribeRun(ctx: Context, o: SubscribeOptions): Promise<void> {
  const path = accountActivityPaths.all(o.webhookId);
  const http = await ctx.http();
  const res = await http.request<{ data?: { subscribed?: boolean } }>({ method: o.check ? 'GET' : 'POST', path, auth: 'user', ...(o.check ? {} : { json: {} }) });
  const subscribed = res.data.data?.subscribed === true;
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), { webhook_id: o.webhookId, subscribed }, { columns: ['webhook_id', 'subscribed'] });
  if (o.check && !subscribed) throw new CheckFailed(`the user is not subscribed to webhook ${o.webhookId}`);
}
