// `xctl account-activity subscribe <webhook-id> [--check]`
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { CheckFailed } from '../../core/errors.js';
import { ACCOUNT_ACTIVITY_ENDPOINTS as E } from '../../contract/account-activity.js';
import { pathOf } from '../../contract/endpoint.js';
import { declare } from '../define.js';
import { DRY_RUN_OPTION, dryRunDone, printRequest } from '../dry-run.js';
import { authHelp, chooseAuth, type V2Endpoint } from '../v2-auth.js';
import { checkWebhookId } from '../webhooks/checks.js';

export interface SubscribeOptions {
  webhookId: string;
  check?: boolean;
  auth?: string;
  dryRun?: boolean;
}

/** The user's own subscription: OAuth 1.0a user context, or an OAuth 2.0 user token (dm.read dm.write tweet.read users.read). */
const SUBSCRIBE = { ...E.subscribe, kinds: ['user'] } as const satisfies V2Endpoint;

export function register(parent: Command, runF = subscribeRun): void {
  declare(parent, {
    name: 'subscribe',
    description: "deliver the signed-in user's account events to a webhook (user token)",
    arguments: [['<webhook-id>', "the webhook's id (`xctl webhooks list`)"]],
    options: [
      ['--check', 'only say whether the user is subscribed (exit 1 when not)'],
      ['--auth <kind>', `${authHelp(SUBSCRIBE)}; OAuth 2.0 needs dm.read dm.write tweet.read users.read`],
      DRY_RUN_OPTION,
    ],
    run: (ctx, o, [webhookId]) => runF(ctx, { ...o, webhookId: webhookId }),
  });
}

/**
 * POST /2/account_activity/webhooks/:webhook_id/subscriptions/all (user token): the signed-in
 * user's events go to the webhook. With --check, GET on the same path: is the user subscribed?
 */
export async function subscribeRun(ctx: Context, o: SubscribeOptions): Promise<void> {
  const e = o.check ? E.check : E.subscribe;
  const path = pathOf(e, { webhook_id: checkWebhookId(o.webhookId) });
  if (o.dryRun && !o.check) {
    await printRequest(ctx, { method: e.method, path, json: {} });
    return dryRunDone(ctx);
  }
  const auth = await chooseAuth(ctx, o.auth, { ...e, kinds: ['user'] });
  const http = await ctx.http();
  const res = await http.request<{ data?: { subscribed?: boolean } }>({
    method: e.method,
    path,
    auth,
    ...(o.check ? {} : { json: {} }),
  });
  const subscribed = res.data.data?.subscribed === true;
  const { printOne } = await import('../../core/output.js');
  await printOne(
    ctx.io,
    await ctx.output(),
    { webhook_id: o.webhookId, subscribed },
    { columns: ['webhook_id', 'subscribed'] },
  );
  if (o.check && !subscribed) throw new CheckFailed(`the user is not subscribed to webhook ${o.webhookId}`);
}
