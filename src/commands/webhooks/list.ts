// `xctl webhooks list`: the app's webhooks with their valid/invalid status.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { WEBHOOK_ENDPOINTS as E } from '../../contract/webhooks.js';
import { declare } from '../define.js';

export type ListOptions = Record<string, never>;

export function register(parent: Command, runF = webhooksList): void {
  declare(parent, {
    name: 'list',
    description: 'list the webhooks with their valid/invalid status',
    run: (ctx) => runF(ctx, {}),
  });
}

/** GET /2/webhooks */
export async function webhooksList(ctx: Context, _o: ListOptions = {}): Promise<void> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Array<Record<string, unknown>> }>({
    method: E.list.method,
    path: E.list.path,
    auth: 'app',
  });
  const { printList } = await import('../../core/output.js');
  const rows = (res.data.data ?? []).map((w) => ({ ...w, status: w.valid ? 'valid' : 'invalid' }));
  await printList(ctx.io, await ctx.output(), rows, {
    columns: ['id', 'url', 'status', 'created_at'],
    knownFields: ['id', 'url', 'valid', 'status', 'created_at'],
  });
}
