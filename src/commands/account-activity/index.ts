// `xctl account-activity ...`: the Account Activity API, one of the three webhook products
// (credentials-webhooks.md 1, 6), shaped as XDK's accountActivity.* (OpenAPI 2.167).
import type { Command } from 'commander';
import { run } from '../kit.js';

export function register(cmd: Command): void {
  cmd
    .command('subscribe <webhook-id>')
    .description("deliver the signed-in user's account events to a webhook (user token)")
    .option('--check', 'only say whether the user is subscribed (exit 1 when not)')
    .action(run(async (ctx, o, a) => (await import('./subscribe.js')).subscribeRun(ctx, { ...(o as { check?: boolean }), webhookId: a[0]! })));
  cmd
    .command('list <webhook-id>')
    .description('users subscribed to a webhook (app-only bearer)')
    .action(run(async (ctx, _o, a) => (await import('./list.js')).listRun(ctx, { webhookId: a[0]! })));
  cmd
    .command('count')
    .description("the app's subscriptions: all, with direct messages, and provisioned (app-only bearer)")
    .action(run(async (ctx) => (await import('./count.js')).countRun(ctx)));
  cmd
    .command('unsubscribe <webhook-id>')
    .description('stop delivering a user\'s events to a webhook (app-only bearer; asks, --yes when not at a terminal)')
    .option('--user-id <id>', "the user (default: the profile's user)")
    .action(run(async (ctx, o, a) => (await import('./unsubscribe.js')).unsubscribeRun(ctx, { ...(o as { userId?: string }), webhookId: a[0]! })));
}
