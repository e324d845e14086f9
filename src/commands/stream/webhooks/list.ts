// `xctl stream webhooks list`
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { STREAM_ENDPOINTS as E } from '../../../contract/stream.js';
import { define } from '../../define.js';

export function register(parent: Command, runF = listLinks): void {
  parent
    .command('list')
    .description('list linked webhooks')
    .action(define((ctx) => runF(ctx)));
}

/** GET /2/tweets/search/webhooks */
export async function listLinks(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Array<Record<string, unknown>> }>({ method: E.listLinks.method, path: E.listLinks.path, auth: 'app' });
  const { printList } = await import('../../../core/output.js');
  await printList(ctx.io, await ctx.output(), res.data.data ?? [], { columns: ['webhook_id', 'created_at'] });
}
