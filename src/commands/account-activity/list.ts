// `xctl account-activity list <webhook-id>`
import type { Context } from '../../context.js';
import { accountActivityPaths } from './paths.js';

/** GET /2/account_activity/webhooks/:webhook_id/subscriptions/all/list (app-only bearer) */
export async function listRun(ctx: Context, o: { webhookId: string }): Promise<void> {
  const path = accountActivityPaths.list(o.webhookId);
  const http = await ctx.http();
  const res = await http.request<{ data?: { webhook_id?: string; webhook_url?: string; application_id?: string; subscriptions?: Array<{ user_id?: string }> } }>({
    method: 'GET',
    path,
    auth: 'app',
  });
  const d = res.data.data ?? {};
  const rows = (d.subscriptions ?? []).map((s) => ({ user_id: s.user_id, webhook_id: d.webhook_id ?? o.webhookId, webhook_url: d.webhook_url }));
  const { printList } = await import('../../core/output.js');
  await printList(ctx.io, await ctx.output(), rows, { columns: ['user_id', 'webhook_id', 'webhook_url'] });
}
