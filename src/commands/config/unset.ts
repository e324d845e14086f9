// `xctl config unset <key>`
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { declare } from '../define.js';
import { checkKey } from './keys.js';
import { SETTINGS } from '../../core/config.js';
import { redactUrlCredentials } from '../../core/redact.js';

export interface UnsetOptions {
  key: string;
}

export function register(parent: Command, runF = configUnset): void {
  declare(parent, {
    name: 'unset',
    description: 'remove a setting',
    arguments: [['<key>', 'a setting: base_url, account_id, output, max_wait']],
    run: (ctx, _o, [key]) => runF(ctx, { key: key }),
  });
}

/** Removes a setting from the profile and says what it was, and what still sets it. */
export async function configUnset(ctx: Context, o: UnsetOptions): Promise<void> {
  const key = checkKey(o.key);
  const name = await ctx.profileName();
  const was = (await ctx.profile())?.[key];
  if (was === undefined) ctx.io.info(`${key} was not set in profile "${name}": nothing to remove`);
  else {
    await ctx.updateProfile({ [key]: undefined });
    ctx.io.info(`removed ${key} from profile "${name}" (it was ${redactUrlCredentials(String(was))})`);
  }
  const env = SETTINGS[key]!.env;
  if (env && ctx.env[env]) ctx.io.info(`${env} is set in the environment and still applies`);
}
