// The settings `xctl config` manages (core/config.ts SETTINGS), and the check of a key.
import { UsageError } from '../../core/errors.js';
import { SETTINGS, type Profile } from '../../core/config.js';
import { didYouMean } from '../../core/suggest.js';

export const SETTING_KEYS = Object.keys(SETTINGS).join(', ');

/** Every setting with what it is for: the hint of a wrong key or value. */
export function settingsHelp(): string {
  return Object.entries(SETTINGS)
    .map(([k, v]) => `${k} (${v.describe})`)
    .join('; ');
}

/** "account_id: default ads account id ..., e.g. `xctl config set account_id 18ce54d4x5t`" */
export function settingHint(key: string): string {
  const s = SETTINGS[key]!;
  return `${key}: ${s.describe}, e.g. \`xctl config set ${key} ${s.example}\``;
}

export function checkKey(key: string): keyof Profile {
  if (!Object.hasOwn(SETTINGS, key)) {
    const cred = [
      'api_key',
      'api_secret',
      'access_token',
      'access_token_secret',
      'bearer_token',
      'client_id',
      'client_secret',
    ].includes(key);
    throw new UsageError(
      `unknown setting "${key}"${didYouMean(key, Object.keys(SETTINGS))}; settings: ${Object.keys(SETTINGS).join(', ')}`,
      {
        hint: cred ? 'credentials are set with `xctl auth set` (secrets on stdin)' : `the settings: ${settingsHelp()}`,
      },
    );
  }
  return key as keyof Profile;
}
