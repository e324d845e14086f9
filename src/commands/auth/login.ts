// `xctl auth login`: the three-legged OAuth 1.0a flow with a loopback callback, or a PIN (oob).
import type { Command } from 'commander';
import fs from 'node:fs';
import type { Context } from '../../context.js';
import { AuthError, UsageError, XctlError } from '../../core/errors.js';
import { parseDuration } from '../../contract/time.js';
import { ACCESS_TYPE_PARAM } from '../../contract/oauth.js';
import { checkInput } from '../../core/check-input.js';
import { printOne } from '../../core/output.js';
import { accessToken, authorizeUrl, requestToken, type UserToken } from './oauth-flow.js';
import { startCallbackServer, type CallbackServer } from './callback-server.js';
import { declare } from '../define.js';
import {
  checkAdsAccount,
  firstLine,
  promptLine,
  replacedUserToken,
  type AuthLoginOptions,
  type LoginDeps,
} from './login-common.js';

export { firstLine, promptLine, replacedUserToken, type AuthLoginOptions, type LoginDeps };

export const DEFAULT_LOGIN_TIMEOUT = '5m';

interface Checked {
  port: number;
  accessLevel?: 'read' | 'write';
  screenName?: string;
  timeoutMs: number;
}

/** Every flag rule, before anything is sent or bound. */
export function checkLoginOptions(opts: AuthLoginOptions): Checked {
  let port = 0;
  if (opts.callbackPort !== undefined) {
    if (opts.pin)
      throw new UsageError('--callback-port and --pin exclude each other (PIN mode has no callback)', {
        flag: '--callback-port',
      });
    if (opts.paste)
      throw new UsageError('--callback-port and --paste exclude each other (--paste has no callback server)', {
        flag: '--callback-port',
      });
    // OAuth 2.0 defaults to a fixed port (redirect URIs match exactly), so 0 asks for a free one there.
    const min = opts.oauth2 ? 0 : 1;
    if (!/^\d{1,5}$/.test(opts.callbackPort) || Number(opts.callbackPort) < min || Number(opts.callbackPort) > 65535) {
      throw new UsageError(
        `--callback-port must be a port number from 1 to 65535${opts.oauth2 ? ', or 0 for a free one' : ''} (got "${opts.callbackPort}")`,
        { flag: '--callback-port' },
      );
    }
    port = Number(opts.callbackPort);
  }
  const level = opts.accessLevel;
  // POST /oauth/request_token's x_auth_access_type, as the contract has it.
  checkInput({ params: [{ ...ACCESS_TYPE_PARAM, flag: '--access-level' }] }, { query: { x_auth_access_type: level } });
  let screenName: string | undefined;
  if (opts.screenName !== undefined) {
    screenName = opts.screenName.replace(/^@/, '');
    if (!/^\w{1,15}$/.test(screenName))
      throw new UsageError(
        `--screen-name must be a handle of 1 to 15 letters, digits or _ (got "${opts.screenName}")`,
        { flag: '--screen-name' },
      );
  }
  const raw = opts.timeout ?? DEFAULT_LOGIN_TIMEOUT;
  const timeoutMs = parseDuration(raw, { bare: 's' });
  if (timeoutMs === undefined || timeoutMs < 1000 || timeoutMs > 3_600_000) {
    throw new UsageError(`--timeout must be a duration from 1s to 1h such as 90s, 5m or 300 (seconds) (got "${raw}")`, {
      flag: '--timeout',
    });
  }
  return { port, accessLevel: level as Checked['accessLevel'], screenName, timeoutMs };
}

