// `xctl stream rules delete <ids...> [--dry-run]`
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { ApiError } from '../../../core/errors.js';
import { STREAM_ENDPOINTS as E } from '../../../contract/stream.js';
import { checkInput } from '../../../core/check-input.js';
import { declare } from '../../define.js';
import { postRules } from './post.js';

export interface DeleteOptions {
  ids: string[];
  dryRun?: boolean;
}

export function register(parent: Command, runF = rulesDelete): void {
  declare(parent, {
    name: 'delete',
    description: 'delete rules by id',
    arguments: [['<ids...>', 'rule ids (`xctl stream rules list`)']],
    options: [['--dry-run', 'validate only; nothing is deleted']],
    run: (ctx, o, [ids]) => runF(ctx, { ...o, ids }),
  });
}

/** Deletes rules (POST /2/tweets/search/stream/rules {"delete":{"ids":[...]}}). */
export async function rulesDelete(ctx: Context, o: DeleteOptions): Promise<void> {
  checkInput(E.changeRules, { body: { delete: { ids: o.ids } } });
  const res = await postRules(ctx, { delete: { ids: o.ids } }, o.dryRun);
  if (res.status >= 400)
    throw new ApiError(`deleting rules failed (HTTP ${res.status})`, { status: res.status, body: res.data });
  const s = res.data.meta?.summary ?? {};
  if (o.dryRun)
    ctx.io.info(`dry run: would delete ${s.deleted ?? 0}, would not delete ${s.not_deleted ?? 0}; nothing was deleted`);
  else ctx.io.info(`deleted ${s.deleted ?? 0}, not deleted ${s.not_deleted ?? 0}`);
  if (res.data.errors?.length)
    throw new ApiError(`${res.data.errors.length} rule(s) not found`, { status: res.status });
}
