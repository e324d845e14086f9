// OAuth 2.0 authorization code with PKCE (RFC 7636) as the client sees it: verifier, challenge,
// state, the authorize URL, the redirect coming back, and the token endpoint's answers
// (docs/contract.md, notes-2 section 1). No I/O here: commands and the HTTP client call these.
import crypto from 'node:crypto';
import { OAUTH2_ENDPOINTS, OAUTH2_SCOPE_PARAM, OAUTH2_SCOPES, PKCE } from '../contract/oauth2.js';
import { checkInput } from './check-input.js';
import { ApiError, AuthError, UsageError } from './errors.js';
import type { HttpClient } from './http.js';
import { isRecord } from '../contract/guards.js';

export function base64url(buf: Buffer): string {
  return buf.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 32 random octets, base64url without padding: 43 characters, as xurl and the XDK make them. */
export function newVerifier(bytes: Buffer = crypto.randomBytes(32)): string {
  return base64url(bytes);
}

/** S256: base64url(SHA-256(ASCII verifier)); plain: the verifier itself. */
export function codeChallenge(verifier: string, method: 'S256' | 'plain' = 'S256'): string {
  if (method === 'plain') return verifier;
  return base64url(crypto.createHash('sha256').update(verifier, 'ascii').digest());
}

/** The `state` of one login: unguessable, compared on the way back. */
export function newState(): string {
  return base64url(crypto.randomBytes(24));
}

export interface AuthorizeParams {
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  state: string;
  challenge: string;
}

/** The consent page URL: values percent-encoded, scopes joined by one space (%20, never '+'). */
export function authorizeUrl(webBase: string, p: AuthorizeParams): string {
  const q: Array<[string, string]> = [
    ['response_type', 'code'],
    ['client_id', p.clientId],
    ['redirect_uri', p.redirectUri],
    ['scope', p.scopes.join(' ')],
    ['state', p.state],
    ['code_challenge', p.challenge],
    ['code_challenge_method', 'S256'],
  ];
  const qs = q.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
  return `${webBase.replace(/\/+$/, '')}${OAUTH2_ENDPOINTS.authorize.path}?${qs}`;
}

/** Parses and checks a --scopes value (the contract's scope rule): space or comma separated, duplicates dropped. */
export function parseScopes(raw: string, flag = '--scopes'): string[] {
  const list = raw.split(/[\s,]+/).filter(Boolean);
  const scope = { params: [{ ...OAUTH2_SCOPE_PARAM, flag }] };
  checkInput(scope, { query: { scope: list.join(' ') } }, { scope: `known: ${OAUTH2_SCOPES.join(' ')}` });
  return [...new Set(list)];
}

export type RedirectOutcome = { kind: 'code'; code: string } | { kind: 'denied'; error: string; description?: string };

/**
 * Reads the URL the consent page redirected to (the loopback callback, or pasted back with
 * --paste). A `state` other than ours is refused whatever else it carries: it belongs to another
 * login, or to someone trying to slip their code into ours.
 */
export function parseRedirect(raw: string, expectedState: string, redirectUri?: string): RedirectOutcome {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new UsageError(
      'the pasted text is not a URL: paste the whole address the browser was sent to (it starts with the callback URL)',
      { flag: '--paste' },
    );
  }
  if (redirectUri) {
    const want = new URL(redirectUri);
    if (u.origin !== want.origin || u.pathname !== want.pathname) {
      throw new UsageError(`the pasted URL is not the callback (${want.origin}${want.pathname}...)`, {
        flag: '--paste',
      });
    }
  }
  const state = u.searchParams.get('state');
  if (state === null) throw new AuthError('the redirect carries no state: refusing it (start the login again)');
  if (!timingSafeEqual(state, expectedState))
    throw new AuthError(
      "the redirect's state is not the one this login sent: refusing it (an old tab, or a forged link)",
      { hint: 'start `xctl auth login --oauth2` again and use the URL it prints' },
    );
  const error = u.searchParams.get('error');
  if (error) return { kind: 'denied', error, description: u.searchParams.get('error_description') ?? undefined };
  const code = u.searchParams.get('code');
  if (!code) throw new AuthError('the redirect carries neither a code nor an error');
  return { kind: 'code', code };
}

function timingSafeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && crypto.timingSafeEqual(ba, bb);
}

/** What the profile keeps of an OAuth 2.0 user token. */
export interface OAuth2Token {
  access_token: string;
  refresh_token?: string;
  /** Epoch milliseconds. */
  expires_at: number;
  scopes: string[];
}

/**
 * The token endpoint's 200: token_type bearer (any case), an access token, expires_in seconds,
 * the granted scopes (which may be narrower than asked: what comes back is what is stored), and
 * a refresh token only with offline.access.
 */
export function parseTokenResponse(body: unknown, now: number): OAuth2Token {
  const b = isRecord(body) ? body : {};
  if (typeof b.token_type !== 'string' || b.token_type.toLowerCase() !== 'bearer') {
    throw new ApiError(
      `the token endpoint answered token_type ${JSON.stringify(b.token_type ?? null).slice(0, 40)}, not bearer`,
      { hint: 'is --base-url pointing at the API?' },
    );
  }
  if (typeof b.access_token !== 'string' || !b.access_token || /\s/.test(b.access_token))
    throw new ApiError('the token endpoint answered without an access_token');
  const expiresIn =
    typeof b.expires_in === 'number'
      ? b.expires_in
      : typeof b.expires_in === 'string' && /^\d+$/.test(b.expires_in)
        ? Number(b.expires_in)
        : undefined;
  if (expiresIn === undefined || !Number.isFinite(expiresIn) || expiresIn <= 0)
    throw new ApiError('the token endpoint answered without a usable expires_in');
  if (b.refresh_token !== undefined && (typeof b.refresh_token !== 'string' || !b.refresh_token))
    throw new ApiError('the token endpoint answered a malformed refresh_token');
  const scopes = typeof b.scope === 'string' ? b.scope.split(/\s+/).filter(Boolean) : [];
  return {
    access_token: b.access_token,
    ...(b.refresh_token ? { refresh_token: b.refresh_token as string } : {}),
    expires_at: now + expiresIn * 1000,
    scopes,
  };
}

