// The sandbox's OAuth 2.0 user context (platform-notes-2.md sections 1 and 2) checked with plain
// HTTP: the consent page, the token endpoint's every rule and error body, rotation, expiry on the
// manual clock, revoke, /2/users/me, scope enforcement and OAuth 1.0a permissions over scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/cli.js';
import { decideOnOAuth2Page, signedFetch } from '../helpers/oauth-client.js';
import { clientBasic, codeChallenge, newVerifier } from '../../src/core/oauth2.js';

let t: TestSandbox;
let base: string;
let clientId: string;
let secret: string;
let publicId: string;
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  t = await startTestSandbox({ clock: 'manual' });
  ({ base_url: base, client_id: clientId, client_secret: secret, public_client_id: publicId } = t.sb.seed);
});
afterAll(() => t.close());

interface Ans {
  status: number;
  body: Record<string, unknown>;
  text: string;
  type: string;
  location?: string;
}

async function ans(res: Response): Promise<Ans> {
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let body: Record<string, unknown> = {};
  if (type.includes('json')) body = JSON.parse(text);
  return { status: res.status, body, text, type, location: res.headers.get('location') ?? undefined };
}

function authorizeQuery(o: Record<string, string | undefined>): string {
  const q = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'tweet.read users.read offline.access',
    state: 'st-1',
    code_challenge: 'c'.repeat(43),
    code_challenge_method: 'S256',
    ...o,
  };
  return Object.entries(q)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
}

/** Reads the consent page like a browser and submits its form with a decision. */
async function consent(query: string, decision: 'allow' | 'deny', screenName = 'sandbox_alice'): Promise<Ans> {
  const r = await decideOnOAuth2Page(`${base}/i/oauth2/authorize?${query}`, decision, screenName);
  return { status: r.status, body: {}, text: r.html, type: '', location: r.location };
}

async function token(form: Record<string, string>, auth: string | null = clientBasic(clientId, secret)): Promise<Ans> {
  return ans(
    await fetch(`${base}/2/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
      body: new URLSearchParams(form),
    }),
  );
}

async function revoke(form: Record<string, string>, auth: string | null = clientBasic(clientId, secret)): Promise<Ans> {
  return ans(
    await fetch(`${base}/2/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
      body: new URLSearchParams(form),
    }),
  );
}

