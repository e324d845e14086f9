// `xctl activity subscriptions list [--all] [--limit N]`
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { ACTIVITY_ENDPOINTS as E, SUBSCRIPTION_LIMITS as L } from '../../../contract/activity.js';
import { checkInput } from '../../../core/check-input.js';
import { declare } from '../../define.js';
import { SUBSCRIPTION_COLUMNS, SUBSCRIPTION_ENDPOINTS } from './shape.js';
import { authHelp, chooseAuth } from '../../v2-auth.js';

export interface ListOptions {
  all?: boolean;
  limit?: string;
  /** Start at this page (a next_token from an earlier listing). */
  cursor?: string;
  auth?: string;
}

export function register(parent: Command, runF = subscriptionsList): void {
  declare(parent, {
    name: 'list',
    description: 'list subscriptions',
    options: [
      ['--all', 'every page'],
      ['--limit <n>', 'stop after N'],
      ['--cursor <token>', 'start at this page (the next_token of an earlier listing)'],
      ['--auth <kind>', `${authHelp(SUBSCRIPTION_ENDPOINTS.list)}; OAuth 2.0 needs tweet.read and like.read`],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

/** GET /2/activity/subscriptions (max_results, pagination_token) */
export async function subscriptionsList(ctx: Context, o: ListOptions): Promise<void> {
  const { paginate, parseLimit } = await import('../../../core/paginate.js');
  const limit = parseLimit(o.limit);
  // A page token the service would refuse is refused before sending, in its words.
  if (o.cursor !== undefined) checkInput(E.listSubscriptions, { query: { pagination_token: o.cursor } });
  const auth = await chooseAuth(ctx, o.auth, SUBSCRIPTION_ENDPOINTS.list);
  const http = await ctx.http();
  const state = { flag: '--cursor' };
  const items = paginate<Record<string, unknown>>(
    async (cursor) => {
      const res = await http.request<{ data?: Array<Record<string, unknown>>; meta?: { next_token?: string } }>({
        method: E.listSubscriptions.method,
        path: E.listSubscriptions.path,
        auth,
        query: {
          max_results: limit !== undefined ? Math.min(L.maxResults.max, limit) : L.maxResults.default,
          pagination_token: cursor,
        },
      });
      return { items: res.data.data ?? [], next: res.data.meta?.next_token };
    },
    { all: o.all, limit, cursor: o.cursor, state },
  );
  const { printList } = await import('../../../core/output.js');
  await printList(ctx.io, await ctx.output(), items, {
    columns: SUBSCRIPTION_COLUMNS,
    knownFields: [...SUBSCRIPTION_COLUMNS, 'updated_at'],
    pages: state,
  });
}
