// `xctl account-activity count`
import type { Context } from '../../context.js';
import { accountActivityPaths } from './paths.js';

/** GET /2/account_activity/subscriptions/count (app-only bearer) */
export async function countRun(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Record<string, unknown> }>({ method: 'GET', path: accountActivityPaths.count, auth: 'app' });
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), res.data.data ?? {}, {
    columns: ['account_name', 'subscriptions_count_all', 'subscriptions_count_direct_messages', 'provisioned_count'],
  });
}
