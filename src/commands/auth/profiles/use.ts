// `xctl auth profiles use <name>`: make a profile the default.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../core/errors.js';
import { checkProfileName } from '../../../core/config.js';
import { declare } from '../../define.js';
import { didYouMean } from '../../../core/suggest.js';

export interface UseOptions {
  name: string;
}

export function register(parent: Command, runF = profilesUse): void {
  declare(parent, {
    name: 'use',
    description: 'make a profile the default',
    arguments: [['<name>', 'the profile that becomes the default']],
    selectsProfile: false,
    run: (ctx, _o, [name]) => runF(ctx, { name: name }),
  });
}

export async function profilesUse(ctx: Context, o: UseOptions): Promise<void> {
  const name = checkProfileName(o.name);
  const store = await ctx.store();
  if (!(name in store.profiles())) {
    throw new UsageError(`no profile named "${name}"${didYouMean(name, Object.keys(store.profiles()))}`, {
      hint: `create it with \`xctl --profile ${name} auth set ...\`; see \`xctl auth profiles list\``,
    });
  }
  store.setDefaultProfile(name);
  ctx.io.info(`default profile is now "${name}"`);
}
