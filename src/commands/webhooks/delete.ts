// `xctl webhooks delete <id>` or `--all-stale [--dry-run]`: asks first (--yes when not at a terminal).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { pathOf } from '../../contract/endpoint.js';
import { WEBHOOK_ENDPOINTS as E } from '../../contract/webhooks.js';
import { declare } from '../define.js';
import { checkWebhookId } from './checks.js';

export interface DeleteOptions {
  id?: string;
  allStale?: boolean;
  dryRun?: boolean;
}

export function register(parent: Command, runF = webhooksDelete): void {
  declare(parent, {
    name: 'delete',
    description: 'delete a webhook, or every stale one with --all-stale (asks; --yes when not at a terminal)',
    arguments: [['[id]', "the webhook's id (`xctl webhooks list`)"]],
    options: [
      [
        '--all-stale',
        'delete every stale webhook: invalid (its last CRC check failed), or a loopback receiver that no longer answers',
      ],
      [
        '--dry-run',
        'print the DELETE request that would be sent (with --all-stale: list the stale webhooks and why); delete nothing',
      ],
    ],
    run: (ctx, o, [id]) => runF(ctx, { ...o, id }),
  });
}

/** DELETE /2/webhooks/:id */
export async function deleteWebhook(ctx: Context, id: string): Promise<void> {
  const http = await ctx.http();
  await http.request({ method: E.delete.method, path: pathOf(E.delete, { id }), auth: 'app' });
}

/** Deletes a webhook after confirmation (DELETE /2/webhooks/:id). */
export async function webhooksDelete(ctx: Context, o: DeleteOptions): Promise<void> {
  if (o.allStale) {
    if (o.id !== undefined) throw new UsageError('give a webhook id or --all-stale, not both', { flag: '--all-stale' });
    return deleteStale(ctx, !!o.dryRun);
  }
  if (o.id === undefined)
    throw new UsageError('which webhook? give its id (`xctl webhooks list`), or --all-stale', { flag: '<id>' });
  const id = checkWebhookId(o.id);
  if (o.dryRun) {
    const { dryRunDone, printRequest } = await import('../dry-run.js');
    await printRequest(ctx, { method: E.delete.method, path: pathOf(E.delete, { id }) });
    return dryRunDone(ctx);
  }
  if (!(await ctx.confirm(`delete webhook ${id}?`))) return ctx.io.info('nothing deleted');
  await deleteWebhook(ctx, id);
  ctx.io.info(`deleted webhook ${id}`);
}

/** GET /2/webhooks, then DELETE /2/webhooks/:id for each stale one (stale.ts says which). */
async function deleteStale(ctx: Context, dryRun: boolean): Promise<void> {
  const { findStaleWebhooks } = await import('./stale.js');
  const { printList } = await import('../../core/output.js');
  const stale = await findStaleWebhooks(ctx);
  if (!stale.length) return ctx.io.info('no stale webhooks');
  await printList(
    ctx.io,
    await ctx.output(),
    stale.map((w) => ({ ...w })),
    { columns: ['id', 'url', 'reason'] },
  );
  if (dryRun)
    return ctx.io.info(`${stale.length} stale webhook${stale.length === 1 ? '' : 's'}; nothing deleted (--dry-run)`);
  if (!(await ctx.confirm(`delete ${stale.length} stale webhook${stale.length === 1 ? '' : 's'}?`)))
    return ctx.io.info('nothing deleted');
  for (const w of stale) {
    await deleteWebhook(ctx, w.id);
    ctx.io.info(`deleted webhook ${w.id}`);
  }
}
