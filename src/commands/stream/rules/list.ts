// `xctl stream rules list`
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { STREAM_ENDPOINTS as E } from '../../../contract/stream.js';
import { declare } from '../../define.js';
import { RULE_COLUMNS as COLUMNS } from './post.js';

export function register(parent: Command, runF = rulesList): void {
  declare(parent, {
    name: 'list',
    description: 'list the rules',
    run: (ctx) => runF(ctx),
  });
}

/** GET /2/tweets/search/stream/rules */
export async function rulesList(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await http.request<{ data?: Array<Record<string, unknown>> }>({
    method: E.listRules.method,
    path: E.listRules.path,
    auth: 'app',
  });
  const { printList } = await import('../../../core/output.js');
  await printList(ctx.io, await ctx.output(), res.data.data ?? [], { columns: COLUMNS, knownFields: COLUMNS });
}
