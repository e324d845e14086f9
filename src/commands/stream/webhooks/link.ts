// `xctl stream webhooks link <webhook-id>`
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { pathOf } from '../../../contract/endpoint.js';
import { STREAM_ENDPOINTS as E } from '../../../contract/stream.js';
import { checkWebhookId } from '../../webhooks/checks.js';
import { define } from '../../define.js';

export interface LinkOptions {
  webhookId: string;
}

export function register(parent: Command, runF = linkWebhook): void {
  parent
    .command('link <webhook-id>')
    .description('deliver matching posts to a webhook')
    .action(define((ctx, _o, [webhookId]) => runF(ctx, { webhookId: webhookId! })));
}

/** POST /2/tweets/search/webhooks/:id — deliver matching posts to this webhook. */
export async function linkWebhook(ctx: Context, o: LinkOptions): Promise<void> {
  const id = checkWebhookId(o.webhookId);
  const http = await ctx.http();
  await http.request({ method: E.link.method, path: pathOf(E.link, { id }), auth: 'app' });
  ctx.io.info(`webhook ${id} now receives posts matching the filtered stream rules`);
}
