import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { AuthError, UsageError } from '../../core/errors.js';
import { declare } from '../define.js';

export interface AuthTokenOptions {
  type?: string;
  secret?: boolean;
}

export function register(parent: Command, runF = authToken): void {
  declare(parent, {
    name: 'token',
    description:
      'print a credential for scripts (the user access token, the app bearer, or the OAuth 2.0 access token, refreshed first if due)',
    options: [
      ['--type <type>', 'user, app or oauth2', 'user'],
      ['--secret', 'with --type user: print the access token secret instead'],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

/** Prints one credential on stdout, for `$(xctl auth token)` in scripts. The only command that prints a secret. */
export async function authToken(ctx: Context, opts: AuthTokenOptions): Promise<void> {
  const type = opts.type ?? 'user';
  if (type !== 'user' && type !== 'app' && type !== 'oauth2')
    throw new UsageError(`--type must be user, app or oauth2 (got "${type}")`, { flag: '--type' });
  if (type === 'oauth2') {
    if (opts.secret) throw new UsageError('--secret goes with --type user', { flag: '--secret' });
    // Refreshed first when due, so a script gets a token that works for a while.
    ctx.io.out(await ctx.oauth2AccessToken());
    return;
  }
  if (type === 'app') {
    if (opts.secret) throw new UsageError('--secret goes with --type user', { flag: '--secret' });
    ctx.io.out(await ctx.bearer());
    return;
  }
  const c = await ctx.credentials();
  const v = opts.secret ? c.access_token_secret : c.access_token;
  if (!v)
    throw new AuthError(`no user access token${opts.secret ? ' secret' : ''} is set in profile "${c.profile}"`, {
      hint: 'run `xctl auth login`',
    });
  ctx.io.out(v);
}
