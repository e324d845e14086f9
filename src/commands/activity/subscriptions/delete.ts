// `xctl activity subscriptions delete <id...>`: one id, or many in requests of up to 100; asks
// first (--yes when not at a terminal). App-only bearer (docs/contract.md, notes-2 section 7).
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { ApiError } from '../../../core/errors.js';
import { checkInput } from '../../../core/check-input.js';
import { ACTIVITY_ENDPOINTS as E, SUBSCRIPTION_LIMITS as L } from '../../../contract/activity.js';
import { pathOf } from '../../../contract/endpoint.js';
import { declare } from '../../define.js';
import { DRY_RUN_OPTION, dryRunDone, printRequest } from '../../dry-run.js';

export interface DeleteOptions {
  ids: string[];
  dryRun?: boolean;
}

export function register(parent: Command, runF = subscriptionsDelete): void {
  declare(parent, {
    name: 'delete',
    description: 'delete subscriptions, one or many (asks; --yes when not at a terminal)',
    arguments: [['<ids...>', 'subscription ids (`xctl activity subscriptions list`)']],
    options: [DRY_RUN_OPTION],
    run: (ctx, o, [ids]) => runF(ctx, { ids, dryRun: o.dryRun }),
  });
}

/**
 * DELETE /2/activity/subscriptions/:id for one id; DELETE /2/activity/subscriptions?ids= for
 * several. Ids that could not be deleted are reported, and exit 1.
 */
export async function subscriptionsDelete(ctx: Context, o: DeleteOptions): Promise<void> {
  for (const id of o.ids) checkInput(E.deleteSubscription, { path: { id } });
  const ids = [...new Set(o.ids)];
  if (o.dryRun) return dryRunDeletes(ctx, ids);
  if (!(await ctx.confirm(ids.length === 1 ? `delete subscription ${ids[0]}?` : `delete ${ids.length} subscriptions?`)))
    return ctx.io.info('nothing deleted');
  const http = await ctx.http();
  if (ids.length === 1) {
    const res = await http.request<{ meta?: { total_subscriptions?: number } }>({
      method: E.deleteSubscription.method,
      path: pathOf(E.deleteSubscription, { id: ids[0]! }),
      auth: 'app',
    });
    ctx.io.info(`deleted subscription ${ids[0]} (${res.data.meta?.total_subscriptions ?? '?'} left)`);
    return;
  }
  const failed: string[] = [];
  let left: number | undefined;
  for (let i = 0; i < ids.length; i += L.deleteManyIds.max) {
    const chunk = ids.slice(i, i + L.deleteManyIds.max);
    const res = await http.request<{
      data?: Array<{ subscription_id?: string; deleted?: boolean }>;
      errors?: Array<{ subscription_id?: string; reason?: string; message?: string }>;
      meta?: { total_subscriptions?: number };
    }>({
      method: E.deleteSubscriptions.method,
      path: E.deleteSubscriptions.path,
      auth: 'app',
      query: { ids: chunk.join(',') },
    });
    for (const d of res.data.data ?? []) if (d.deleted) ctx.io.info(`deleted subscription ${d.subscription_id}`);
    for (const e of res.data.errors ?? []) {
      failed.push(String(e.subscription_id));
      ctx.io.warn(`subscription ${e.subscription_id} not deleted: ${e.message ?? e.reason ?? 'unknown reason'}`);
    }
    left = res.data.meta?.total_subscriptions ?? left;
  }
  ctx.io.info(`${ids.length - failed.length} of ${ids.length} deleted (${left ?? '?'} left)`);
  if (failed.length)
    throw new ApiError(`${failed.length} of ${ids.length} subscriptions were not deleted: ${failed.join(', ')}`, {});
}

/** --dry-run: the delete requests (one id by path, else 100 by query); nothing asked or sent. */
async function dryRunDeletes(ctx: Context, ids: string[]): Promise<void> {
  if (ids.length === 1) {
    await printRequest(ctx, {
      method: E.deleteSubscription.method,
      path: pathOf(E.deleteSubscription, { id: ids[0]! }),
    });
    return dryRunDone(ctx);
  }
  let n = 0;
  for (let i = 0; i < ids.length; i += L.deleteManyIds.max, n++) {
    const chunk = ids.slice(i, i + L.deleteManyIds.max);
    await printRequest(ctx, {
      method: E.deleteSubscriptions.method,
      path: E.deleteSubscriptions.path,
      query: { ids: chunk.join(',') },
    });
  }
  dryRunDone(ctx, n);
}
