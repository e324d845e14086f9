// `xctl config path`: the store file (on the last line).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { declare } from '../define.js';

export function register(parent: Command, runF = configPath): void {
  declare(parent, {
    name: 'path',
    description: 'print the store file path (on the last line)',
    selectsProfile: false,
    run: (ctx) => runF(ctx),
  });
}

export async function configPath(ctx: Context): Promise<void> {
  ctx.io.out((await ctx.store()).path);
}