const bearer = (tok: string, path: string, init: RequestInit = {}) =>
  fetch(base + path, {
    ...init,
    headers: { authorization: `Bearer ${tok}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
  }).then(ans);

/** A code for `scope` through the consent page, with a fresh S256 verifier. */
async function codeFor(
  scope: string,
  o: { method?: string; client?: string; user?: string } = {},
): Promise<{ code: string; verifier: string }> {
  const verifier = newVerifier();
  const method = o.method ?? 'S256';
  const challenge = method.toLowerCase() === 'plain' ? verifier : codeChallenge(verifier);
  const r = await consent(
    authorizeQuery({
      scope,
      code_challenge: challenge,
      code_challenge_method: method,
      client_id: o.client ?? clientId,
    }),
    'allow',
    o.user,
  );
  expect(r.status, r.text).toBe(302);
  const u = new URL(r.location!);
  expect(u.searchParams.get('state')).toBe('st-1');
  return { code: u.searchParams.get('code')!, verifier };
}

async function login(scope = 'tweet.read users.read offline.access', user?: string): Promise<Record<string, string>> {
  const { code, verifier } = await codeFor(scope, { user });
  const r = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
  expect(r.status, r.text).toBe(200);
  return r.body as Record<string, string>;
}

const TOKEN_ERR = (d: string) => ({ error: 'invalid_request', error_description: d });

describe('consent page', () => {
  it('shows the app and the scopes asked, with the request in hidden inputs', async () => {
    const r = await ans(await fetch(`${base}/i/oauth2/authorize?${authorizeQuery({ scope: 'tweet.read dm.read' })}`));
    expect(r.status).toBe(200);
    expect(r.type).toContain('text/html');
    expect(r.text).toContain('id="app-name"');
    expect([...r.text.matchAll(/data-scope="([^"]+)"/g)].map((m) => m[1])).toEqual(['tweet.read', 'dm.read']);
    expect(r.text).toContain(`name="client_id" value="${clientId}"`);
    expect(r.text).toContain('name="state" value="st-1"');
    expect(r.text).toMatch(/id="allow"[^>]*name="decision" value="allow"/);
    expect(r.text).toMatch(/id="deny"[^>]*name="decision" value="deny"/);
  });

  it('redirects with code and state on Allow, error=access_denied on Deny', async () => {
    const allow = await consent(authorizeQuery({}), 'allow');
    expect(allow.status).toBe(302);
    const u = new URL(allow.location!);
    expect(u.origin + u.pathname).toBe(REDIRECT);
    expect(u.searchParams.get('state')).toBe('st-1');
    expect(u.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const deny = await consent(authorizeQuery({ state: 'st-2' }), 'deny');
    expect(deny.status).toBe(302);
    const d = new URL(deny.location!);
    expect([d.searchParams.get('error'), d.searchParams.get('state'), d.searchParams.has('code')]).toEqual([
      'access_denied',
      'st-2',
      false,
    ]);
  });

  it('answers an unknown client or an unregistered redirect_uri with a plain 400, never a redirect', async () => {
    for (const q of [
      authorizeQuery({ client_id: 'nope' }),
      authorizeQuery({ redirect_uri: 'https://evil.example/cb' }),
    ]) {
      const r = await ans(await fetch(`${base}/i/oauth2/authorize?${q}`, { redirect: 'manual' }));
      expect(r.status).toBe(400);
      expect(r.type).toContain('text/plain');
      expect(r.location).toBeUndefined();
    }
  });

  it('redirects the other request errors back with state', async () => {
    const cases: Array<[Record<string, string | undefined>, string]> = [
      [{ scope: 'tweet.read follow.read' }, 'invalid_scope'],
      [{ scope: undefined }, 'invalid_request'],
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'S512' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
    ];
    for (const [o, error] of cases) {
      const r = await ans(await fetch(`${base}/i/oauth2/authorize?${authorizeQuery(o)}`, { redirect: 'manual' }));
      expect(r.status, JSON.stringify(o)).toBe(302);
      const u = new URL(r.location!);
      expect([u.searchParams.get('error'), u.searchParams.get('state')]).toEqual([error, 'st-1']);
    }
  });
});

describe('token endpoint', () => {
  it('exchanges a code for the documented body (confidential client, S256)', async () => {
    const b = await login();
    expect(Object.keys(b).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    expect(b.token_type).toBe('bearer');
    expect(b.expires_in).toBe(7200);
    expect(b.scope).toBe('tweet.read users.read offline.access');
  });

  it('issues no refresh token without offline.access', async () => {
    const b = await login('tweet.read users.read');
    expect(b.refresh_token).toBeUndefined();
  });

  it('accepts plain and lowercase s256 challenges, and public clients with client_id in the body', async () => {
    for (const method of ['plain', 's256']) {
      const { code, verifier } = await codeFor('tweet.read', { method });
      expect(
        (await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }))
          .status,
      ).toBe(200);
    }
    const { code, verifier } = await codeFor('tweet.read', { client: publicId });
    const pub = await token(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: publicId },
      null,
    );
    expect(pub.status, pub.text).toBe(200);
  });

  it("answers each bad request with the platform's body", async () => {
    const { code, verifier } = await codeFor('tweet.read');
    const base = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    for (const k of ['code', 'redirect_uri', 'code_verifier', 'grant_type']) {
      const f = { ...base } as Record<string, string>;
      delete f[k];
      const r = await token(f);
      expect([r.status, r.body], k).toEqual([400, TOKEN_ERR(`Missing required parameter [${k}].`)]);
    }
    expect((await token({ ...base, grant_type: 'client_credentials' })).body.error).toBe('unsupported_grant_type');
    // Confidential client without its header, with a wrong secret, or posting the secret: 401.
    const noAuth = await token({ ...base, client_id: clientId }, null);
    expect([noAuth.status, noAuth.body]).toEqual([
      401,
      { error: 'unauthorized_client', error_description: 'Missing valid authorization header' },
    ]);
    expect((await token(base, clientBasic(clientId, 'wrong'))).status).toBe(401);
    expect((await token({ ...base, client_id: clientId, client_secret: secret }, null)).status).toBe(401);
    // The code is still good after those (none reached it); a wrong verifier spends it.
    const wrongVerifier = await token({ ...base, code_verifier: newVerifier() });
    expect([wrongVerifier.status, wrongVerifier.body]).toEqual([
      400,
      TOKEN_ERR('Value passed for the code verifier did not match the code challenge.'),
    ]);
    expect((await token(base)).body).toEqual(TOKEN_ERR('Value passed for the authorization code was invalid.'));
  });

  it('refuses a reused, expired, other-client or wrong-redirect code', async () => {
    const a = await codeFor('tweet.read');
    const ok = { grant_type: 'authorization_code', code: a.code, redirect_uri: REDIRECT, code_verifier: a.verifier };
    expect((await token(ok)).status).toBe(200);
    expect((await token(ok)).body).toEqual(TOKEN_ERR('Value passed for the authorization code was invalid.'));

    const b = await codeFor('tweet.read');
    await t.admin('POST', '/_sandbox/clock', { advance: '31s' });
    expect((await token({ ...ok, code: b.code, code_verifier: b.verifier })).body).toEqual(
      TOKEN_ERR('Value passed for the authorization code was invalid.'),
    );

    const c = await codeFor('tweet.read', { client: publicId });
    expect((await token({ ...ok, code: c.code, code_verifier: c.verifier })).body).toEqual(
      TOKEN_ERR('Value passed for the authorization code was invalid.'),
    );

    const d = await codeFor('tweet.read');
    expect(
      (await token({ ...ok, code: d.code, code_verifier: d.verifier, redirect_uri: 'http://127.0.0.1:10/callback' }))
        .body,
    ).toEqual(TOKEN_ERR('Value passed for the redirect uri did not match the uri of the authorization code.'));
  });

  it('rotates refresh tokens: the new pair works, the old refresh token and the old access token do not', async () => {
    const first = await login();
    const r1 = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token! });
    expect(r1.status, r1.text).toBe(200);
    expect(r1.body.refresh_token).not.toBe(first.refresh_token);
    expect(r1.body.access_token).not.toBe(first.access_token);
    expect(r1.body.scope).toBe(first.scope);
    expect((await bearer(r1.body.access_token as string, '/2/users/me')).status).toBe(200);
    const again = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token! });
    expect([again.status, again.body]).toEqual([400, TOKEN_ERR('Value passed for the token was invalid.')]);
    const old = await bearer(first.access_token!, '/2/users/me');
    expect([old.status, old.body]).toEqual([
      401,
      { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' },
    ]);
    expect(old.type).toContain('application/problem+json');
    expect((await token({ grant_type: 'refresh_token', refresh_token: r1.body.refresh_token as string })).status).toBe(
      200,
    );
    expect((await token({ grant_type: 'refresh_token' })).body).toEqual(
      TOKEN_ERR('Missing required parameter [refresh_token].'),
    );
  });

  it('expires access tokens after 2 hours on the sandbox clock; refresh still works', async () => {
    const b = await login();
    await t.admin('POST', '/_sandbox/clock', { advance: '119m' });
    expect((await bearer(b.access_token!, '/2/users/me')).status).toBe(200);
    await t.admin('POST', '/_sandbox/clock', { advance: '2m' });
    expect((await bearer(b.access_token!, '/2/users/me')).status).toBe(401);
    const r = await token({ grant_type: 'refresh_token', refresh_token: b.refresh_token! });
    expect((await bearer(r.body.access_token as string, '/2/users/me')).status).toBe(200);
  });
});

describe('revoke', () => {
  it('kills only the named token, needs token_type_hint, and answers revoked for unknown tokens', async () => {
    const b = await login();
    expect((await revoke({ token: b.access_token! })).body).toEqual(
      TOKEN_ERR('Missing required parameter [token_type_hint].'),
    );
    expect((await revoke({ token_type_hint: 'access_token' })).body).toEqual(
      TOKEN_ERR('Missing required parameter [token].'),
    );
    expect((await revoke({ token: b.access_token!, token_type_hint: 'access_token' }, null)).status).toBe(401);
    const r = await revoke({ token: b.access_token!, token_type_hint: 'access_token' });
    expect([r.status, r.body]).toEqual([200, { revoked: true }]);
    expect((await bearer(b.access_token!, '/2/users/me')).status).toBe(401);
    // The refresh token of the pair lives on until revoked itself.
    const fresh = await token({ grant_type: 'refresh_token', refresh_token: b.refresh_token! });
    expect(fresh.status).toBe(200);
    await revoke({ token: fresh.body.refresh_token as string, token_type_hint: 'refresh_token' });
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: fresh.body.refresh_token as string })).status,
    ).toBe(400);
    expect((await revoke({ token: 'never-issued', token_type_hint: 'access_token' })).body).toEqual({ revoked: true });
  });
});

describe('user tokens on v2 endpoints', () => {
  const FORBIDDEN = { title: 'Forbidden', type: 'about:blank', status: 403, detail: 'Forbidden' };

  it("GET /2/users/me: the token's user with tweet.read and users.read; users.read alone is 403", async () => {
    const b = await login('tweet.read users.read', 'sandbox_bob');
    const me = await bearer(b.access_token!, '/2/users/me');
    expect(me.body).toEqual({ data: { id: '6253282', name: 'Bob Sandbox', username: 'sandbox_bob' } });
    const narrow = await login('users.read');
    const r = await bearer(narrow.access_token!, '/2/users/me');
    expect([r.status, r.body]).toEqual([403, FORBIDDEN]);
  });

  it('endpoints without OAuth 2.0 user context answer unsupported-authentication naming the allowed kinds', async () => {
    const b = await login();
    const r = await bearer(b.access_token!, '/2/webhooks');
    expect(r.status).toBe(403);
    expect(r.body.title).toBe('Unsupported Authentication');
    expect(r.body.detail).toBe(
      'Authenticating with OAuth 2.0 User Context is forbidden for this endpoint.  Supported authentication types are [OAuth 2.0 Application-Only].',
    );
    const bearerToken = (await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: 'Basic ' + Buffer.from(`${t.sb.seed.api_key}:${t.sb.seed.api_secret}`).toString('base64'),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    }).then((x) => x.json())) as { access_token: string };
    const app = await bearer(bearerToken.access_token, '/2/users/me');
    expect(app.status).toBe(403);
    expect(app.body.detail).toContain(
      'Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].',
    );
  });

  it('activity subscriptions: each event type needs its scope', async () => {
    const b = await login('tweet.read users.read');
    const sub = (tok: string, event_type: string) =>
      bearer(tok, '/2/activity/subscriptions', {
        method: 'POST',
        body: JSON.stringify({ event_type, filter: { user_id: '783214' } }),
      });
    expect((await sub(b.access_token!, 'profile.update.bio')).status).toBe(200);
    const dm = await sub(b.access_token!, 'dm.received');
    expect([dm.status, dm.body]).toEqual([403, FORBIDDEN]);
    const withDm = await login('dm.read tweet.read');
    expect((await sub(withDm.access_token!, 'dm.received')).status).toBe(200);
    // Listing needs tweet.read and like.read (OpenAPI security of GET /2/activity/subscriptions).
    expect((await bearer(b.access_token!, '/2/activity/subscriptions')).status).toBe(403);
    expect(
      (await bearer((await login('tweet.read like.read')).access_token!, '/2/activity/subscriptions')).status,
    ).toBe(200);
  });

  it('OAuth 1.0a permissions override scopes: DM events need a direct-message token', async () => {
    const s = t.sb.seed;
    const keys = { consumerKey: s.api_key, consumerSecret: s.api_secret };
    const body = (event_type: string) => JSON.stringify({ event_type, filter: { user_id: '783214' } });
    const post = async (level: 'read' | 'read-write' | 'read-write-directmessages', event: string) => {
      const tok = t.sb.app.state.issueUserToken(s.api_key, '783214', level);
      const url = `${base}/2/activity/subscriptions`;
      const { oauth1Header } = await import('../../src/core/oauth1.js');
      const authorization = oauth1Header(
        { ...keys, token: tok.token, tokenSecret: tok.secret },
        { method: 'POST', url },
      );
      return ans(
        await fetch(url, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: body(event),
        }),
      );
    };
    const rw = await post('read-write', 'dm.received');
    expect(rw.status).toBe(403);
    expect(rw.body).toEqual({
      title: 'Forbidden',
      status: 403,
      detail: 'Your client app is not configured with the appropriate oauth1 app permissions for this endpoint.',
      type: 'https://api.x.com/2/problems/oauth1-permissions',
    });
    expect((await post('read-write-directmessages', 'dm.received')).status).toBe(200);
    expect((await post('read-write', 'profile.update.bio')).status).toBe(200);
    // Signed requests still count: the seeded owner's token (DM level) works as before.
    const owner = await signedFetch(
      { ...keys, token: s.access_token, tokenSecret: s.access_token_secret },
      'GET',
      `${base}/2/users/me`,
    );
    expect(owner.data).toEqual({ data: { id: s.user_id, name: 'xctl Developer', username: s.screen_name } });
  });
});
