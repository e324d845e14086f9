// `xctl auth profiles list`: every profile, its key masked.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { mask } from '../../../core/io.js';
import { printList } from '../../../core/output.js';
import { declare } from '../../define.js';

export function register(parent: Command, runF = profilesList): void {
  declare(parent, {
    name: 'list',
    description: 'list profiles',
    selectsProfile: false,
    run: (ctx) => runF(ctx),
  });
}

export async function profilesList(ctx: Context): Promise<void> {
  const store = await ctx.store();
  const rows = Object.entries(store.profiles()).map(([name, p]) => ({
    name,
    default: name === store.defaultProfile,
    api_key: mask(p.api_key),
    user: p.screen_name ? `@${p.screen_name}` : p.access_token ? '(token set)' : '',
    base_url: p.base_url ?? '',
  }));
  await printList(ctx.io, await ctx.output(), rows, { columns: ['name', 'default', 'api_key', 'user', 'base_url'] });
}
