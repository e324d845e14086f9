// `xctl activity subscriptions create|list|update|delete` (platform-notes.md "Activity API
// subscriptions", platform-notes-2.md section 7).
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../core/errors.js';
import type { AuthMode } from '../../core/http.js';
import { ACTIVITY_EVENT_TYPES, DEPRECATED_EVENT_NAMES, canonicalEventType, isDirectional } from '../../webhooks/crypto.js';
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
  const hint = `event types: ${ACTIVITY_EVENT_TYPES.join(' ')}`;
  if (!ev) throw new UsageError('--event is required (an event type)', { flag: '--event', hint });
  if (DEPRECATED_EVENT_NAMES[ev]) throw new UsageError(`--event ${ev} is a deprecated name (renamed 2026-03-18): use ${DEPRECATED_EVENT_NAMES[ev]}`, { flag: '--event' });
  if (!canonicalEventType(ev)) throw new UsageError(`--event must be one of the platform's event types (got "${ev}")`, { flag: '--event', hint });
  const filter: Record<string, string> = {};
  if (o.userId !== undefined) {
    if (!/^\d{1,19}$/.test(o.userId)) throw new UsageError(`--user-id must be 1-19 digits (got "${o.userId}")`, { flag: '--user-id' });
    filter.user_id = o.userId;
  }
  if (o.keyword !== undefined) {
    if (o.keyword.length < 1 || o.keyword.length > 150) throw new UsageError(`--keyword must be 1-150 characters (got ${o.keyword.length})`, { flag: '--keyword' });
    filter.keyword = o.keyword;
  }
  if (o.direction !== undefined) {
    if (o.direction !== 'inbound' && o.direction !== 'outbound') throw new UsageError(`--direction must be inbound or outbound (got "${o.direction}")`, { flag: '--direction' });
    if (!isDirectional(ev)) throw new UsageError(`--direction applies to direct-message and chat events (dm.*, chat.*), not ${ev}`, { flag: '--direction' });
    filter.direction = o.direction;
  }
  if (o.tag !== undefined && (o.tag.length < 1 || o.tag.length > 200)) throw new UsageError(`--tag must be 1-200 characters (got ${o.tag.length})`, { flag: '--tag' });
  if (o.webhook !== undefined) checkWebhookId(o.webhook);
  return { event_type: ev, filter, ...(o.tag !== undefined ? { tag: o.tag } : {}), ...(o.webhook !== undefined ? { webhook_id: o.webhook } : {}) };
}

/** POST /2/activity/subscriptions */
export async function subscriptionsCreate(ctx: Context, o: CreateOptions): Promise<void> {
  const body = buildSubscription(o);
  const http = await ctx.http();
  const res = await http.request<{ data?: unknown }>({ method: 'POST', path: '/2/activity/subscriptions', auth: await authMode(ctx), json: body });
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), subscriptionOf(res.data.data), { columns: COLUMNS });
}

/**
 * The subscription in a create or update answer: OpenAPI's `{"data":{"subscription":{...}}}`
 * (chosen), the quickstart's `{"data":[{...}]}`, or a flat `data` (platform-notes-2.md section 7).
 */
export function subscriptionOf(data: unknown): Record<string, unknown> {
  const d = Array.isArray(data) ? data[0] : data;
  if (!d || typeof d !== 'object') throw new ApiError('the service answered without the subscription', { body: data });
  const rec = d as Record<string, unknown>;
  const sub = rec.subscription && typeof rec.subscription === 'object' ? (rec.subscription as Record<string, unknown>) : rec;
  if (typeof sub.subscription_id !== 'string') throw new ApiError('the service answered without a subscription_id', { body: data });
  return sub;
}

export interface UpdateOptions {
  tag?: string;
  webhook?: string;
}

