// `xctl activity subscriptions create|list|delete` (platform-notes.md "Activity API subscriptions").
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import type { AuthMode } from '../../core/http.js';
import { ACTIVITY_ENDPOINTS as E, ACTIVITY_EVENT_TYPES, DEPRECATED_EVENT_NAMES, SUBSCRIPTION_LIMITS as L, isDirectional, lengthWithin } from '../../contract/activity.js';
import { pathOf } from '../../contract/endpoint.js';
import { NUMERIC_ID } from '../../contract/ids.js';
import { checkWebhookId } from '../webhooks/manage.js';

export interface CreateOptions {
  event?: string;
  userId?: string;
  keyword?: string;
  direction?: string;
  tag?: string;
  webhook?: string;
}

export interface ListOptions {
  all?: boolean;
  limit?: string;
}

const COLUMNS = ['subscription_id', 'event_type', 'filter', 'tag', 'webhook_id', 'created_at'];

/** Subscriptions accept OAuth 1.0a user context or an app-only bearer (section 5): user when set. */
async function authMode(ctx: Context): Promise<AuthMode> {
  const c = await ctx.credentials();
  return c.access_token && c.access_token_secret ? 'user' : 'app';
}

export function buildSubscription(o: CreateOptions): Record<string, unknown> {
  const ev = o.event;
  if (!ev) throw new UsageError(`--event is required: one of ${ACTIVITY_EVENT_TYPES.join(', ')}`, { flag: '--event' });
  if (DEPRECATED_EVENT_NAMES[ev]) throw new UsageError(`--event ${ev} is a deprecated name (renamed 2026-03-18): use ${DEPRECATED_EVENT_NAMES[ev]}`, { flag: '--event' });
  if (!(ACTIVITY_EVENT_TYPES as readonly string[]).includes(ev)) throw new UsageError(`--event must be one of ${ACTIVITY_EVENT_TYPES.join(', ')} (got "${ev}")`, { flag: '--event' });
  const filter: Record<string, string> = {};
  if (o.userId !== undefined) {
    if (!NUMERIC_ID.test(o.userId)) throw new UsageError(`--user-id must be 1-19 digits (got "${o.userId}")`, { flag: '--user-id' });
    filter.user_id = o.userId;
  }
  if (o.keyword !== undefined) {
    if (!lengthWithin(o.keyword, L.keyword)) throw new UsageError(`--keyword must be ${L.keyword.min}-${L.keyword.max} characters (got ${o.keyword.length})`, { flag: '--keyword' });
    filter.keyword = o.keyword;
  }
  if (o.direction !== undefined) {
    if (!(L.directions as readonly string[]).includes(o.direction)) throw new UsageError(`--direction must be ${L.directions.join(' or ')} (got "${o.direction}")`, { flag: '--direction' });
    if (!isDirectional(ev)) throw new UsageError(`--direction applies to direct-message events (dm.*), not ${ev}`, { flag: '--direction' });
    filter.direction = o.direction;
  }
  if (o.tag !== undefined && !lengthWithin(o.tag, L.tag)) throw new UsageError(`--tag must be ${L.tag.min}-${L.tag.max} characters (got ${o.tag.length})`, { flag: '--tag' });
  if (o.webhook !== undefined) checkWebhookId(o.webhook);
  return { event_type: ev, filter, ...(o.tag !== undefined ? { tag: o.tag } : {}), ...(o.webhook !== undefined ? { webhook_id: o.webhook } : {}) };
}

/** POST /2/activity/subscriptions */
export async function subscriptionsCreate(ctx: Context, o: CreateOptions): Promise<void> {
  const body = buildSubscription(o);
  const http = await ctx.http();
  const res = await http.request<{ data: Record<string, unknown> }>({ method: E.createSubscription.method, path: E.createSubscription.path, auth: await authMode(ctx), json: body });
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), res.data.data, { columns: COLUMNS });
}

/** GET /2/activity/subscriptions (max_results, pagination_token) */
export async function subscriptionsList(ctx: Context, o: ListOptions): Promise<void> {
  const { paginate, parseLimit } = await import('../../core/paginate.js');
  const limit = parseLimit(o.limit);
  const http = await ctx.http();
  const auth = await authMode(ctx);
  const items = paginate<Record<string, unknown>>(
    async (cursor) => {
      const res = await http.request<{ data?: Array<Record<string, unknown>>; meta?: { next_token?: string } }>({
        method: E.listSubscriptions.method,
        path: E.listSubscriptions.path,
        auth,
        query: { max_results: limit !== undefined ? Math.min(L.maxResults.max, limit) : L.maxResults.default, pagination_token: cursor },
      });
      return { items: res.data.data ?? [], next: res.data.meta?.next_token };
    },
    { all: o.all, limit },
  );
  const { printList } = await import('../../core/output.js');
  await printList(ctx.io, await ctx.output(), items, { columns: COLUMNS, knownFields: [...COLUMNS, 'updated_at'] });
}

/** DELETE /2/activity/subscriptions/:id */
export async function subscriptionsDelete(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const id = args[0]!;
  if (!NUMERIC_ID.test(id)) throw new UsageError(`subscription id must be 1-19 digits (got "${id}")`, { flag: '<id>' });
  if (!(await ctx.confirm(`delete subscription ${id}?`))) throw new UsageError('not deleted');
  const http = await ctx.http();
  const res = await http.request<{ meta?: { total_subscriptions?: number } }>({ method: E.deleteSubscription.method, path: pathOf(E.deleteSubscription, { id }), auth: await authMode(ctx) });
  ctx.io.info(`deleted subscription ${id} (${res.data.meta?.total_subscriptions ?? '?'} left)`);
}
