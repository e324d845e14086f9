// `xctl config path`: the store file (on the last line).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { define } from '../define.js';

export function register(parent: Command, runF = configPath): void {
  parent
    .command('path')
    .description('print the store file path (on the last line)')
    .action(define((ctx) => runF(ctx), { selectsProfile: false }));
}

export async function configPath(ctx: Context): Promise<void> {
  ctx.io.out((await ctx.store()).path);
}
