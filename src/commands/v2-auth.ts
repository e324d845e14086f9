// Which credential a v2 command sends (`--auth user|app|oauth2`): the contract says which kinds
// each endpoint takes, so a kind the platform refuses is a usage error before anything is sent.
import type { Context } from '../context.js';
import { UsageError } from '../core/errors.js';
import type { AuthMode } from '../core/http.js';
import { oauth2Requirement } from '../contract/oauth2.js';
import { isOneOf } from '../contract/guards.js';

export type V2Auth = 'user' | 'app' | 'oauth2';

export interface V2Endpoint {
  method: string;
  path: string;
  /** Kinds besides OAuth 2.0 user tokens (those follow the contract's scope table). */
  kinds: ReadonlyArray<'user' | 'app'>;
}

/** The --auth help text of an endpoint: the kinds it takes and the default. */
export function authHelp(e: V2Endpoint): string {
  const kinds = [...e.kinds, ...(oauth2Requirement(e.method, e.path) ? (['oauth2'] as const) : [])];
  const order = (['user', 'oauth2', 'app'] as const).filter((k) => kinds.includes(k));
  const dflt = order
    .map(
      (k) =>
        ({
          user: 'user when an OAuth 1.0a user token is set',
          oauth2: 'oauth2 when an OAuth 2.0 user token is stored',
          app: 'app (bearer)',
        })[k],
    )
    .join(', else ');
  return `credential: ${kinds.join(', ')} (default: ${dflt})`;
}

/**
 * The credential to send: the flag when given (checked against what the endpoint takes), else
 * the first the profile holds of OAuth 1.0a user, OAuth 2.0 user, app bearer (in the endpoint's order).
 */
export async function chooseAuth(ctx: Context, flag: string | undefined, e: V2Endpoint): Promise<AuthMode> {
  const oauth2 = !!oauth2Requirement(e.method, e.path);
  const kinds: V2Auth[] = [...e.kinds, ...(oauth2 ? (['oauth2'] as const) : [])];
  if (flag !== undefined) {
    if (!isOneOf(['user', 'app', 'oauth2'] as const, flag))
      throw new UsageError(`--auth must be ${kinds.join(', ')} (got "${flag}")`, { flag: '--auth' });
    if (!kinds.includes(flag)) {
      const what = { user: 'OAuth 1.0a user tokens', app: 'app-only bearer tokens', oauth2: 'OAuth 2.0 user tokens' }[
        flag
      ];
      throw new UsageError(`--auth ${flag}: the platform does not accept ${what} on ${e.method} ${e.path}`, {
        flag: '--auth',
        hint: `use --auth ${kinds.join(' or ')}`,
      });
    }
    return flag;
  }
  const c = await ctx.credentials();
  const p = await ctx.profile();
  for (const k of kinds) {
    if (k === 'user' && c.access_token && c.access_token_secret) return 'user';
    if (k === 'oauth2' && p?.oauth2_access_token) return 'oauth2';
  }
  return kinds.includes('app') ? 'app' : kinds[0]!;
}
