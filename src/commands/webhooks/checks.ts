// What the webhook verbs check before sending anything, and the secret the local HMACs use.
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { isLoopbackHost } from '../../contract/hosts.js';
import { WEBHOOK_URL_PARAM, webhookIdParam } from '../../contract/webhooks.js';
import { checkInput } from '../../core/check-input.js';

const WEBHOOK_ID = { params: [webhookIdParam('id', 'path')] };

/** A webhook id as the contract's rule wants it (1-19 digits). */
export function checkWebhookId(id: string): string {
  checkInput(WEBHOOK_ID, { path: { id } });
  return id;
}

const URL_HINT =
  'webhook URLs are https, public and without a port; http://127.0.0.1:PORT/... is accepted only with a loopback --base-url (the sandbox)';

/**
 * The contract's URL rules (POST /2/webhooks); loopback http only when the API itself is on
 * loopback (the sandbox). `flag`: the subject of the message when not the webhook's URL.
 */
export async function checkWebhookUrl(ctx: Context, url: string, flag = 'webhook URL'): Promise<string> {
  const base = new URL(await ctx.apiBase());
  const loopback = isLoopbackHost(base.hostname);
  checkInput({ params: [{ ...WEBHOOK_URL_PARAM, flag }] }, { body: { url } }, { url: URL_HINT }, { loopback });
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
