// `xctl webhooks replay <id> --from T [--to T]`: re-deliver the events of a window (24 h back at most).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { parseIsoTime, parseRelativeTime } from '../../contract/time.js';
import { WEBHOOK_ENDPOINTS as E, parseReplayDate, toReplayDate } from '../../contract/webhooks.js';
import { checkInput } from '../../core/check-input.js';
import { declare } from '../define.js';
import { DRY_RUN_OPTION, dryRunDone, printRequest } from '../dry-run.js';
import { checkWebhookId } from './checks.js';

export interface ReplayOptions {
  id: string;
  from?: string;
  to?: string;
  dryRun?: boolean;
}

export function register(parent: Command, runF = webhooksReplay): void {
  declare(parent, {
    name: 'replay',
    description: 're-deliver the events of a window (at most 24 hours back)',
    arguments: [['<id>', "the webhook's id (`xctl webhooks list`)"]],
    options: [
      ['--from <time>', 'window start: ISO time, yyyymmddhhmm (UTC), or now-2h'],
      ['--to <time>', 'window end, inclusive (default: now)'],
      DRY_RUN_OPTION,
    ],
    run: (ctx, o, [id]) => runF(ctx, { ...o, id }),
  });
}

/** ISO 8601 or yyyymmddhhmm (UTC) to epoch ms. */
export function parseReplayTime(v: string, flag: string, nowMs: number): number {
  const t = parseReplayDate(v) ?? parseIsoTime(v) ?? parseRelativeTime(v, nowMs);
  if (t === undefined)
    throw new UsageError(
      `${flag} must be an ISO time (2026-01-15T12:00Z), yyyymmddhhmm in UTC or now-2h (got "${v}")`,
      {
        flag,
      },
    );
  return t;
}

/** POST /2/webhooks/replay */
export async function webhooksReplay(ctx: Context, o: ReplayOptions): Promise<void> {
  const id = checkWebhookId(o.id);
  const now = ctx.clock.now();
  const from = o.from === undefined ? undefined : parseReplayTime(o.from, '--from', now);
  const to = o.to ? parseReplayTime(o.to, '--to', now) : now;
  // A --to up to a minute ahead of this machine's clock is taken as now (clock skew).
  const floorNow = now - (now % 60_000);
  const body = {
    webhook_id: id,
    from_date: from === undefined ? undefined : toReplayDate(from),
    to_date: toReplayDate(to <= now + 60_000 ? Math.min(to, floorNow) : to),
  };
  checkInput(E.replay, { body }, {}, { now });
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
