// `xctl activity subscriptions delete <id>`: asks first (--yes when not at a terminal).
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../core/errors.js';
import { ACTIVITY_ENDPOINTS as E } from '../../../contract/activity.js';
import { pathOf } from '../../../contract/endpoint.js';
import { NUMERIC_ID } from '../../../contract/ids.js';
import { define } from '../../define.js';
import { authMode } from './shape.js';

export interface DeleteOptions {
  id: string;
}

export function register(parent: Command, runF = subscriptionsDelete): void {
  parent
    .command('delete <id>')
    .description('delete a subscription (asks; --yes when not at a terminal)')
    .action(define((ctx, _o, [id]) => runF(ctx, { id: id! })));
}

/** DELETE /2/activity/subscriptions/:id */
export async function subscriptionsDelete(ctx: Context, o: DeleteOptions): Promise<void> {
  const id = o.id;
  if (!NUMERIC_ID.test(id)) throw new UsageError(`subscription id must be 1-19 digits (got "${id}")`, { flag: '<id>' });
  if (!(await ctx.confirm(`delete subscription ${id}?`))) throw new UsageError('not deleted');
  const http = await ctx.http();
  const res = await http.request<{ meta?: { total_subscriptions?: number } }>({ method: E.deleteSubscription.method, path: pathOf(E.deleteSubscription, { id }), auth: await authMode(ctx) });
  ctx.io.info(`deleted subscription ${id} (${res.data.meta?.total_subscriptions ?? '?'} left)`);
}
