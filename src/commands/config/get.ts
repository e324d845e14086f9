// `xctl config get <key>`
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { declare } from '../define.js';
import { SETTING_KEYS, checkKey } from './keys.js';

export interface GetOptions {
  key: string;
}

export function register(parent: Command, runF = configGet): void {
  declare(parent, {
    name: 'get',
    description: `print a setting (${SETTING_KEYS})`,
    arguments: [['<key>', 'a setting: base_url, account_id, output, max_wait']],
    run: (ctx, _o, [key]) => runF(ctx, { key: key }),
  });
}

export async function configGet(ctx: Context, o: GetOptions): Promise<void> {
  const key = checkKey(o.key);
  const v = (await ctx.profile())?.[key];
  if (v === undefined) throw new UsageError(`"${key}" is not set in profile "${await ctx.profileName()}"`);
  ctx.io.out(String(v));
}
