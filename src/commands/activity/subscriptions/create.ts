// `xctl activity subscriptions create --event TYPE [filters]`: to a webhook with --webhook, else to the stream.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { checkInput } from '../../../core/check-input.js';
import { ACTIVITY_ENDPOINTS as E, ACTIVITY_EVENT_TYPES, SUBSCRIPTION_LIMITS as L } from '../../../contract/activity.js';
import { declare } from '../../define.js';
import { SUBSCRIPTION_COLUMNS, SUBSCRIPTION_ENDPOINTS, subscriptionOf } from './shape.js';
import { authHelp, chooseAuth } from '../../v2-auth.js';
import { scopesForEvent } from '../../../contract/oauth2.js';
import { DRY_RUN_OPTION, dryRunDone, printRequest } from '../../dry-run.js';

export interface CreateOptions {
  event?: string;
  userId?: string;
  keyword?: string;
  direction?: string;
  tag?: string;
  webhook?: string;
  auth?: string;
  dryRun?: boolean;
}

export function register(parent: Command, runF = subscriptionsCreate): void {
  declare(parent, {
    name: 'create',
    description: 'subscribe to an event type (to a webhook with --webhook, else to the stream)',
    options: [
      [
        '--event <type>',
        'event type, e.g. profile.update.bio, post.create, dm.received (see `xctl sandbox trigger --help`)',
      ],
      ['--user-id <id>', 'filter: the user the events are about'],
      ['--keyword <text>', `filter: a keyword (${L.keyword.min}-${L.keyword.max} characters)`],
      ['--direction <dir>', `filter for dm.* and chat.* events: ${L.directions.join(' or ')}`],
      ['--tag <text>', `a label echoed in each event (${L.tag.min}-${L.tag.max} characters)`],
      ['--webhook <id>', 'deliver to this webhook'],
      [
        '--auth <kind>',
        `${authHelp(SUBSCRIPTION_ENDPOINTS.create)}; an OAuth 2.0 token needs the event type's scope (dm.read for dm.*/chat.*, like.read, mute.read, block.read, else tweet.read)`,
      ],
      DRY_RUN_OPTION,
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

/** The request body, after every rule of the contract; a violation exits 2 naming the flag. */
export function buildSubscription(o: CreateOptions): Record<string, unknown> {
  const filter: Record<string, string> = {};
  if (o.userId !== undefined) filter.user_id = o.userId;
  if (o.keyword !== undefined) filter.keyword = o.keyword;
  if (o.direction !== undefined) filter.direction = o.direction;
  const body = {
    event_type: o.event,
    filter,
    ...(o.tag !== undefined ? { tag: o.tag } : {}),
    ...(o.webhook !== undefined ? { webhook_id: o.webhook } : {}),
  };
  checkInput(E.createSubscription, { body }, { event_type: `event types: ${ACTIVITY_EVENT_TYPES.join(' ')}` });
  return body;
}

/** POST /2/activity/subscriptions */
export async function subscriptionsCreate(ctx: Context, o: CreateOptions): Promise<void> {
  const body = buildSubscription(o);
  if (o.dryRun) {
    await printRequest(ctx, { method: E.createSubscription.method, path: E.createSubscription.path, json: body });
    return dryRunDone(ctx);
  }
  const auth = await chooseAuth(ctx, o.auth, SUBSCRIPTION_ENDPOINTS.create);
  const http = await ctx.http();
  // A user token's scope depends on the event type: the hint of a 403 names it.
  const res = await http.request<{ data?: unknown }>({
    method: E.createSubscription.method,
    path: E.createSubscription.path,
    auth,
    json: body,
    scopes: scopesForEvent(o.event!),
  });
  const { printOne } = await import('../../../core/output.js');
  await printOne(ctx.io, await ctx.output(), subscriptionOf(res.data.data), { columns: SUBSCRIPTION_COLUMNS });
}
