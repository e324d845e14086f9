// What both login flows share (login.ts: OAuth 1.0a; login-oauth2.ts: OAuth 2.0 with PKCE): the
// options, the test seams, reading a line from stdin or the terminal, naming a replaced token.
import type { Context } from '../../context.js';

export interface AuthLoginOptions {
  pin?: boolean;
  callbackPort?: string;
  accessLevel?: string;
  forceLogin?: boolean;
  screenName?: string;
  browser?: boolean;
  timeout?: string;
  /** OAuth 2.0 authorization code with PKCE instead of OAuth 1.0a (login-oauth2.ts). */
  oauth2?: boolean;
  paste?: boolean;
  scopes?: string;
  clientId?: string;
}

export interface LoginDeps {
  /** Opens a URL in the user's browser (the `open` package unless replaced in tests). */
  openUrl?: (url: string) => Promise<unknown>;
}

/** The first line of a non-terminal stdin; undefined when it ends without one. */
export function firstLine(stream: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const done = (v: string | undefined) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', reject);
      stream.pause();
      resolve(v);
    };
    const onData = (d: Buffer | string) => {
      buf += d.toString();
      const m = /^[^\r\n]*(?=\r?\n)/.exec(buf);
      if (m && m[0].trim()) done(m[0].trim());
      else if (m) buf = buf.replace(/^\r?\n/, ''); // skip blank lines
    };
    const onEnd = () => done(buf.trim() || undefined);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', reject);
    stream.resume();
  });
}

/** One line typed at the terminal (visible: PINs and pasted URLs are single-use, not secrets). */
export async function promptLine(ctx: Context, question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/**
 * Whose stored user token a new login replaces ("@handle (id)", "user 123", "another user's
 * token"), or undefined when there was none or it was this very token. Never the token itself.
 */
export function replacedUserToken(
  p: { access_token?: string; user_id?: string; screen_name?: string } | undefined,
  newToken: string,
  newUserId?: string,
): string | undefined {
  if (!p?.access_token || p.access_token === newToken) return undefined;
  const who = p.screen_name
    ? `@${p.screen_name}${p.user_id ? ` (${p.user_id})` : ''}`
    : p.user_id
      ? `user ${p.user_id}`
      : 'an unnamed user';
  return newUserId && p.user_id === newUserId ? `${who}, the same user,` : who;
}

/**
 * After logging in as another user: the profile's ads account may not be one of theirs (every ads
 * call would then fail with ACCOUNT_NOT_FOUND). Lists the accounts the new user can use and warns
 * when the profile's is not among them. Best effort: an app without ads access says nothing.
 */
export async function checkAdsAccount(
  ctx: Context,
  before: { user_id?: string; account_id?: string } | undefined,
  user: { user_id: string; screen_name: string },
): Promise<void> {
  if (!before?.account_id || !before.user_id || before.user_id === user.user_id) return;
  let accounts: Array<{ id?: unknown; name?: unknown }>;
  try {
    const res = await (await ctx.http()).request<{ data?: Array<{ id?: unknown; name?: unknown }> }>({
      method: 'GET',
      host: 'ads',
      path: '/12/accounts',
      query: { count: 50 },
      auth: 'user',
      retry: false,
    });
    accounts = res.data.data ?? [];
  } catch {
    return;
  }
  if (accounts.some((a) => a.id === before.account_id)) return;
  const { escapeForTerminal } = await import('../../core/sanitize.js');
  const list = accounts.map(
    (a) => `${escapeForTerminal(String(a.id))}${typeof a.name === 'string' ? ` (${escapeForTerminal(a.name)})` : ''}`,
  );
  const first = accounts[0] ? escapeForTerminal(String(accounts[0].id)) : undefined;
  ctx.io.warn(
    `the profile's account_id ${before.account_id} is not one of @${user.screen_name}'s ads accounts: ads calls would fail with ACCOUNT_NOT_FOUND; ${list.length ? `@${user.screen_name} can use ${list.join(', ')}; e.g. \`xctl config set account_id ${first}\`` : `@${user.screen_name} has no ads account`}`,
  );
}
