// `xctl stream webhooks unlink <webhook-id>`
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { pathOf } from '../../../contract/endpoint.js';
import { STREAM_ENDPOINTS as E } from '../../../contract/stream.js';
import { checkWebhookId } from '../../webhooks/checks.js';
import { declare } from '../../define.js';
import { DRY_RUN_OPTION, dryRunDone, printRequest } from '../../dry-run.js';

import type { LinkOptions } from './link.js';

export function register(parent: Command, runF = unlinkWebhook): void {
  declare(parent, {
    name: 'unlink',
    description: 'stop delivering to a webhook',
    arguments: [['<webhook-id>', "the webhook's id (`xctl webhooks list`)"]],
    options: [DRY_RUN_OPTION],
    run: (ctx, o, [webhookId]) => runF(ctx, { webhookId, dryRun: o.dryRun }),
  });
}

/** DELETE /2/tweets/search/webhooks/:id */
export async function unlinkWebhook(ctx: Context, o: LinkOptions): Promise<void> {
  const id = checkWebhookId(o.webhookId);
  const req = { method: E.unlink.method, path: pathOf(E.unlink, { id }) };
  if (o.dryRun) {
    await printRequest(ctx, req);
    return dryRunDone(ctx);
  }
  const http = await ctx.http();
  const res = await http.request<{ data?: { deleted?: boolean } }>({ ...req, auth: 'app' });
  ctx.io.info(
    res.data.data?.deleted ? `webhook ${id} unlinked from the filtered stream` : `webhook ${id} was not linked`,
  );
}
