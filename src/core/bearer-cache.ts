// Which cached app-only bearer belongs to the app in use: the one cached for its API key (a
// bearer cached before bearer_key was recorded is taken as the profile's own).
import type { Profile } from './config.js';

export function cachedBearer(p: Profile | undefined, apiKey: string | undefined): string | undefined {
  if (!p?.bearer_token) return undefined;
  return !p.bearer_key || p.bearer_key === apiKey ? p.bearer_token : undefined;
}
