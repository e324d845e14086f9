// `xctl auth login --oauth2`: authorization code with PKCE (docs/contract.md, notes-2 section 1), with a
// loopback callback or, on machines without a browser, the redirected URL pasted back (--paste).
import type { Context } from '../../context.js';
import { AuthError, UsageError, XctlError } from '../../core/errors.js';
import { printOne } from '../../core/output.js';
import { OAUTH2_TOKEN_FIELDS, type Profile } from '../../core/config.js';
import { DEFAULT_LOGIN_SCOPES, OAUTH2_ENDPOINTS, OFFLINE_SCOPE } from '../../contract/oauth2.js';
import { HOSTS } from '../../contract/hosts.js';
import {
  authorizeUrl,
  checkClientId,
  codeChallenge,
  exchangeCode,
  newState,
  newVerifier,
  parseRedirect,
  parseScopes,
  type OAuth2ClientCreds,
  type RedirectOutcome,
  type OAuth2Token,
} from '../../core/oauth2.js';
import type { AuthLoginOptions, LoginDeps } from './login-common.js';
import { firstLine, promptLine, replacedUserToken } from './login-common.js';
import { startOAuth2CallbackServer, type OAuth2CallbackServer } from './callback-server.js';

/**
 * The platform matches redirect_uri exactly against the app's registered callback URLs, so the
 * port is fixed by default (register http://127.0.0.1:8080/callback); 0 picks a free one, which
 * only a server accepting any loopback port (the sandbox) will take.
 */
export const DEFAULT_OAUTH2_CALLBACK_PORT = 8080;

function fmtDuration(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 1000)}s`;
}

/** Where the consent page is: the web host on the platform; the one base URL of a sandbox or proxy. */
export async function authorizeBase(ctx: Context): Promise<string> {
  const api = await ctx.apiBase();
  return api === HOSTS.api ? HOSTS.web : api;
}

/** The client that logs in: --client-id, else XCTL_CLIENT_ID / the profile; the secret only belongs to the stored id. */
export async function loginClient(ctx: Context, flagId?: string): Promise<OAuth2ClientCreds> {
  const c = await ctx.credentials();
  const clientId = flagId !== undefined ? checkClientId(flagId) : c.client_id;
  if (!clientId) {
    throw new UsageError("logging in with OAuth 2.0 needs the app's OAuth 2.0 Client ID (not the API key)", {
      flag: '--client-id',
      hint: 'pass --client-id ID, run `xctl auth set --client-id ID --client-secret -` (secret for confidential clients), or set XCTL_CLIENT_ID',
    });
  }
  return { clientId, clientSecret: clientId === c.client_id ? c.client_secret : undefined };
}

/** Reads the URL the browser was sent to: a prompt at a terminal, else the first line on stdin. */
async function readPasted(ctx: Context): Promise<string> {
  const io = ctx.io;
  if (io.isStdinTTY) return promptLine(ctx, 'Paste the full URL your browser was sent to: ');
  const line = await firstLine(io.stdin);
  if (!line)
    throw new UsageError('--paste: stdin ended without the redirected URL', {
      flag: '--paste',
      hint: "paste the whole address from the browser's address bar after approving",
    });
  return line;
}

/** Logs in: the browser on GET /i/oauth2/authorize, then POST /2/oauth2/token and GET /2/users/me. */
export async function authLoginOAuth2(
  ctx: Context,
  opts: AuthLoginOptions,
  checked: { port?: number; timeoutMs: number },
  deps: LoginDeps = {},
): Promise<void> {
  checkOAuth2Flags(opts);
  const scopes = opts.scopes !== undefined ? parseScopes(opts.scopes) : [...DEFAULT_LOGIN_SCOPES];
  const client = await loginClient(ctx, opts.clientId);
  const port = checked.port ?? DEFAULT_OAUTH2_CALLBACK_PORT;
  const io = ctx.io;
  const verifier = newVerifier();
  const state = newState();
  let server: OAuth2CallbackServer | undefined;
  const aborter = new AbortController();
  const signal = AbortSignal.any([ctx.signal, aborter.signal]);
  try {
    let redirectUri = `http://127.0.0.1:${port}/callback`;
    if (!opts.paste) {
      try {
        server = await startOAuth2CallbackServer(port, state);
      } catch (e) {
        if (e instanceof UsageError && port === DEFAULT_OAUTH2_CALLBACK_PORT && checked.port === undefined) {
          e.hint = `pass --callback-port N with another port registered as http://127.0.0.1:N/callback for the app, or use --paste`;
        }
        throw e;
      }
      redirectUri = server.url;
    }
    const url = authorizeUrl(await authorizeBase(ctx), {
      clientId: client.clientId,
      redirectUri,
      scopes,
      state,
      challenge: codeChallenge(verifier),
    });
    io.err(`Open this URL in a browser to authorize xctl (OAuth 2.0: ${scopes.join(' ')}):\n\n  ${url}\n`);
    if (!scopes.includes(OFFLINE_SCOPE))
      io.warn(`without ${OFFLINE_SCOPE} there is no refresh token: the token stops working after 2 hours`);
    if (opts.browser !== false && !opts.paste) {
      const openUrl = deps.openUrl ?? (async (u: string) => (await import('open')).default(u, { wait: false }));
      await openUrl(url).catch((e: Error) =>
        io.warn(`could not open a browser (${e.message}); open the URL above yourself`),
      );
    }
    io.info(
      opts.paste
        ? `After approving, the browser goes to ${redirectUri}?... (the page may fail to load: that is expected). ${io.isStdinTTY ? 'Paste' : 'Pipe'} that whole URL here (times out in ${fmtDuration(checked.timeoutMs)}).`
        : `Waiting for the browser to come back to ${redirectUri} (times out in ${fmtDuration(checked.timeoutMs)}; Ctrl-C to cancel)...`,
    );
    const arrived: Promise<RedirectOutcome> = opts.paste
      ? readPasted(ctx).then((u) => parseRedirect(u, state, redirectUri))
      : server!.outcome;
    const code = await authorizationCode(ctx, arrived, checked.timeoutMs, signal);
    const http = await ctx.http();
    const tok = await exchangeCode(http, client, code, redirectUri, verifier, ctx.clock.now());
    io.addSecret(tok.access_token);
    io.addSecret(tok.refresh_token);
    await storeToken(ctx, client.clientId, tok, scopes);
  } finally {
    aborter.abort();
    await server?.close();
  }
}

