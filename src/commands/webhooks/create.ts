// `xctl webhooks create <url>`: register a webhook; the service runs a challenge check first.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { WEBHOOK_ENDPOINTS as E } from '../../contract/webhooks.js';
import { declare } from '../define.js';
import { DuplicateError } from '../../core/errors.js';
import { checkWebhookUrl } from './checks.js';
import { DRY_RUN_OPTION, dryRunDone, printRequest } from '../dry-run.js';

export interface CreateOptions {
  url: string;
  /** return | fail when the app has a webhook with this URL already. */
  ifExists?: string;
  dryRun?: boolean;
}

/** Columns of a webhook as the service returns it. */
export const WEBHOOK_COLUMNS = ['id', 'url', 'valid', 'created_at'];

export function register(parent: Command, runF = webhooksCreate): void {
  declare(parent, {
    name: 'create',
    description: 'register a webhook (https, public host, no port); the service runs a challenge check',
    arguments: [['<url>', 'https URL of the receiver (a loopback http URL on the sandbox)']],
    options: [
      {
        flags: '--if-exists <action>',
        description: 'when the app has a webhook with this URL: return prints it (exit 0), fail exits 1 with its id',
        choices: ['return', 'fail'],
      },
      DRY_RUN_OPTION,
    ],
    run: (ctx, o, [url]) => runF(ctx, { ...o, url }),
  });
}

/** POST /2/webhooks */
export async function createWebhook(ctx: Context, url: string): Promise<Record<string, unknown>> {
  const http = await ctx.http();
  const res = await http.request<{ data: Record<string, unknown> }>({
    method: E.create.method,
    path: E.create.path,
    auth: 'app',
    json: { url },
  });
  return res.data.data;
}

/** Registers a webhook after the local URL checks (POST /2/webhooks). */
export async function webhooksCreate(ctx: Context, o: CreateOptions): Promise<void> {
  const url = await checkWebhookUrl(ctx, o.url);
  const { printOne } = await import('../../core/output.js');
  if (o.dryRun) {
    await printRequest(ctx, { method: E.create.method, path: E.create.path, json: { url } });
    return dryRunDone(ctx);
  }
  if (o.ifExists) {
    const found = await existingWebhook(ctx, url, o.ifExists);
    if (found) return printOne(ctx.io, await ctx.output(), found, { columns: WEBHOOK_COLUMNS });
  }
  const w = await createWebhook(ctx, url);
  await printOne(ctx.io, await ctx.output(), w, { columns: WEBHOOK_COLUMNS });
}

/** --if-exists: the app's webhook with this URL (GET /2/webhooks), returned or refused. */
async function existingWebhook(
  ctx: Context,
  url: string,
  action: string,
): Promise<Record<string, unknown> | undefined> {
  const res = await (await ctx.http()).request<{ data?: Array<Record<string, unknown>> }>({
    method: E.list.method,
    path: E.list.path,
    auth: 'app',
  });
  const found = (res.data?.data ?? []).find((w) => w.url === url);
  if (!found) return undefined;
  const id = String(found.id);
  if (action === 'fail')
    throw new DuplicateError(`the app has a webhook with this URL already (${id}): nothing was created`, id, {
      hint: 'use it (--if-exists return prints it), or delete it first',
    });
  ctx.io.info(`--if-exists return: the app has a webhook with this URL already (${id}); nothing was created`);
  return found;
}
