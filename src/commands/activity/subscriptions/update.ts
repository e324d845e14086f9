// `xctl activity subscriptions update <id> [--tag T] [--webhook ID]`: only the tag and the webhook
// of a subscription can change (docs/contract.md, notes-2 section 7); app-only bearer.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../core/errors.js';
import { checkInput } from '../../../core/check-input.js';
import { ACTIVITY_ENDPOINTS as E, SUBSCRIPTION_LIMITS as L } from '../../../contract/activity.js';
import { pathOf } from '../../../contract/endpoint.js';
import { declare } from '../../define.js';
import { DRY_RUN_OPTION, dryRunDone, printRequest } from '../../dry-run.js';
import { SUBSCRIPTION_COLUMNS, subscriptionOf } from './shape.js';

export interface UpdateOptions {
  id: string;
  tag?: string;
  webhook?: string;
  dryRun?: boolean;
}

export function register(parent: Command, runF = subscriptionsUpdate): void {
  declare(parent, {
    name: 'update',
    description: "change a subscription's tag or webhook (event type and filter cannot change)",
    arguments: [['<id>', "the subscription's id"]],
    options: [
      ['--tag <text>', `a new label (${L.tag.min}-${L.tag.max} characters)`],
      ['--webhook <id>', 'deliver to this webhook instead'],
      DRY_RUN_OPTION,
    ],
    run: (ctx, o, [id]) => runF(ctx, { ...o, id: id }),
  });
}

/** PUT /2/activity/subscriptions/:id {"tag"?,"webhook_id"?} */
export async function subscriptionsUpdate(ctx: Context, o: UpdateOptions): Promise<void> {
  const body = {
    ...(o.tag !== undefined ? { tag: o.tag } : {}),
    ...(o.webhook !== undefined ? { webhook_id: o.webhook } : {}),
  };
  checkInput(E.updateSubscription, { path: { id: o.id } });
  if (o.tag === undefined && o.webhook === undefined)
    throw new UsageError(
      'give --tag and/or --webhook (event type and filter cannot change: delete and re-create instead)',
      { flag: '--tag' },
    );
  checkInput(E.updateSubscription, { path: { id: o.id }, body });
  const req = { method: E.updateSubscription.method, path: pathOf(E.updateSubscription, { id: o.id }), json: body };
  if (o.dryRun) {
    await printRequest(ctx, req);
    return dryRunDone(ctx);
  }
  const http = await ctx.http();
  const res = await http.request<{ data?: unknown }>({ ...req, auth: 'app' });
  const { printOne } = await import('../../../core/output.js');
  await printOne(ctx.io, await ctx.output(), subscriptionOf(res.data.data), {
    columns: [...SUBSCRIPTION_COLUMNS, 'updated_at'],
  });
}