function fmtDuration(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 1000)}s`;
}

const NO_PIN_HINT =
  'pipe the PIN on stdin once you have it (e.g. `read -r PIN; echo "$PIN" | ...` from another step), run at a terminal, or use the callback flow without --pin';

/** Where the PIN comes from: a prompt on a terminal, else the first line piped on stdin. */
function pinSource(ctx: Context): { early?: UsageError; read: () => Promise<string> } {
  const io = ctx.io;
  if (io.isStdinTTY) return { read: () => promptLine(ctx, 'Enter the PIN shown after you authorize: ') };
  // A non-terminal stdin that can never carry a PIN (/dev/null, a closed descriptor): refuse before sending.
  const fd = (io.stdin as { fd?: number }).fd;
  if (typeof fd === 'number') {
    try {
      const st = fs.fstatSync(fd);
      if (st.isCharacterDevice() || (st.isFile() && st.size === 0)) {
        return {
          early: new UsageError('--pin: stdin is not a terminal and nothing was piped, so the PIN cannot be read', {
            flag: '--pin',
            hint: NO_PIN_HINT,
          }),
          read: async () => '',
        };
      }
    } catch {
      /* not a real descriptor: read it as a stream */
    }
  }
  const line = firstLine(io.stdin);
  line.catch(() => undefined);
  return {
    read: async () => {
      const v = await line;
      if (!v)
        throw new UsageError('--pin: stdin is not a terminal and ended without a PIN', {
          flag: '--pin',
          hint: NO_PIN_HINT,
        });
      return v;
    },
  };
}

export function register(parent: Command, runF = authLogin): void {
  declare(parent, {
    name: 'login',
    description:
      'log in as a user: three-legged OAuth 1.0a, or OAuth 2.0 with PKCE (--oauth2); approve in the browser, the token is stored in the profile',
    options: [
      ['--pin', 'PIN mode (oob): type the PIN shown after approving, or pipe it on stdin'],
      ['--callback-port <n>', 'port of the loopback callback on 127.0.0.1 (default: a free one)'],
      ['--access-level <level>', "read or write: ask for less than the app's level (x_auth_access_type)"],
      ['--force-login', 'make the authorize page ask for the account credentials again'],
      ['--screen-name <handle>', 'prefill the login box with this account'],
      ['--no-browser', 'only print the authorize URL (stderr); do not open a browser'],
      [
        '--timeout <duration>',
        'give up waiting for the approval after this long (90s, 5m, or seconds)',
        DEFAULT_LOGIN_TIMEOUT,
      ],
      [
        '--oauth2',
        'OAuth 2.0 authorization code with PKCE: a user token with scopes, refreshed automatically (with offline.access)',
      ],
      [
        '--scopes <list>',
        'with --oauth2: scopes to ask for, space or comma separated (default: tweet.read users.read follows.read like.read mute.read block.read dm.read dm.write offline.access)',
      ],
      ['--client-id <id>', "with --oauth2: the OAuth 2.0 Client ID (default: XCTL_CLIENT_ID or the profile's)"],
      [
        '--paste',
        'with --oauth2: no callback server; paste the URL the browser was sent to (machines without a browser)',
      ],
    ],
    helpAfter:
      '\nWith --oauth2 the redirect URI is http://127.0.0.1:8080/callback (register it with the app; --callback-port N changes the port, 0 picks a free one, which the sandbox accepts).',
    createsProfile: true,
    run: (ctx, o) => runF(ctx, o),
  });
}

/** Logs in: POST /oauth/request_token, the browser on GET /oauth/authorize, POST /oauth/access_token. */
export async function authLogin(ctx: Context, opts: AuthLoginOptions, deps: LoginDeps = {}): Promise<void> {
  ctx.allowNewProfile();
  const checked = checkLoginOptions(opts);
  if (opts.oauth2 || opts.paste || opts.scopes !== undefined || opts.clientId !== undefined) {
    const { authLoginOAuth2 } = await import('./login-oauth2.js');
    return authLoginOAuth2(
      ctx,
      opts,
      { port: opts.callbackPort === undefined ? undefined : checked.port, timeoutMs: checked.timeoutMs },
      deps,
    );
  }
  const c = await ctx.credentials();
  if (!c.api_key || !c.api_secret) {
    throw new AuthError("logging in needs the app's API key and secret", {
      hint: 'run `xctl auth set --api-key KEY --api-secret -` first, or set XCTL_API_KEY and XCTL_API_SECRET',
    });
  }
  const pin = opts.pin ? pinSource(ctx) : undefined;
  if (pin?.early) throw pin.early;
  const io = ctx.io;
  const http = await ctx.http();
  let server: CallbackServer | undefined;
  const aborter = new AbortController();
  const signal = AbortSignal.any([ctx.signal, aborter.signal]);
  try {
    if (!opts.pin) server = await startCallbackServer(checked.port);
    const rt = await requestToken(http, server ? server.url : 'oob', checked.accessLevel);
    server?.expect(rt.token);
    const url = authorizeUrl(http.apiBase, rt.token, { forceLogin: opts.forceLogin, screenName: checked.screenName });

    // The URL goes to stderr even with --quiet: without it the user cannot finish.
    io.err(
      `Open this URL in a browser to authorize xctl${checked.accessLevel ? ` (${checked.accessLevel} access)` : ''}:\n\n  ${url}\n`,
    );
    if (opts.browser !== false) {
      const openUrl = deps.openUrl ?? ((u: string) => openWithoutSecrets(u, ctx.env));
      await openUrl(url).catch((e: Error) =>
        io.warn(`could not open a browser (${e.message}); open the URL above yourself`),
      );
    }
    io.info(
      opts.pin
        ? `After authorizing, ${io.isStdinTTY ? 'enter' : 'pipe'} the PIN shown on the page (times out in ${fmtDuration(checked.timeoutMs)}).`
        : `Waiting for the browser to come back to ${server!.url} (times out in ${fmtDuration(checked.timeoutMs)}; Ctrl-C to cancel)...`,
    );

    const timedOut = ctx.clock.sleep(checked.timeoutMs, signal).then(() => 'timeout' as const);
    timedOut.catch(() => undefined);
    const waited = await Promise.race([
      opts.pin ? pin!.read().then((p) => ({ kind: 'pin' as const, p })) : server!.outcome,
      timedOut,
    ]);
    if (waited === 'timeout') {
      throw new XctlError(`no authorization arrived within ${fmtDuration(checked.timeoutMs)}: login cancelled`, {
        hint: `run \`xctl auth login\` again and approve within the time, or raise --timeout${opts.browser === false ? '; with --no-browser, open the printed URL yourself' : ''}`,
      });
    }
    let verifier: string;
    if (waited.kind === 'denied') {
      throw new AuthError('authorization was denied on the authorize page: nothing was stored', {
        hint: 'run `xctl auth login` again and choose Authorize',
      });
    } else if (waited.kind === 'pin') {
      if (!/^\d{4,10}$/.test(waited.p))
        throw new UsageError(`--pin: the PIN must be the digits shown on the page (got "${waited.p.slice(0, 20)}")`, {
          flag: '--pin',
        });
      verifier = waited.p;
    } else verifier = waited.verifier;

    let tok;
    try {
      tok = await accessToken(http, rt, verifier);
    } catch (e) {
      if (opts.pin && e instanceof AuthError && /verifier/i.test(e.message)) {
        e.hint =
          'the PIN was not the one the page showed; a wrong PIN spends the authorization: run `xctl auth login --pin` again and enter the new PIN exactly';
      }
      throw e;
    }
    await storeUserToken(ctx, { tok, c, accessLevel: checked.accessLevel });
  } finally {
    aborter.abort();
    await server?.close();
  }
}

