// `xctl config path`: the store file (on the last line).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
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
  const store = await ctx.store();
  // HOME unset and no folder named: the path would be the passwd entry's, which xctl never uses.
  if (store.unnamed)
    throw new UsageError('HOME is not set and no folder was named for the profile store: there is no store file', {
      hint: 'set XCTL_CONFIG_DIR (or HOME) to the folder to keep it in',
    });
  ctx.io.out(store.path);
}
