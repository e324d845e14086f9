// `xctl stream webhooks link <webhook-id> [--expansions ...]`: linking again with another field
// set adds another link (docs/contract.md, notes-2 section 7).
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { checkInput } from '../../../core/check-input.js';
import { pathOf } from '../../../contract/endpoint.js';
import { LINK_FIELD_PARAMS, STREAM_ENDPOINTS as E } from '../../../contract/stream.js';
import { checkWebhookId } from '../../webhooks/checks.js';
import { declare, type OptionDecl } from '../../define.js';
import { DRY_RUN_OPTION, dryRunDone, printRequest } from '../../dry-run.js';

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
const keyOf = (param: string) => param.replace(/\.(\w)/, (_, c: string) => c.toUpperCase()) as LinkField;
type LinkField = Exclude<keyof LinkOptions, 'webhookId' | 'dryRun'>;

export function register(parent: Command, runF = linkWebhook): void {
  declare(parent, {
    name: 'link',
    description: 'deliver matching posts to a webhook (again with another field set: one more link)',
    arguments: [['<webhook-id>', "the webhook's id (`xctl webhooks list`)"]],
    options: [
      ...LINK_FIELD_PARAMS.map(
        (p): OptionDecl => [`${flagOf(p)} <list>`, `${p} of each delivered post (as on the filtered stream)`],
      ),
      DRY_RUN_OPTION,
    ],
    run: (ctx, o, [webhookId]) => {
      const fields: Omit<LinkOptions, 'webhookId'> = { dryRun: o.dryRun === true };
      for (const p of LINK_FIELD_PARAMS) {
        const v = o[keyOf(p)];
        if (typeof v === 'string') fields[keyOf(p)] = v;
      }
      return runF(ctx, { ...fields, webhookId });
    },
  });
}

/** POST /2/tweets/search/webhooks/:id — deliver matching posts to this webhook (with a field set). */
export async function linkWebhook(ctx: Context, o: LinkOptions): Promise<void> {
  const id = checkWebhookId(o.webhookId);
  const query: Record<string, string> = {};
  for (const p of LINK_FIELD_PARAMS) {
    const v = o[keyOf(p)];
    if (v !== undefined) query[p] = v;
  }
  checkInput(E.link, { path: { id }, query });
  const req = { method: E.link.method, path: pathOf(E.link, { id }), query };
  if (o.dryRun) {
    await printRequest(ctx, req);
    return dryRunDone(ctx);
  }
  const http = await ctx.http();
  await http.request({ ...req, auth: 'app' });
  ctx.io.info(`webhook ${id} now receives posts matching the filtered stream rules`);
}
