// `xctl activity ...`: activity API subscriptions and the live event stream.
import type { Command } from 'commander';
import { run } from '../kit.js';
import { subscriptionsCreate, subscriptionsDelete, subscriptionsList, subscriptionsUpdate } from './subscriptions.js';

export function register(cmd: Command): void {
  const subs = cmd.command('subscriptions').description('create, list, update and delete activity subscriptions');
  subs
    .command('create')
    .description('subscribe to an event type (to a webhook with --webhook, else to the stream)')
    .option('--event <type>', 'event type, e.g. profile.update.bio, post.create, dm.received (see `xctl sandbox trigger --help`)')
    .option('--user-id <id>', 'filter: the user the events are about')
    .option('--keyword <text>', 'filter: a keyword (1-150 characters)')
    .option('--direction <dir>', 'filter for dm.* and chat.* events: inbound or outbound')
    .option('--tag <text>', 'a label echoed in each event (1-200 characters)')
    .option('--webhook <id>', 'deliver to this webhook')
    .action(run(subscriptionsCreate));
  subs.command('list').description('list subscriptions').option('--all', 'every page').option('--limit <n>', 'stop after N').action(run(subscriptionsList));
  subs
    .command('update <id>')
    .description('change a subscription\'s tag or webhook (event type and filter cannot change)')
    .option('--tag <text>', 'a new label (1-200 characters)')
    .option('--webhook <id>', 'deliver to this webhook instead')
    .action(run(subscriptionsUpdate));
  subs.command('delete <id...>').description('delete subscriptions, one or many (asks; --yes when not at a terminal)').action(run(subscriptionsDelete));
  cmd
    .command('stream')
    .description('print activity events as NDJSON; reconnects with backoff and backfill so none is missed')
    .option('--backfill-minutes <n>', 'replay the last N minutes (0-5) on connect; reconnects always backfill the gap')
    .option('--start-time <time>', 'replay events from this ISO 8601 time (at most 24 h back; instead of --backfill-minutes)')
    .option('--end-time <time>', 'stop at this ISO 8601 time (a past window replays, then exits 0)')
    .option('--stall-timeout <seconds>', 'reconnect when nothing (not even a keep-alive) arrives for this long', '60')
    .action(run(async (ctx, o) => (await import('./stream.js')).activityStream(ctx, o)));
}