/**
 * A token-endpoint failure as an auth error (exit 3): the platform reports bad grants as
 * invalid_request where RFC 6749 says invalid_grant, so every `error` value is treated alike:
 * its description, and "log in again".
 */
export function tokenEndpointError(status: number, body: unknown, step: string): AuthError | ApiError {
  const b: Record<string, unknown> = isRecord(body) ? body : {};
  const code = typeof b.error === 'string' ? b.error : undefined;
  const desc = typeof b.error_description === 'string' ? b.error_description : undefined;
  if (status >= 500 || (!code && status !== 401 && status !== 403 && status !== 400)) {
    return new ApiError(`${step} failed (HTTP ${status})`, { status, hint: 'the service failed; try again' });
  }
  return new AuthError(
    `${step} failed: ${desc ?? code ?? `HTTP ${status}`} (HTTP ${status}${code ? `, ${code}` : ''})`,
    {
      status,
      code,
      hint: 'log in again: `xctl auth login --oauth2`',
    },
  );
}

/** Basic client authentication of confidential clients: the RFC 2617 form the platform's docs show. */
export function clientBasic(clientId: string, clientSecret: string): string {
  return 'Basic ' + Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64');
}

/** A client id is printable ASCII without ':' (the Basic header's separator) or spaces. */
export function checkClientId(v: string, flag = '--client-id'): string {
  if (!/^[\x21-\x39\x3b-\x7e]{1,256}$/.test(v))
    throw new UsageError(`${flag} must be printable ASCII without spaces or ':' (got "${v.slice(0, 40)}")`, { flag });
  return v;
}

/** Refresh this long before expiry, so a token cannot die between the check and the request. */
export const REFRESH_MARGIN_MS = 60_000;

export function needsRefresh(t: Pick<OAuth2Token, 'expires_at'>, now: number): boolean {
  return now >= t.expires_at - REFRESH_MARGIN_MS;
}

export { PKCE };

/** The OAuth 2.0 client making the calls: a secret means confidential (Basic), none means public. */
export interface OAuth2ClientCreds {
  clientId: string;
  clientSecret?: string;
}

type TokenHttp = Pick<HttpClient, 'request'>;

/** Client authentication: the Basic header for confidential clients, client_id in the body for public ones. */
function clientAuth(c: OAuth2ClientCreds, form: Array<[string, string]>): Record<string, string> {
  if (c.clientSecret) return { authorization: clientBasic(c.clientId, c.clientSecret) };
  form.push(['client_id', c.clientId]);
  return {};
}

async function tokenCall(
  http: TokenHttp,
  path: string,
  c: OAuth2ClientCreds,
  form: Array<[string, string]>,
  step: string,
): Promise<unknown> {
  const headers = clientAuth(c, form);
  const res = await http.request({
    method: 'POST',
    path,
    auth: 'none',
    headers,
    form,
    throwOnError: false,
    // Codes and refresh tokens are single-use: a blind retry after a lost answer would spend them twice.
    retry: false,
  });
  if (res.status >= 400) throw tokenEndpointError(res.status, res.data, step);
  return res.data;
}

/** POST /2/oauth2/token grant_type=authorization_code: the code, the same redirect_uri, the PKCE verifier. */
export async function exchangeCode(
  http: TokenHttp,
  c: OAuth2ClientCreds,
  code: string,
  redirectUri: string,
  verifier: string,
  now: number,
): Promise<OAuth2Token> {
  const form: Array<[string, string]> = [
    ['grant_type', 'authorization_code'],
    ['code', code],
    ['redirect_uri', redirectUri],
    ['code_verifier', verifier],
  ];
  return parseTokenResponse(
    await tokenCall(http, OAUTH2_ENDPOINTS.token.path, c, form, 'exchanging the authorization code'),
    now,
  );
}

/** POST /2/oauth2/token grant_type=refresh_token: a new pair; the old refresh token is spent. */
export async function refreshGrant(
  http: TokenHttp,
  c: OAuth2ClientCreds,
  refreshToken: string,
  now: number,
): Promise<OAuth2Token> {
  const form: Array<[string, string]> = [
    ['grant_type', 'refresh_token'],
    ['refresh_token', refreshToken],
  ];
  return parseTokenResponse(
    await tokenCall(http, OAUTH2_ENDPOINTS.token.path, c, form, 'refreshing the OAuth 2.0 token'),
    now,
  );
}

/** POST /2/oauth2/revoke: token_type_hint is required by the service although the docs omit it. */
export async function revokeToken(
  http: TokenHttp,
  c: OAuth2ClientCreds,
  token: string,
  hint: 'access_token' | 'refresh_token',
): Promise<void> {
  await tokenCall(
    http,
    OAUTH2_ENDPOINTS.revoke.path,
    c,
    [
      ['token', token],
      ['token_type_hint', hint],
    ],
    `revoking the ${hint.replace('_', ' ')}`,
  );
}
