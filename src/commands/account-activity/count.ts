// `xctl account-activity count`
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { ACCOUNT_ACTIVITY_ENDPOINTS as E } from '../../contract/account-activity.js';
import { declare } from '../define.js';

export function register(parent: Command, runF = countRun): void {
  declare(parent, {
    name: 'count',
    description: "the app's subscriptions: all, with direct messages, and provisioned (app-only bearer)",
    run: (ctx) => runF(ctx),
  });
}

/** GET /2/account_activity/subscriptions/count (app-only bearer) */
export async function countRun(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Record<string, unknown> }>({
    method: E.count.method,
    path: E.count.path,
    auth: 'app',
  });
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), res.data.data ?? {}, {
    columns: ['account_name', 'subscriptions_count_all', 'subscriptions_count_direct_messages', 'provisioned_count'],
  });
}
