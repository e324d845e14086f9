// `xctl auth logout`: revoke the user token remotely, then forget it locally (always).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { XctlError } from '../../core/errors.js';
import { V1Code, hasCode } from '../../contract/service-errors.js';
import { invalidateUserToken } from './oauth-flow.js';
import { define } from '../define.js';

export interface AuthLogoutOptions {
  /** commander's negation of --local-only is not used; this is the flag itself. */
  localOnly?: boolean;
}

export function register(parent: Command, runF = authLogout): void {
  parent
    .command('logout')
    .description('revoke the user token at the service (POST /1.1/oauth/invalidate_token), then remove it from the profile')
    .option('--local-only', 'only remove it from the profile; do not contact the service')
    .action(define<AuthLogoutOptions>((ctx, o) => runF(ctx, o)));
}

/** Logs out: POST /1.1/oauth/invalidate_token (unless --local-only), then forgets the token. */
export async function authLogout(ctx: Context, opts: AuthLogoutOptions): Promise<void> {
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
      const err = e as XctlError;
      // 401 code 89: the token is already invalid, which is what logging out wants.
      if (hasCode(err, V1Code.InvalidOrExpiredToken)) io.info(`the token of ${who} was already invalid at the service`);
      else failure = err;
    }
  }
  if (c.source.access_token === 'profile' || c.source.access_token_secret === 'profile') {
    await ctx.updateProfile({ access_token: undefined, access_token_secret: undefined, user_id: undefined, screen_name: undefined });
    io.info(`removed the user token from profile "${profile}"${opts.localOnly ? ' (not revoked at the service: --local-only)' : ''}`);
  }
  if (c.source.access_token === 'env') io.warn('XCTL_ACCESS_TOKEN is set in the environment: unset it (and XCTL_ACCESS_TOKEN_SECRET), xctl cannot forget it for you');
  if (failure) {
    throw new XctlError(`the token was removed locally, but revoking it at the service failed: ${failure.message}`, {
      status: failure.status,
      code: failure.code,
      hint: 'the token may still be valid: revoke the app\'s access in the account\'s connected-apps settings',
    });
  }
}
