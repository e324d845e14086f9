import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { checkProfileName } from '../../core/config.js';
import { mask } from '../../core/io.js';
import { printList } from '../../core/output.js';

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

export async function profilesUse(ctx: Context, _opts: unknown, args: string[]): Promise<void> {
  const name = checkProfileName(args[0]!);
  const store = await ctx.store();
  if (!(name in store.profiles())) {
    throw new UsageError(`no profile named "${name}"`, { hint: `create it with \`xctl --profile ${name} auth set ...\`; see \`xctl auth profiles list\`` });
  }
  store.setDefaultProfile(name);
  ctx.io.info(`default profile is now "${name}"`);
}

export async function profilesRemove(ctx: Context, _opts: unknown, args: string[]): Promise<void> {
  const name = checkProfileName(args[0]!);
  const store = await ctx.store();
  if (!(name in store.profiles())) throw new UsageError(`no profile named "${name}"`);
  if (!(await ctx.confirm(`remove profile "${name}" and its credentials?`))) return;
  store.removeProfile(name);
  ctx.io.info(`removed profile "${name}"`);
}
