// `xctl webhooks create <url>`: register a webhook; the service runs a challenge check first.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { WEBHOOK_ENDPOINTS as E } from '../../contract/webhooks.js';
import { define } from '../define.js';
import { checkWebhookUrl } from './checks.js';

export interface CreateOptions {
  url: string;
}

/** Columns of a webhook as the service returns it. */
export const WEBHOOK_COLUMNS = ['id', 'url', 'valid', 'created_at'];

export function register(parent: Command, runF = webhooksCreate): void {
  parent
    .command('create').argument('<url>', 'https URL of the receiver (a loopback http URL on the sandbox)')
    .description('register a webhook (https, public host, no port); the service runs a challenge check')
    .action(define((ctx, _o, [url]) => runF(ctx, { url: url! })));
}

/** POST /2/webhooks */
export async function createWebhook(ctx: Context, url: string): Promise<Record<string, unknown>> {
  const http = await ctx.http();
  const res = await http.request<{ data: Record<string, unknown> }>({ method: E.create.method, path: E.create.path, auth: 'app', json: { url } });
  return res.data.data;
}

/** Registers a webhook after the local URL checks (POST /2/webhooks). */
export async function webhooksCreate(ctx: Context, o: CreateOptions): Promise<void> {
  const url = await checkWebhookUrl(ctx, o.url);
  const w = await createWebhook(ctx, url);
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), w, { columns: WEBHOOK_COLUMNS });
}
