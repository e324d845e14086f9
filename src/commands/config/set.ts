// `xctl config set <key> <value>`
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../core/errors.js';
import { SETTINGS } from '../../core/config.js';
import { declare } from '../define.js';
import { SETTING_KEYS, checkKey, settingHint } from './keys.js';

export interface SetOptions {
  key: string;
  value: string;
}

export function register(parent: Command, runF = configSet): void {
  declare(parent, {
    name: 'set',
    description: `change a setting (${SETTING_KEYS})`,
    arguments: [
      ['<key>', 'a setting: base_url, account_id, output, max_wait'],
      ['<value>', 'its new value'],
    ],
    run: (ctx, _o, [key, value]) => runF(ctx, { key: key, value: value }),
  });
}

export async function configSet(ctx: Context, o: SetOptions): Promise<void> {
  const key = checkKey(o.key);
  const value = o.value;
  const problem = SETTINGS[key]!.check?.(value);
  if (problem) throw new UsageError(`${key} ${problem} (got "${value}")`, { hint: settingHint(key) });
  if (key === 'base_url') {
    const { checkBaseUrl } = await import('../../core/base-url.js');
    try {
      checkBaseUrl(value, 'base_url');
    } catch (e) {
      if (e instanceof UsageError) e.hint ??= `${settingHint(key)}; https for any host but loopback`;
      throw e;
    }
  }
  await ctx.updateProfile({ [key]: value });
  ctx.io.info(`${key} = ${value} (profile "${await ctx.profileName()}")`);
}
