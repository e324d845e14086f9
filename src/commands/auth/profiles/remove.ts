// `xctl auth profiles remove <name>`: delete a profile and its credentials (asks first).
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../core/errors.js';
import { checkProfileName } from '../../../core/config.js';
import { declare } from '../../define.js';
import { didYouMean } from '../../../core/suggest.js';

export interface RemoveOptions {
  name: string;
}

export function register(parent: Command, runF = profilesRemove): void {
  declare(parent, {
    name: 'remove',
    description: 'delete a profile and its credentials',
    arguments: [['<name>', 'the profile to remove (`xctl auth profiles list`)']],
    selectsProfile: false,
    run: (ctx, _o, [name]) => runF(ctx, { name: name }),
  });
}

export async function profilesRemove(ctx: Context, o: RemoveOptions): Promise<void> {
  const name = checkProfileName(o.name);
  const store = await ctx.store();
  if (!(name in store.profiles()))
    throw new UsageError(`no profile named "${name}"${didYouMean(name, Object.keys(store.profiles()))}`);
  if (!(await ctx.confirm(`remove profile "${name}" and its credentials?`))) return ctx.io.info('nothing removed');
  store.removeProfile(name);
  ctx.io.info(`removed profile "${name}"`);
}
