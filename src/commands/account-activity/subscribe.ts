// `xctl account-activity subscribe <webhook-id> [--check]`
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { CheckFailed } from '../../core/errors.js';
import { ACCOUNT_ACTIVITY_ENDPOINTS as E } from '../../contract/account-activity.js';
import { pathOf } from '../../contract/endpoint.js';
import { define } from '../define.js';
import { checkWebhookId } from '../webhooks/checks.js';

export interface SubscribeOptions {
  webhookId: string;
  check?: boolean;
}

export function register(parent: Command, runF = subscribeRun): void {
  parent
    .command('subscribe <webhook-id>')
    .description("deliver the signed-in user's account events to a webhook (user token)")
    .option('--check', 'only say whether the user is subscribed (exit 1 when not)')
    .action(define<Omit<SubscribeOptions, 'webhookId'>>((ctx, o, [webhookId]) => runF(ctx, { ...o, webhookId: webhookId! })));
}

/**
 * POST /2/account_activity/webhooks/:webhook_id/subscriptions/all (user token): the signed-in
 * user's events go to the webhook. With --check, GET on the same path: is the user subscribed?
 */
export async function subscribeRun(ctx: Context, o: SubscribeOptions): Promise<void> {
  const e = o.check ? E.check : E.subscribe;
  const path = pathOf(e, { webhook_id: checkWebhookId(o.webhookId) });
  const http = await ctx.http();
  const res = await http.request<{ data?: { subscribed?: boolean } }>({ method: e.method, path, auth: 'user', ...(o.check ? {} : { json: {} }) });
  const subscribed = res.data.data?.subscribed === true;
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), { webhook_id: o.webhookId, subscribed }, { columns: ['webhook_id', 'subscribed'] });
  if (o.check && !subscribed) throw new CheckFailed(`the user is not subscribed to webhook ${o.webhookId}`);
}
