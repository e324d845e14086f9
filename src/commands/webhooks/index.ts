// `xctl webhooks ...`: register, list, delete, validate and replay v2 webhooks; compute and check
// the CRC and delivery signatures; run a local receiver.
import type { Command } from 'commander';
import { run } from '../kit.js';
import { webhooksCreate, webhooksCrc, webhooksDelete, webhooksList, webhooksReplay, webhooksValidate, webhooksVerify } from './manage.js';

export function register(cmd: Command): void {
  cmd.command('create <url>').description('register a webhook (https, public host, no port); the service runs a challenge check').action(run(webhooksCreate));
  cmd.command('list').description('list the webhooks with their valid/invalid status').action(run(webhooksList));
  cmd.command('delete <id>').description('delete a webhook (asks; --yes when not at a terminal)').action(run(webhooksDelete));
  cmd.command('validate <id>').description('run a challenge check now and re-enable the webhook when it passes (exit 1 when invalid)').action(run(webhooksValidate));
  cmd
    .command('replay <id>')
    .description('re-deliver the events of a window (at most 24 hours back)')
    .option('--from <time>', 'window start: ISO time or yyyymmddhhmm (UTC)')
    .option('--to <time>', 'window end, inclusive (default: now)')
    .action(run(webhooksReplay));
  cmd.command('crc <crc_token>').description('print the challenge answer {"response_token":"sha256=..."} for a token').action(run(webhooksCrc));
  cmd
    .command('verify')
    .description('check a delivery signature against the raw body: exit 0 valid, 1 invalid')
    .option('--signature <value>', 'the x-service-webhooks-signature (or x-twitter-webhooks-signature) header value')
    .option('--body <file>', 'the raw body: @file, file, or - for stdin', '-')
    .action(run(webhooksVerify));
  cmd
    .command('listen')
    .description('run a local receiver: answers CRC checks, verifies signatures, prints each event')
    .option('--port <n>', 'port (0 picks a free one)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--path <path>', 'URL path of the receiver', '/webhooks')
    .option('--forward-to <url>', 'POST each verified delivery (raw body and headers) to this URL')
    .option('--public-url <url>', 'the public URL reaching this listener (registered with --register)')
    .option('--register', 'register the webhook on start (the local URL on a loopback sandbox)')
    .action(run(async (ctx, o) => (await import('./listen.js')).webhooksListen(ctx, o)));
}
