// `xctl webhooks delete <id>`: asks first (--yes when not at a terminal).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { pathOf } from '../../contract/endpoint.js';
import { WEBHOOK_ENDPOINTS as E } from '../../contract/webhooks.js';
import { define } from '../define.js';
import { checkWebhookId } from './checks.js';

export interface DeleteOptions {
  id: string;
}

export function register(parent: Command, runF = webhooksDelete): void {
  parent
    .command('delete <id>')
    .description('delete a webhook (asks; --yes when not at a terminal)')
    .action(define((ctx, _o, [id]) => runF(ctx, { id: id! })));
}

/** DELETE /2/webhooks/:id */
export async function deleteWebhook(ctx: Context, id: string): Promise<void> {
  const http = await ctx.http();
  await http.request({ method: E.delete.method, path: pathOf(E.delete, { id }), auth: 'app' });
}

/** Deletes a webhook after confirmation (DELETE /2/webhooks/:id). */
export async function webhooksDelete(ctx: Context, o: DeleteOptions): Promise<void> {
  const id = checkWebhookId(o.id);
  if (!(await ctx.confirm(`delete webhook ${id}?`))) return ctx.io.info('nothing deleted');
  await deleteWebhook(ctx, id);
  ctx.io.info(`deleted webhook ${id}`);
}