/** The user token stored in the profile, with the warnings about what may shadow it, and shown. */
async function storeUserToken(
  ctx: Context,
  o: { tok: UserToken; c: Awaited<ReturnType<Context['credentials']>>; accessLevel?: string },
): Promise<void> {
  const { tok, c } = o;
  const io = ctx.io;
  io.addSecret(tok.token);
  io.addSecret(tok.secret);
  const before = await ctx.profile();
  const replaced = replacedUserToken(before, tok.token, tok.user_id);
  if (replaced) io.info(`replacing the user token of ${replaced} in profile "${await ctx.profileName()}"`);
  await ctx.updateProfile({
    access_token: tok.token,
    access_token_secret: tok.secret,
    user_id: tok.user_id,
    screen_name: tok.screen_name,
  });
  const profile = await ctx.profileName();
  io.info(`Logged in as @${tok.screen_name} (${tok.user_id}); the token is stored in profile "${profile}".`);
  const shadowing = ['XCTL_ACCESS_TOKEN', 'XCTL_ACCESS_TOKEN_SECRET'].filter((k) => ctx.env[k]);
  if (shadowing.length)
    io.warn(
      `${shadowing.join(' and ')} ${shadowing.length > 1 ? 'are' : 'is'} set and override${shadowing.length > 1 ? '' : 's'} the stored token; unset ${shadowing.length > 1 ? 'them' : 'it'} to use it`,
    );
  if (c.source.api_key === 'env')
    io.warn(
      'the API key came from XCTL_API_KEY: keep XCTL_API_KEY and XCTL_API_SECRET set when using this token (it belongs to that app)',
    );
  await checkAdsAccount(ctx, before, tok);
  await printOne(io, await ctx.output(), {
    profile,
    user_id: tok.user_id,
    screen_name: tok.screen_name,
    access_level: o.accessLevel ?? 'app default',
  });
}

/**
 * Opens the browser without the XCTL_* variables: the browser (and everything it starts) would
 * otherwise inherit the secrets. `open` has no env option and spawns with the process
 * environment, synchronously before its promise resolves, so they are taken out for that moment.
 */
export async function openWithoutSecrets(url: string, env: Record<string, string | undefined>): Promise<void> {
  const { default: open } = await import('open');
  const saved = Object.entries(env).filter(([k]) => k.startsWith('XCTL_'));
  for (const [k] of saved) delete env[k];
  try {
    await open(url, { wait: false });
  } finally {
    for (const [k, v] of saved) env[k] = v;
  }
}
