// `xctl config unset <key>`
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { define } from '../define.js';
import { checkKey } from './keys.js';

export interface UnsetOptions {
  key: string;
}

export function register(parent: Command, runF = configUnset): void {
  parent
    .command('unset').argument('<key>', 'a setting: base_url, account_id, output, max_wait')
    .description('remove a setting')
    .action(define((ctx, _o, [key]) => runF(ctx, { key: key! })));
}

export async function configUnset(ctx: Context, o: UnsetOptions): Promise<void> {
  const key = checkKey(o.key);
  await ctx.updateProfile({ [key]: undefined });
}
