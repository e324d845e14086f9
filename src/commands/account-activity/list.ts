// `xctl account-activity list <webhook-id>`
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { ACCOUNT_ACTIVITY_ENDPOINTS as E } from '../../contract/account-activity.js';
import { pathOf } from '../../contract/endpoint.js';
import { declare } from '../define.js';
import { checkWebhookId } from '../webhooks/checks.js';

export function register(parent: Command, runF = listRun): void {
  declare(parent, {
    name: 'list',
    description: 'users subscribed to a webhook (app-only bearer)',
    arguments: [['<webhook-id>', "the webhook's id (`xctl webhooks list`)"]],
    run: (ctx, _o, [webhookId]) => runF(ctx, { webhookId: webhookId }),
  });
}

/** GET /2/account_activity/webhooks/:webhook_id/subscriptions/all/list (app-only bearer) */
export async function listRun(ctx: Context, o: { webhookId: string }): Promise<void> {
  const path = pathOf(E.list, { webhook_id: checkWebhookId(o.webhookId) });
  const http = await ctx.http();
  const res = await http.request<{
    data?: { webhook_id?: string; webhook_url?: string; subscriptions?: Array<{ user_id?: string }> };
  }>({ method: E.list.method, path, auth: 'app' });
  const d = res.data.data ?? {};
  const rows = (d.subscriptions ?? []).map((s) => ({
    user_id: s.user_id,
    webhook_id: d.webhook_id ?? o.webhookId,
    webhook_url: d.webhook_url,
  }));
  const { printList } = await import('../../core/output.js');
  await printList(ctx.io, await ctx.output(), rows, { columns: ['user_id', 'webhook_id', 'webhook_url'] });
}
