// What the webhook verbs check before sending anything, and the secret the local HMACs use.
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { isLoopbackHost } from '../../contract/hosts.js';
import { NUMERIC_ID, idProblem } from '../../contract/ids.js';
import { webhookUrlProblem } from '../../webhooks/url-rules.js';

export function checkWebhookId(id: string): string {
  if (!NUMERIC_ID.test(id)) throw new UsageError(idProblem('webhook id', id), { flag: '<id>' });
  return id;
}

/** Client-side URL rules; loopback http only when the API itself is on loopback (the sandbox). */
export async function checkWebhookUrl(ctx: Context, url: string, flag = '<url>'): Promise<string> {
  const base = new URL(await ctx.apiBase());
  const why = webhookUrlProblem(url, isLoopbackHost(base.hostname));
  if (why) {
    throw new UsageError(`webhook URL refused: ${why}`, {
      flag,
      hint: 'webhook URLs are https, public and without a port; http://127.0.0.1:PORT/... is accepted only with a loopback --base-url (the sandbox)',
    });
  }
  return url;
}

/** The API secret: the CRC answer and delivery signatures are keyed with it. */
export async function consumerSecret(ctx: Context): Promise<string> {
  const c = await ctx.credentials();
  if (!c.api_secret)
    throw new UsageError('no API secret is set: the CRC and signatures are keyed with it', {
      hint: 'run `xctl auth set --api-key KEY --api-secret -` or set XCTL_API_SECRET',
    });
  return c.api_secret;
}