/** PUT /2/activity/subscriptions/:id (app-only bearer): only tag and webhook_id can change. */
export async function subscriptionsUpdate(ctx: Context, o: UpdateOptions, args: string[]): Promise<void> {
  const id = checkSubscriptionId(args[0]);
  if (o.tag === undefined && o.webhook === undefined) throw new UsageError('give --tag and/or --webhook (event type and filter cannot change: delete and re-create instead)', { flag: '--tag' });
  if (o.tag !== undefined && (o.tag.length < 1 || o.tag.length > 200)) throw new UsageError(`--tag must be 1-200 characters (got ${o.tag.length})`, { flag: '--tag' });
  if (o.webhook !== undefined) checkWebhookId(o.webhook);
  const http = await ctx.http();
  const res = await http.request<{ data?: unknown }>({
    method: 'PUT',
    path: `/2/activity/subscriptions/${id}`,
    auth: 'app',
    json: { ...(o.tag !== undefined ? { tag: o.tag } : {}), ...(o.webhook !== undefined ? { webhook_id: o.webhook } : {}) },
  });
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), subscriptionOf(res.data.data), { columns: [...COLUMNS, 'updated_at'] });
}

function checkSubscriptionId(id: string | undefined): string {
  if (!id || !/^\d{1,19}$/.test(id)) throw new UsageError(`subscription id must be 1-19 digits (got "${id ?? ''}")`, { flag: '<id>' });
  return id;
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
        method: 'GET',
        path: '/2/activity/subscriptions',
        auth,
        query: { max_results: limit !== undefined ? Math.min(1000, limit) : 100, pagination_token: cursor },
      });
      return { items: res.data.data ?? [], next: res.data.meta?.next_token };
    },
    { all: o.all, limit },
  );
  const { printList } = await import('../../core/output.js');
  await printList(ctx.io, await ctx.output(), items, { columns: COLUMNS, knownFields: [...COLUMNS, 'updated_at'] });
}

/** Ids per DELETE /2/activity/subscriptions?ids= (platform-notes-2.md section 7: 1-100). */
const DELETE_MANY_MAX = 100;

/**
 * DELETE /2/activity/subscriptions/:id for one id; DELETE /2/activity/subscriptions?ids= for
 * several (100 a request). App-only bearer. Ids that could not be deleted are reported, exit 1.
 */
export async function subscriptionsDelete(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const ids = [...new Set(args.map((a) => checkSubscriptionId(a)))];
  if (!(await ctx.confirm(ids.length === 1 ? `delete subscription ${ids[0]}?` : `delete ${ids.length} subscriptions?`))) throw new UsageError('not deleted');
  const http = await ctx.http();
  if (ids.length === 1) {
    const res = await http.request<{ meta?: { total_subscriptions?: number } }>({ method: 'DELETE', path: `/2/activity/subscriptions/${ids[0]}`, auth: 'app' });
    ctx.io.info(`deleted subscription ${ids[0]} (${res.data.meta?.total_subscriptions ?? '?'} left)`);
    return;
  }
  const failed: string[] = [];
  let left: number | undefined;
  for (let i = 0; i < ids.length; i += DELETE_MANY_MAX) {
    const chunk = ids.slice(i, i + DELETE_MANY_MAX);
    const res = await http.request<{
      data?: Array<{ subscription_id?: string; deleted?: boolean }>;
      errors?: Array<{ subscription_id?: string; reason?: string; message?: string }>;
      meta?: { total_subscriptions?: number };
    }>({ method: 'DELETE', path: '/2/activity/subscriptions', auth: 'app', query: { ids: chunk.join(',') } });
    for (const d of res.data.data ?? []) if (d.deleted) ctx.io.info(`deleted subscription ${d.subscription_id}`);
    for (const e of res.data.errors ?? []) {
      failed.push(String(e.subscription_id));
      ctx.io.warn(`subscription ${e.subscription_id} not deleted: ${e.message ?? e.reason ?? 'unknown reason'}`);
    }
    left = res.data.meta?.total_subscriptions ?? left;
  }
  ctx.io.info(`${ids.length - failed.length} of ${ids.length} deleted (${left ?? '?'} left)`);
  if (failed.length) throw new ApiError(`${failed.length} of ${ids.length} subscriptions were not deleted: ${failed.join(', ')}`, {});
}
