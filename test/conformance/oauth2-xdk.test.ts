// XDK's OAuth 2.0 user-context helpers (`@xdevplatform/xdk`, as its users call them) against the
// sandbox. Its `Client` takes a baseUrl; its `OAuth2` class posts to https://api.x.com itself,
// so the test points that host at the sandbox the way a proxy would: through Node's global
// fetch dispatcher (undici's documented hook), not by patching the SDK. The consent page is the
// sandbox's, opened with the query XDK built.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import {
  ApiError,
  Client,
  OAuth2,
  generateCodeChallenge,
  generateCodeVerifier,
  type OAuth2Token,
} from '@xdevplatform/xdk';
import { startTestSandbox, type TestSandbox } from '../helpers/cli.js';
import { decideOnOAuth2Page } from '../helpers/oauth-client.js';
import { codeChallenge } from '../../src/core/oauth2.js';

let t: TestSandbox;
let base: string;
let previous: Dispatcher;
const REDIRECT = 'http://127.0.0.1:9/callback';

/** Sends what XDK addresses to https://api.x.com to the sandbox instead (a transparent proxy). */
class ToSandbox extends Agent {
  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const o = String(opts.origin) === 'https://api.x.com' ? { ...opts, origin: base } : opts;
    return super.dispatch(o, handler);
  }
}

beforeAll(async () => {
  t = await startTestSandbox({ clock: 'manual' });
  base = t.sb.seed.base_url;
  previous = getGlobalDispatcher();
  setGlobalDispatcher(new ToSandbox());
});
afterAll(async () => {
  setGlobalDispatcher(previous);
  await t.close();
});

/** XDK builds the authorize URL; the "browser" opens the same query on the sandbox's consent page. */
async function authorize(auth: OAuth2, state: string, user = 'sandbox_alice'): Promise<string> {
  const url = new URL(await auth.getAuthorizationUrl(state));
  expect(url.origin + url.pathname).toBe('https://x.com/i/oauth2/authorize');
  const page = await decideOnOAuth2Page(`${base}${url.pathname}${url.search}`, 'allow', user);
  expect(page.status, page.html).toBe(302);
  const back = new URL(page.location!);
  expect(back.searchParams.get('state')).toBe(state);
  return back.searchParams.get('code')!;
}

function checkToken(tok: OAuth2Token, scopes: string): void {
  // Field by field against XDK's OAuth2Token type.
  expect(Object.keys(tok).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
  expect(typeof tok.access_token).toBe('string');
  expect(tok.token_type).toBe('bearer');
  expect(tok.expires_in).toBe(7200);
  expect(tok.scope).toBe(scopes);
}

describe('XDK OAuth2 (user context) against the sandbox', () => {
  it("PKCE helpers agree with xctl's; XDK's verifiers exceed RFC 7636's 128 characters and the sandbox, like the platform, takes them", async () => {
    // XDK 0.6 encodes 128 random bytes: 171 characters, over RFC 7636's maximum. The platform
    // accepts what it is given (the docs' own example uses a 9-character plain verifier), so
    // the sandbox does not police the length; xctl itself sends 43 (RFC 7636 Appendix B's size).
    const v = generateCodeVerifier();
    expect(v).toMatch(/^[A-Za-z0-9\-_]{171}$/);
    expect(await generateCodeChallenge(v)).toBe(codeChallenge(v));
  });

  it('confidential client: authorize URL, exchangeCode, Client with the token, refreshToken with rotation', async () => {
    const s = t.sb.seed;
    const scopes = ['tweet.read', 'users.read', 'offline.access'];
    const auth = new OAuth2({
      clientId: s.client_id,
      clientSecret: s.client_secret,
      redirectUri: REDIRECT,
      scope: scopes,
    });
    const verifier = generateCodeVerifier();
    await auth.setPkceParameters(verifier);
    const code = await authorize(auth, 'xdk-state-1');
    const tok = await auth.exchangeCode(code, verifier);
    checkToken(tok, scopes.join(' '));

    const client = new Client({ baseUrl: base, accessToken: tok.access_token });
    const me = await client.users.getMe();
    expect(me.data).toEqual({ id: '783214', name: 'Alice Sandbox', username: 'sandbox_alice' });

    const next = await auth.refreshToken();
    checkToken(next, scopes.join(' '));
    expect(next.refresh_token).not.toBe(tok.refresh_token);
    await expect(auth.refreshToken(tok.refresh_token)).rejects.toThrow(
      /Failed to refresh token: 400.*Value passed for the token was invalid/,
    );
    // The replaced access token is dead; the new one works.
    await expect(client.users.getMe()).rejects.toMatchObject({ status: 401 });
    expect((await new Client({ baseUrl: base, accessToken: next.access_token }).users.getMe()).data?.username).toBe(
      'sandbox_alice',
    );
  });

  it('public client (no secret): client_id in the body', async () => {
    const auth = new OAuth2({
      clientId: t.sb.seed.public_client_id,
      redirectUri: REDIRECT,
      scope: ['tweet.read', 'users.read', 'offline.access'],
    });
    const verifier = generateCodeVerifier();
    await auth.setPkceParameters(verifier);
    const tok = await auth.exchangeCode(await authorize(auth, 'xdk-state-2', 'sandbox_bob'), verifier);
    expect((await new Client({ baseUrl: base, accessToken: tok.access_token }).users.getMe()).data?.username).toBe(
      'sandbox_bob',
    );
    expect((await auth.refreshToken()).access_token).not.toBe(tok.access_token);
  });

  it("a wrong verifier is refused with the platform's body; scopes are enforced on XDK's calls", async () => {
    const s = t.sb.seed;
    const auth = new OAuth2({
      clientId: s.client_id,
      clientSecret: s.client_secret,
      redirectUri: REDIRECT,
      scope: ['tweet.read', 'users.read'],
    });
    await auth.setPkceParameters(generateCodeVerifier());
    const code = await authorize(auth, 'xdk-state-3');
    await expect(auth.exchangeCode(code, generateCodeVerifier())).rejects.toThrow(
      /status: 400, body: .*Value passed for the code verifier did not match the code challenge\./,
    );

    const ok = new OAuth2({
      clientId: s.client_id,
      clientSecret: s.client_secret,
      redirectUri: REDIRECT,
      scope: ['tweet.read', 'users.read'],
    });
    const verifier = generateCodeVerifier();
    await ok.setPkceParameters(verifier);
    const tok = await ok.exchangeCode(await authorize(ok, 'xdk-state-4'), verifier);
    const client = new Client({ baseUrl: base, accessToken: tok.access_token });
    // dm.read is what dm.* subscriptions need: this token lacks it.
    const err = await client.activity
      .createSubscription({ event_type: 'dm.received', filter: { user_id: '783214' } } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(403);
    expect((err as ApiError).data).toEqual({
      title: 'Forbidden',
      type: 'about:blank',
      status: 403,
      detail: 'Forbidden',
    });
    await expect(
      client.activity.createSubscription({ event_type: 'profile.update.bio', filter: { user_id: '783214' } } as never),
    ).resolves.toBeTruthy();
  });
});
