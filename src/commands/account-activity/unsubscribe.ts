// `xctl account-activity unsubscribe <webhook-id> [--user-id ID]`
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { ACCOUNT_ACTIVITY_ENDPOINTS as E } from '../../contract/account-activity.js';
import { pathOf } from '../../contract/endpoint.js';
import { checkInput } from '../../core/check-input.js';
import { declare } from '../define.js';
import { DRY_RUN_OPTION, dryRunDone, printRequest } from '../dry-run.js';
import { checkWebhookId } from '../webhooks/checks.js';

export interface UnsubscribeOptions {
  webhookId: string;
  userId?: string;
  dryRun?: boolean;
}

export function register(parent: Command, runF = unsubscribeRun): void {
  declare(parent, {
    name: 'unsubscribe',
    description: "stop delivering a user's events to a webhook (app-only bearer; asks, --yes when not at a terminal)",
    arguments: [['<webhook-id>', "the webhook's id (`xctl webhooks list`)"]],
    options: [['--user-id <id>', "the user (default: the profile's user)"], DRY_RUN_OPTION],
    run: (ctx, o, [webhookId]) => runF(ctx, { ...o, webhookId: webhookId }),
  });
}

/** The user: --user-id, else the profile's user, else the id a platform access token starts with. */
async function userIdFor(ctx: Context, webhookId: string, given: string | undefined): Promise<string> {
  if (given !== undefined) {
    checkInput(E.unsubscribe, { path: { webhook_id: webhookId, user_id: given } });
    return given;
  }
  const c = await ctx.credentials();
  const id = c.user_id ?? /^(\d{1,19})-/.exec(c.access_token ?? '')?.[1];
  if (!id) throw new UsageError('no user: pass --user-id (the profile has no user token)', { flag: '--user-id' });
  return id;
}

/** DELETE /2/account_activity/webhooks/:webhook_id/subscriptions/:user_id/all (app-only bearer) */
export async function unsubscribeRun(ctx: Context, o: UnsubscribeOptions): Promise<void> {
  const webhookId = checkWebhookId(o.webhookId);
  const userId = await userIdFor(ctx, webhookId, o.userId);
  const path = pathOf(E.unsubscribe, { webhook_id: webhookId, user_id: userId });
  if (o.dryRun) {
    await printRequest(ctx, { method: E.unsubscribe.method, path });
    return dryRunDone(ctx);
  }
  if (!(await ctx.confirm(`stop delivering user ${userId}'s events to webhook ${webhookId}?`)))
    return ctx.io.info('nothing changed: still subscribed');
  const http = await ctx.http();
  await http.request({
    method: E.unsubscribe.method,
    path,
    auth: 'app',
  });
  ctx.io.info(`user ${userId} unsubscribed from webhook ${webhookId}`);
}
