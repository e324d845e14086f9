// `xctl activity ...`: activity API subscriptions and the live event stream.
import type { Command } from 'commander';
import { run } from '../kit.js';
import { SUBSCRIPTION_ENDPOINTS, subscriptionsCreate, subscriptionsDelete, subscriptionsList } from './subscriptions.js';
import { authHelp } from '../v2-auth.js';

export function register(cmd: Command): void {
  const subs = cmd.command('subscriptions').description('create, list and delete activity subscriptions');
  subs
    .command('create')
    .description('subscribe to an event type (to a webhook with --webhook, else to the stream)')
    .option('--event <type>', 'event type, e.g. profile.update.bio, dm.received, spaces.start')
    .option('--user-id <id>', 'filter: the user the events are about')
    .option('--keyword <text>', 'filter: a keyword (1-150 characters)')
    .option('--direction <dir>', 'filter for dm.* events: inbound or outbound')
    .option('--tag <text>', 'a label echoed in each event (1-200 characters)')
    .option('--webhook <id>', 'deliver to this webhook')
    .option('--auth <kind>', `${authHelp(SUBSCRIPTION_ENDPOINTS.create)}; an OAuth 2.0 token needs the event type's scope (dm.read for dm.*/chat.*, like.read, mute.read, block.read, else tweet.read)`)
    .action(run(subscriptionsCreate));
  subs
    .command('list')
    .description('list subscriptions')
    .option('--all', 'every page')
    .option('--limit <n>', 'stop after N')
    .option('--auth <kind>', `${authHelp(SUBSCRIPTION_ENDPOINTS.list)}; OAuth 2.0 needs tweet.read and like.read`)
    .action(run(subscriptionsList));
  subs
    .command('delete <id>')
    .description('delete a subscription (asks; --yes when not at a terminal)')
    .option('--auth <kind>', authHelp(SUBSCRIPTION_ENDPOINTS.delete))
    .action(run(subscriptionsDelete));
  cmd
    .command('stream')
    .description('print activity events as NDJSON; reconnects with backoff and backfill so none is missed')
    .option('--backfill-minutes <n>', 'replay the last N minutes (0-5) on connect; reconnects always backfill the gap')
    .option('--stall-timeout <seconds>', 'reconnect when nothing (not even a keep-alive) arrives for this long', '60')
    .action(run(async (ctx, o) => (await import('./stream.js')).activityStream(ctx, o)));
}
