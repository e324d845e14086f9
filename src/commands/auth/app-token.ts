// `xctl auth app-token`: the OAuth 2.0 app-only bearer — obtain once, cache (shown masked); or revoke.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { AuthError, XctlError } from '../../core/errors.js';
import { mask } from '../../core/io.js';
import { V1Code, hasCode } from '../../contract/service-errors.js';
import { invalidateBearer } from './oauth-flow.js';
import { declare } from '../define.js';

export interface AuthAppTokenOptions {
  invalidate?: boolean;
}

/** 403 code 99 from /oauth2/token means wrong key/secret or asking too often; say both. */
function explain99(e: unknown): never {
  if (e instanceof XctlError && hasCode(e, V1Code.TokenRequestedTooOften)) {
    throw new AuthError(`the token endpoint refused to issue a bearer token (HTTP 403, code 99)`, {
      status: 403,
      code: V1Code.TokenRequestedTooOften,
      hint: 'cache your token: the service keeps one bearer per app and punishes asking too often; xctl caches it in the profile, so wait a minute and run `xctl auth app-token` once; if it persists, check the API key and secret (`xctl auth status`)',
    });
  }
  throw e;
}

export function register(parent: Command, runF = authAppToken): void {
  declare(parent, {
    name: 'app-token',
    description:
      'obtain the app-only bearer token once (POST /oauth2/token) and cache it; shown masked (`auth token --type app` prints it)',
    options: [['--invalidate', 'revoke it at the service (signed as the app owner) and forget it']],
    run: (ctx, o) => runF(ctx, o),
  });
}

/** Obtains and caches the bearer (POST /oauth2/token once, then the cache), or revokes it (POST /oauth2/invalidate_token). */
export async function authAppToken(ctx: Context, opts: AuthAppTokenOptions): Promise<void> {
  const io = ctx.io;
  const profile = await ctx.profileName();
  const before = await ctx.credentials();
  if (!opts.invalidate) {
    // Only `auth token` prints a secret (DESIGN: credentials): this one shows it masked.
    const token = await ctx.bearer().catch(explain99);
    const shown = `${mask(token)}; print it with \`xctl auth token --type app\``;
    if (before.source.bearer_token === 'env') io.info(`bearer from XCTL_BEARER_TOKEN (${shown})`);
    else if (before.bearer_token) io.info(`bearer cached in profile "${profile}" (${shown})`);
    else io.info(`obtained the app's bearer token and cached it in profile "${profile}" (${shown})`);
    return;
  }
  // Revoke the cached one; with none cached, ask for the app's outstanding one (the service
  // returns the same token) so that it can be revoked.
  const token = before.bearer_token ?? (await ctx.bearer().catch(explain99));
  try {
    await invalidateBearer(await ctx.http(), token);
  } catch (e) {
    if (e instanceof XctlError && (e.status === 403 || e.status === 401)) {
      e.hint =
        "the bearer is revoked with OAuth 1.0a signed as the application owner: the profile's user token must belong to the app's owner (`xctl auth login` as the owner)";
    }
    throw e;
  }
  const stored = await ctx.profile();
  const forgot = stored?.bearer_token === token;
  if (forgot) await ctx.updateProfile({ bearer_token: undefined, bearer_key: undefined });
  io.info(
    `revoked the app's bearer token and forgot it${forgot ? ` (profile "${profile}")` : ''}; the next \`xctl auth app-token\` obtains a new one`,
  );
  if (before.source.bearer_token === 'env') io.warn('XCTL_BEARER_TOKEN still holds the revoked token: unset it');
}
