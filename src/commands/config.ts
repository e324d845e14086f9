// `xctl config`: settings kept in the profile (base_url, account_id, output, max_wait).
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../core/errors.js';
import { SETTINGS, type Profile } from '../core/config.js';
import { printList } from '../core/output.js';
import { run } from './kit.js';

export function register(cmd: Command): void {
  const keys = Object.keys(SETTINGS).join(', ');
  cmd.command('get <key>').description(`print a setting (${keys})`).action(run(configGet));
  cmd.command('set <key> <value>').description(`change a setting (${keys})`).action(run(configSet));
  cmd.command('unset <key>').description('remove a setting').action(run(configUnset));
  cmd.command('list').description('every setting of the profile').action(run(configList));
  cmd.command('path').description('print the store file path (on the last line)').action(run(configPath));
}

function checkKey(key: string): keyof Profile {
  if (!(key in SETTINGS)) {
    const cred = ['api_key', 'api_secret', 'access_token', 'access_token_secret', 'bearer_token'].includes(key);
    throw new UsageError(`unknown setting "${key}"; settings: ${Object.keys(SETTINGS).join(', ')}`, {
      hint: cred ? 'credentials are set with `xctl auth set`' : undefined,
    });
  }
  return key as keyof Profile;
}

export async function configGet(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const key = checkKey(args[0]!);
  const v = (await ctx.profile())?.[key];
  if (v === undefined) throw new UsageError(`"${key}" is not set in profile "${await ctx.profileName()}"`);
  ctx.io.out(String(v));
}

export async function configSet(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const key = checkKey(args[0]!);
  const value = args[1]!;
  const problem = SETTINGS[key]!.check?.(value);
  if (problem) throw new UsageError(`${key} ${problem} (got "${value}")`);
  if (key === 'base_url') {
    const { checkBaseUrl } = await import('../contract/hosts.js');
    checkBaseUrl(value, 'base_url');
  }
  await ctx.updateProfile({ [key]: value });
  ctx.io.info(`${key} = ${value} (profile "${await ctx.profileName()}")`);
}

export async function configUnset(ctx: Context, _o: unknown, args: string[]): Promise<void> {
  const key = checkKey(args[0]!);
  await ctx.updateProfile({ [key]: undefined });
}

export async function configList(ctx: Context): Promise<void> {
  const p = (await ctx.profile()) ?? {};
  const rows = Object.keys(SETTINGS).map((key) => ({ key, value: p[key as keyof Profile] ?? '', describe: SETTINGS[key]!.describe }));
  await printList(ctx.io, await ctx.output(), rows, { columns: ['key', 'value', 'describe'] });
}

export async function configPath(ctx: Context): Promise<void> {
  ctx.io.out((await ctx.store()).path);
}
