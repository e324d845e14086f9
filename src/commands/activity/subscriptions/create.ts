// `xctl activity subscriptions create --event TYPE [filters]`: to a webhook with --webhook, else to the stream.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../core/errors.js';
import { ACTIVITY_ENDPOINTS as E, ACTIVITY_EVENT_TYPES, DEPRECATED_EVENT_NAMES, SUBSCRIPTION_LIMITS as L, canonicalEventType, isDirectional, lengthWithin } from '../../../contract/activity.js';
import { NUMERIC_ID } from '../../../contract/ids.js';
import { define } from '../../define.js';
import { checkWebhookId } from '../../webhooks/checks.js';
import { SUBSCRIPTION_COLUMNS, SUBSCRIPTION_ENDPOINTS, subscriptionOf } from './shape.js';
import { authHelp, chooseAuth } from '../../v2-auth.js';
import { scopesForEvent } from '../../../contract/oauth2.js';

export interface CreateOptions {
  event?: string;
  userId?: string;
  keyword?: string;
  direction?: string;
  tag?: string;
  webhook?: string;
  auth?: string;
}

export function register(parent: Command, runF = subscriptionsCreate): void {
  parent
    .command('create')
    .description('subscribe to an event type (to a webhook with --webhook, else to the stream)')
    .option('--event <type>', 'event type, e.g. profile.update.bio, post.create, dm.received (see `xctl sandbox trigger --help`)')
    .option('--user-id <id>', 'filter: the user the events are about')
    .option('--keyword <text>', `filter: a keyword (${L.keyword.min}-${L.keyword.max} characters)`)
    .option('--direction <dir>', `filter for dm.* and chat.* events: ${L.directions.join(' or ')}`)
    .option('--tag <text>', `a label echoed in each event (${L.tag.min}-${L.tag.max} characters)`)
    .option('--webhook <id>', 'deliver to this webhook')
    .option('--auth <kind>', `${authHelp(SUBSCRIPTION_ENDPOINTS.create)}; an OAuth 2.0 token needs the event type's scope (dm.read for dm.*/chat.*, like.read, mute.read, block.read, else tweet.read)`)
    .action(define<CreateOptions>((ctx, o) => runF(ctx, o)));
}

/** The request body, after every rule of the contract; a violation exits 2 naming the flag. */
export function buildSubscription(o: CreateOptions): Record<string, unknown> {
  const ev = o.event;
  const hint = `event types: ${ACTIVITY_EVENT_TYPES.join(' ')}`;
  if (!ev) throw new UsageError('--event is required (an event type)', { flag: '--event', hint });
  if (DEPRECATED_EVENT_NAMES[ev]) throw new UsageError(`--event ${ev} is a deprecated name (renamed 2026-03-18): use ${DEPRECATED_EVENT_NAMES[ev]}`, { flag: '--event' });
  if (!canonicalEventType(ev)) throw new UsageError(`--event must be one of the platform's event types (got "${ev}")`, { flag: '--event', hint });
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
    if (!isDirectional(ev)) throw new UsageError(`--direction applies to direct-message and chat events (dm.*, chat.*), not ${ev}`, { flag: '--direction' });
    filter.direction = o.direction;
  }
  if (o.tag !== undefined && !lengthWithin(o.tag, L.tag)) throw new UsageError(`--tag must be ${L.tag.min}-${L.tag.max} characters (got ${o.tag.length})`, { flag: '--tag' });
  if (o.webhook !== undefined) checkWebhookId(o.webhook);
  return { event_type: ev, filter, ...(o.tag !== undefined ? { tag: o.tag } : {}), ...(o.webhook !== undefined ? { webhook_id: o.webhook } : {}) };
}

/** POST /2/activity/subscriptions */
export async function subscriptionsCreate(ctx: Context, o: CreateOptions): Promise<void> {
  const body = buildSubscription(o);
  const auth = await chooseAuth(ctx, o.auth, SUBSCRIPTION_ENDPOINTS.create);
  const http = await ctx.http();
  // A user token's scope depends on the event type: the hint of a 403 names it.
  const res = await http.request<{ data?: unknown }>({ method: E.createSubscription.method, path: E.createSubscription.path, auth, json: body, scopes: scopesForEvent(o.event!) });
  const { printOne } = await import('../../../core/output.js');
  await printOne(ctx.io, await ctx.output(), subscriptionOf(res.data.data), { columns: SUBSCRIPTION_COLUMNS });
}
