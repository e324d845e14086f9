// `xctl webhooks validate <id>`: a challenge check now; exit 1 when the webhook stays invalid.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { CheckFailed } from '../../core/errors.js';
import { pathOf } from '../../contract/endpoint.js';
import { WEBHOOK_ENDPOINTS as E } from '../../contract/webhooks.js';
import { declare } from '../define.js';
import { DRY_RUN_OPTION, dryRunDone, printRequest } from '../dry-run.js';
import { checkWebhookId } from './checks.js';

export interface ValidateOptions {
  id: string;
  dryRun?: boolean;
}

export function register(parent: Command, runF = webhooksValidate): void {
  declare(parent, {
    name: 'validate',
    description: 'run a challenge check now and re-enable the webhook when it passes (exit 1 when invalid)',
    arguments: [['<id>', "the webhook's id (`xctl webhooks list`)"]],
    options: [DRY_RUN_OPTION],
    run: (ctx, o, [id]) => runF(ctx, { id, dryRun: o.dryRun }),
  });
}

/** PUT /2/webhooks/:id — a challenge check that re-enables the webhook when it passes. */
export async function webhooksValidate(ctx: Context, o: ValidateOptions): Promise<void> {
  const id = checkWebhookId(o.id);
  const req = { method: E.validate.method, path: pathOf(E.validate, { id }) };
  if (o.dryRun) {
    await printRequest(ctx, req);
    return dryRunDone(ctx);
  }
  const http = await ctx.http();
  const res = await http.request<{ data: { valid: boolean } }>({ ...req, auth: 'app' });
  const valid = !!res.data.data?.valid;
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), { id, valid, status: valid ? 'valid' : 'invalid' });
  if (!valid)
    throw new CheckFailed(`webhook ${id} failed the challenge check and is invalid`, {
      hint: 'see GET /_sandbox/deliveries (sandbox) or your receiver logs; `xctl webhooks listen` answers checks',
    });
}
