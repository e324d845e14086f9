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

/** GET /2/tweets/search/stream/rules, every page (max_results, 1000 by default, a page; then next_token). */
export async function rulesList(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const rules: Array<Record<string, unknown>> = [];
  let token: string | undefined;
  do {
    const res = await http.request<{ data?: Array<Record<string, unknown>>; meta?: { next_token?: string } }>({
      method: E.listRules.method,
      path: E.listRules.path,
      auth: 'app',
      ...(token !== undefined ? { query: { pagination_token: token } } : {}),
    });
    rules.push(...(res.data.data ?? []));
    token = res.data.meta?.next_token;
  } while (token !== undefined);
  const { printList } = await import('../../../core/output.js');
  await printList(ctx.io, await ctx.output(), rules, { columns: COLUMNS, knownFields: COLUMNS });
}
