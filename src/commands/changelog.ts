// `xctl changelog`: the platform change history (docs/contract.md, credentials section 9), offline.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../core/errors.js';
import { parseIsoTime } from '../contract/time.js';
import { printList } from '../core/output.js';
import { withBounds } from './changelog-data.js';
import { declareOn } from './define.js';

export interface ChangelogOptions {
  since?: string;
  grep?: string;
}

export function register(cmd: Command, _operands?: string[], runF = changelog): void {
  declareOn(cmd, {
    description: 'the platform change history, newest first (deprecations, retirements, new endpoints)',
    options: [
      ['--since <date>', 'only changes known to be on or after this date (YYYY-MM-DD)'],
      ['--grep <word>', 'only changes mentioning this word (case-insensitive)'],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

export async function changelog(ctx: Context, opts: ChangelogOptions): Promise<void> {
  let since: string | undefined;
  if (opts.since !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(opts.since) || parseIsoTime(opts.since, { loose: true }) === undefined) {
      throw new UsageError(`--since must be a date YYYY-MM-DD (got "${opts.since}")`, { flag: '--since' });
    }
    since = opts.since;
  }
  if (opts.grep !== undefined && !opts.grep.trim()) throw new UsageError('--grep needs a word', { flag: '--grep' });
  const word = opts.grep?.toLowerCase();
  const rows = withBounds()
    .filter((e) => {
      if (since) {
        // Undated entries count only when their lower bound already proves them newer.
        const known = e.date ?? e.after;
        if (!known || known < since) return false;
      }
      if (word && !`${e.change} ${e.detail}`.toLowerCase().includes(word)) return false;
      return true;
    })
    .map((e) => ({ date: e.date ?? (e.after ? `after ${e.after}` : 'undated'), change: e.change, detail: e.detail }));
  await printList(ctx.io, await ctx.output(), rows, { columns: ['date', 'change', 'detail'] });
}
