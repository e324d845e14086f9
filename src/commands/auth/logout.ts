// `xctl auth logout`: revoke the user token remotely, then forget it locally (always).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { XctlError, errnoCode, errorMessage } from '../../core/errors.js';
import { V1Code, hasCode } from '../../contract/service-errors.js';
import { invalidateUserToken } from './oauth-flow.js';
import { declare } from '../define.js';

export interface AuthLogoutOptions {
  oauth2?: boolean;
  /** commander's negation of --local-only is not used; this is the flag itself. */
  localOnly?: boolean;
}

export function register(parent: Command, runF = authLogout): void {
  declare(parent, {
    name: 'logout',
    description:
      'revoke the user token at the service (POST /1.1/oauth/invalidate_token, or POST /2/oauth2/revoke with --oauth2), then remove it from the profile',
    options: [
      ['--oauth2', 'the OAuth 2.0 user token (both the access and the refresh token) instead of the OAuth 1.0a one'],
      ['--local-only', 'only remove it from the profile; do not contact the service'],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

/** Logs out: POST /1.1/oauth/invalidate_token (unless --local-only), then forgets the token. */
export async function authLogout(ctx: Context, opts: AuthLogoutOptions): Promise<void> {
  if (opts.oauth2) return logoutOAuth2(ctx, opts);
  const io = ctx.io;
  const c = await ctx.credentials();
  const profile = await ctx.profileName();
  if (!c.access_token) {
    io.info(`profile "${profile}" holds no user token: nothing to log out`);
    return;
  }
  const who = c.screen_name ? `@${c.screen_name}` : 'the user';
  let failure: XctlError | undefined;
  if (!opts.localOnly) {
    try {
      await invalidateUserToken(await ctx.http());
      io.info(`revoked the token of ${who} at the service`);
    } catch (e) {
      const err = asXctlError(e);
      // 401 code 89: the token is already invalid, which is what logging out wants.
      if (hasCode(err, V1Code.InvalidOrExpiredToken)) io.info(`the token of ${who} was already invalid at the service`);
      else failure = err;
    }
  }
  if (c.source.access_token === 'profile' || c.source.access_token_secret === 'profile') {
    await ctx.updateProfile({
      access_token: undefined,
      access_token_secret: undefined,
      user_id: undefined,
      screen_name: undefined,
    });
    io.info(
      `removed the user token from profile "${profile}"${opts.localOnly ? ' (not revoked at the service: --local-only)' : ''}`,
    );
  }
  if (c.source.access_token === 'env')
    io.warn(
      'XCTL_ACCESS_TOKEN is set in the environment: unset it (and XCTL_ACCESS_TOKEN_SECRET), xctl cannot forget it for you',
    );
  if (failure) {
    throw new XctlError(`the token was removed locally, but revoking it at the service failed: ${failure.message}`, {
      status: failure.status,
      code: failure.code,
      hint: "the token may still be valid: revoke the app's access in the account's connected-apps settings",
    });
  }
}

/**
 * Logs out of OAuth 2.0: POST /2/oauth2/revoke for the refresh token, then the access token (each
 * names only itself), then forgets both. Forgotten even when revoking fails, and the user is told.
 */
async function logoutOAuth2(ctx: Context, opts: AuthLogoutOptions): Promise<void> {
  const io = ctx.io;
  const profile = await ctx.profileName();
  const p = await ctx.profile();
  if (!p?.oauth2_access_token) {
    io.info(`profile "${profile}" holds no OAuth 2.0 user token: nothing to log out`);
    return;
  }
  io.addSecret(p.oauth2_access_token);
  io.addSecret(p.oauth2_refresh_token);
  const who = p.oauth2_screen_name ? `@${p.oauth2_screen_name}` : 'the user';
  let failure: XctlError | undefined;
  if (!opts.localOnly) {
    const { revokeToken } = await import('../../core/oauth2.js');
    const c = await ctx.credentials();
    const clientId = p.oauth2_client_id ?? c.client_id;
    const client = { clientId: clientId ?? '', clientSecret: clientId === c.client_id ? c.client_secret : undefined };
    try {
      if (!clientId)
        throw new XctlError('no client id is known for the token', { hint: 'run `xctl auth set --client-id ID`' });
      const http = await ctx.http();
      // The refresh token first: it is the one that could mint new access tokens.
      if (p.oauth2_refresh_token) await revokeToken(http, client, p.oauth2_refresh_token, 'refresh_token');
      await revokeToken(http, client, p.oauth2_access_token, 'access_token');
      io.info(`revoked the OAuth 2.0 token${p.oauth2_refresh_token ? 's' : ''} of ${who} at the service`);
    } catch (e) {
      failure = asXctlError(e);
    }
  }
  const { OAUTH2_TOKEN_FIELDS } = await import('../../core/config.js');
  const patch: Partial<Record<(typeof OAUTH2_TOKEN_FIELDS)[number], undefined>> = {};
  for (const k of OAUTH2_TOKEN_FIELDS) patch[k] = undefined;
  await ctx.updateProfile(patch);
  io.info(
    `removed the OAuth 2.0 token from profile "${profile}"${opts.localOnly ? ' (not revoked at the service: --local-only)' : ''}`,
  );
  if (failure) {
    throw new XctlError(
      `the OAuth 2.0 token was removed locally, but revoking it at the service failed: ${failure.message}`,
      {
        status: failure.status,
        code: failure.code,
        hint: "the token may still be valid until it expires (2 hours; the refresh token longer): revoke the app's access in the account's connected-apps settings",
      },
    );
  }
}

/** A revocation's failure as an XctlError (its status and code kept), whatever was thrown. */
function asXctlError(e: unknown): XctlError {
  return e instanceof XctlError ? e : new XctlError(errorMessage(e), { code: errnoCode(e) });
}
