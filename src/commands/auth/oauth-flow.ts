// The OAuth 1.0a three-legged steps and the two revocations, as the client sees them
// (docs/contract.md, credentials 4.1, 4.2; docs/contract.md, notes "Token endpoints").
import type { HttpClient } from '../../core/http.js';
import { ApiError } from '../../core/errors.js';
import { OAUTH_ENDPOINTS as E } from '../../contract/oauth.js';

export interface RequestToken {
  token: string;
  secret: string;
}

export interface UserToken {
  token: string;
  secret: string;
  user_id: string;
  screen_name: string;
}

/** The token steps answer `a=b&c=d` (form-encoded), not JSON. */
function formPairs(text: string, step: string, need: string[]): Record<string, string> {
  const pairs = Object.fromEntries(new URLSearchParams(text));
  const missing = need.filter((k) => !pairs[k]);
  if (missing.length)
    throw new ApiError(`${step} answered without ${missing.join(', ')}`, {
      hint: 'is --base-url pointing at the API?',
    });
  return pairs;
}

/** POST /oauth/request_token: step 1, signed with the consumer keys only; oauth_callback is always sent. */
export async function requestToken(
  http: HttpClient,
  callback: string,
  accessLevel?: 'read' | 'write',
): Promise<RequestToken> {
  const res = await http.request<string>({
    method: E.requestToken.method,
    path: E.requestToken.path,
    auth: 'consumer',
    query: { x_auth_access_type: accessLevel },
    oauthExtra: { oauth_callback: callback },
    idempotent: true, // an unused request token is harmless, so a retry is safe
  });
  const p = formPairs(res.text, 'the request-token step', ['oauth_token', 'oauth_token_secret']);
  if (p.oauth_callback_confirmed !== 'true')
    throw new ApiError('the service did not confirm the callback (oauth_callback_confirmed is not "true")');
  return { token: p.oauth_token!, secret: p.oauth_token_secret! };
}

/** The page of step 2 (GET /oauth/authorize): the user approves there; oauth_callback is never sent here. */
export function authorizeUrl(
  apiBase: string,
  token: string,
  opts: { forceLogin?: boolean; screenName?: string } = {},
): string {
  const u = new URL(E.authorizePage.path, apiBase.replace(/\/+$/, '') + '/');
  u.searchParams.set('oauth_token', token);
  if (opts.forceLogin) u.searchParams.set('force_login', 'true');
  if (opts.screenName) u.searchParams.set('screen_name', opts.screenName);
  return u.toString();
}

/** POST /oauth/access_token: step 3, signed with the request token; the verifier is strictly required. */
export async function accessToken(http: HttpClient, rt: RequestToken, verifier: string): Promise<UserToken> {
  const res = await http.request<string>({
    method: E.accessToken.method,
    path: E.accessToken.path,
    auth: 'consumer',
    token: { token: rt.token, tokenSecret: rt.secret },
    oauthExtra: { oauth_verifier: verifier },
    retry: false, // the verifier is single-use: a blind retry would burn it
  });
  const p = formPairs(res.text, 'the access-token step', [
    'oauth_token',
    'oauth_token_secret',
    'user_id',
    'screen_name',
  ]);
  return { token: p.oauth_token!, secret: p.oauth_token_secret!, user_id: p.user_id!, screen_name: p.screen_name! };
}

/** POST /1.1/oauth/invalidate_token: revokes the user access token the request is signed with. */
export async function invalidateUserToken(http: HttpClient): Promise<void> {
  await http.request({ method: E.invalidateUserToken.method, path: E.invalidateUserToken.path, auth: 'user' });
}

/** POST /oauth2/invalidate_token: revokes an app-only bearer; signed as the application owner. */
export async function invalidateBearer(http: HttpClient, bearer: string): Promise<void> {
  await http.request({
    method: E.invalidateBearer.method,
    path: E.invalidateBearer.path,
    auth: 'user',
    form: { access_token: bearer },
  });
}
