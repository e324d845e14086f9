// `xctl stream webhooks link <webhook-id> [--expansions ...]`: linking again with another field
// set adds another link (platform-notes-2.md section 7).
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../core/errors.js';
import { pathOf } from '../../../contract/endpoint.js';
import { LINK_FIELD_PARAMS, STREAM_ENDPOINTS as E } from '../../../contract/stream.js';
import { checkWebhookId } from '../../webhooks/checks.js';
import { define } from '../../define.js';
import { addDryRun, dryRunDone, printRequest } from '../../dry-run.js';

export interface LinkOptions {
  webhookId: string;
  tweetFields?: string;
  expansions?: string;
  mediaFields?: string;
  pollFields?: string;
  userFields?: string;
  placeFields?: string;
  dryRun?: boolean;
}

/** `tweet.fields` -> `--tweet-fields` and its options key `tweetFields`. */
const flagOf = (param: string) => '--' + param.replace('.', '-');
type FieldKey = Exclude<keyof LinkOptions, 'webhookId' | 'dryRun'>;
const keyOf = (param: string) => param.replace(/\.(\w)/, (_, c: string) => c.toUpperCase()) as FieldKey;

export function register(parent: Command, runF = linkWebhook): void {
  const cmd = parent
    .command('link')
    .argument('<webhook-id>', "the webhook's id (`xctl webhooks list`)")
    .description('deliver matching posts to a webhook (again with another field set: one more link)');
  for (const p of LINK_FIELD_PARAMS)
    cmd.option(`${flagOf(p)} <list>`, `${p} of each delivered post (as on the filtered stream)`);
  addDryRun(cmd).action(
    define<Omit<LinkOptions, 'webhookId'>>((ctx, o, [webhookId]) => runF(ctx, { ...o, webhookId: webhookId! })),
  );
}

/** POST /2/tweets/search/webhooks/:id — deliver matching posts to this webhook (with a field set). */
export async function linkWebhook(ctx: Context, o: LinkOptions): Promise<void> {
  const id = checkWebhookId(o.webhookId);
  const query: Record<string, string> = {};
  for (const p of LINK_FIELD_PARAMS) {
    const v = o[keyOf(p)];
    if (v === undefined) continue;
    if (!/^[a-z_.]+(,[a-z_.]+)*$/.test(v))
      throw new UsageError(`${flagOf(p)} must be a comma list of field names (got "${v}")`, { flag: flagOf(p) });
    query[p] = v;
  }
  const req = { method: E.link.method, path: pathOf(E.link, { id }), query };
  if (o.dryRun) {
    await printRequest(ctx, req);
    return dryRunDone(ctx);
  }
  const http = await ctx.http();
  await http.request({ ...req, auth: 'app' });
  ctx.io.info(`webhook ${id} now receives posts matching the filtered stream rules`);
}
