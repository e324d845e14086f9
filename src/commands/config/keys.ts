// The settings `xctl config` manages (core/config.ts SETTINGS), and the check of a key.
import { UsageError } from '../../core/errors.js';
import { SETTINGS, type Profile } from '../../core/config.js';

export const SETTING_KEYS = Object.keys(SETTINGS).join(', ');

export function checkKey(key: string): keyof Profile {
  if (!(key in SETTINGS)) {
    const cred = ['api_key', 'api_secret', 'access_token', 'access_token_secret', 'bearer_token'].includes(key);
    throw new UsageError(`unknown setting "${key}"; settings: ${Object.keys(SETTINGS).join(', ')}`, {
      hint: cred ? 'credentials are set with `xctl auth set`' : undefined,
    });
  }
  return key as keyof Profile;
}