function checkOAuth2Flags(opts: AuthLoginOptions): void {
  for (const [flag, set] of [
    ['--pin', opts.pin],
    ['--access-level', opts.accessLevel],
    ['--force-login', opts.forceLogin],
    ['--screen-name', opts.screenName],
  ] as const) {
    if (set) throw new UsageError(`${flag} belongs to the OAuth 1.0a login, not --oauth2`, { flag });
  }
  if (!opts.oauth2 && (opts.paste || opts.scopes !== undefined || opts.clientId !== undefined)) {
    const flag = opts.paste ? '--paste' : opts.scopes !== undefined ? '--scopes' : '--client-id';
    throw new UsageError(`${flag} goes with --oauth2`, { flag });
  }
}

/** The code the consent page redirected back with, or the error of a denial or a timeout. */
async function authorizationCode(
  ctx: Context,
  arrived: Promise<RedirectOutcome>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<string> {
  const timedOut = ctx.clock.sleep(timeoutMs, signal).then(() => 'timeout' as const);
  timedOut.catch(() => undefined);
  const waited = await Promise.race([arrived, timedOut]);
  if (waited === 'timeout') {
    throw new XctlError(`no authorization arrived within ${fmtDuration(timeoutMs)}: login cancelled`, {
      hint: 'run `xctl auth login --oauth2` again and approve within the time, or raise --timeout',
    });
  }
  if (waited.kind === 'denied') {
    const why =
      waited.error === 'access_denied'
        ? 'authorization was denied on the consent page'
        : `the consent page answered ${waited.error}${waited.description ? ` (${waited.description})` : ''}`;
    throw new AuthError(`${why}: nothing was stored`, {
      code: waited.error,
      hint:
        waited.error === 'access_denied'
          ? 'run `xctl auth login --oauth2` again and choose Authorize'
          : 'check --scopes and the client id',
    });
  }
  return waited.code;
}

/** The token stored in the profile (with its user, when the scopes let GET /2/users/me answer), and shown. */
async function storeToken(ctx: Context, clientId: string, tok: OAuth2Token, scopes: readonly string[]): Promise<void> {
  const io = ctx.io;
  const http = await ctx.http();
  // Who the token belongs to, when the granted scopes allow asking (GET /2/users/me needs tweet.read users.read).
  let user: { id?: string; username?: string } = {};
  if (tok.scopes.includes('tweet.read') && tok.scopes.includes('users.read')) {
    const me = await http.request<{ data?: { id?: string; username?: string } }>({
      method: OAUTH2_ENDPOINTS.me.method,
      path: OAUTH2_ENDPOINTS.me.path,
      auth: 'none',
      headers: { authorization: `Bearer ${tok.access_token}` },
    });
    user = me.data?.data ?? {};
  }
  const patch: Partial<Profile> = {};
  for (const k of OAUTH2_TOKEN_FIELDS) patch[k] = undefined;
  Object.assign(patch, {
    oauth2_access_token: tok.access_token,
    oauth2_refresh_token: tok.refresh_token,
    oauth2_expires_at: new Date(tok.expires_at).toISOString(),
    oauth2_scopes: tok.scopes.join(' '),
    oauth2_client_id: clientId,
    oauth2_user_id: user.id,
    oauth2_screen_name: user.username,
  });
  const before = await ctx.profile();
  const replaced =
    before &&
    replacedUserToken(
      {
        access_token: before.oauth2_access_token,
        user_id: before.oauth2_user_id,
        screen_name: before.oauth2_screen_name,
      },
      tok.access_token,
      user.id,
    );
  if (replaced) io.info(`replacing the OAuth 2.0 token of ${replaced} in profile "${await ctx.profileName()}"`);
  await ctx.updateProfile(patch);
  const profile = await ctx.profileName();
  io.info(
    `Logged in with OAuth 2.0${user.username ? ` as @${user.username} (${user.id})` : ''}; the token is stored in profile "${profile}".`,
  );
  const missing = scopes.filter((s) => !tok.scopes.includes(s));
  if (missing.length && tok.scopes.length)
    io.warn(`the service granted fewer scopes than asked: not ${missing.join(' ')}`);
  await printOne(io, await ctx.output(), {
    profile,
    user_id: user.id ?? '',
    screen_name: user.username ?? '',
    scopes: tok.scopes.join(' '),
    expires_at: new Date(tok.expires_at).toISOString(),
    refresh: tok.refresh_token ? 'automatic' : 'none (no offline.access)',
  });
}
