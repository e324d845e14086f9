// `xctl webhooks replay <id> --from T [--to T]`: re-deliver the events of a window (24 h back at most).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { parseIsoTime } from '../../contract/time.js';
import { REPLAY_WINDOW_MS, WEBHOOK_ENDPOINTS as E, parseReplayDate, toReplayDate } from '../../contract/webhooks.js';
import { define } from '../define.js';
import { addDryRun, dryRunDone, printRequest } from '../dry-run.js';
import { checkWebhookId } from './checks.js';

export interface ReplayOptions {
  id: string;
  from?: string;
  to?: string;
  dryRun?: boolean;
}

export function register(parent: Command, runF = webhooksReplay): void {
  const cmd = parent
    .command('replay')
    .argument('<id>', "the webhook's id (`xctl webhooks list`)")
    .description('re-deliver the events of a window (at most 24 hours back)')
    .option('--from <time>', 'window start: ISO time or yyyymmddhhmm (UTC)')
    .option('--to <time>', 'window end, inclusive (default: now)');
  addDryRun(cmd).action(define<Omit<ReplayOptions, 'id'>>((ctx, o, [id]) => runF(ctx, { ...o, id: id! })));
}

/** ISO 8601 or yyyymmddhhmm (UTC) to epoch ms. */
export function parseReplayTime(v: string, flag: string): number {
  const t = parseReplayDate(v) ?? parseIsoTime(v);
  if (t === undefined)
    throw new UsageError(`${flag} must be an ISO time (2026-01-15T12:00Z) or yyyymmddhhmm in UTC (got "${v}")`, {
      flag,
    });
  return t;
}

/** POST /2/webhooks/replay */
export async function webhooksReplay(ctx: Context, o: ReplayOptions): Promise<void> {
  const id = checkWebhookId(o.id);
  if (!o.from) throw new UsageError('--from is required', { flag: '--from' });
  const now = ctx.clock.now();
  const from = parseReplayTime(o.from, '--from');
  const to = o.to ? parseReplayTime(o.to, '--to') : now;
  const floorNow = now - (now % 60_000);
  if (to < from) throw new UsageError('--to must not be before --from', { flag: '--to' });
  if (from < floorNow - REPLAY_WINDOW_MS)
    throw new UsageError('--from must be within the past 24 hours (replay window)', { flag: '--from' });
  if (to > now + 60_000) throw new UsageError('--to must not be in the future', { flag: '--to' });
  const body = { webhook_id: id, from_date: toReplayDate(from), to_date: toReplayDate(Math.min(to, floorNow)) };
  if (o.dryRun) {
    await printRequest(ctx, { method: E.replay.method, path: E.replay.path, json: body });
    return dryRunDone(ctx);
  }
  const http = await ctx.http();
  const res = await http.request<{ data: Record<string, unknown> }>({
    method: E.replay.method,
    path: E.replay.path,
    auth: 'app',
    json: body,
  });
  const { printOne } = await import('../../core/output.js');
  await printOne(ctx.io, await ctx.output(), {
    ...res.data.data,
    webhook_id: id,
    from_date: body.from_date,
    to_date: body.to_date,
  });
}
