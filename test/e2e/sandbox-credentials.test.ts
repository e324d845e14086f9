// The sandbox's credential rules (credentials-webhooks.md 3.1, 4.1, 4.2, 5, 7; platform-notes.md
// "Token endpoints") checked with plain HTTP clients: every transition of both credential tables
// and every error code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/cli.js';
import { basicFetch, bearerFetch, decideOnPage, signedFetch, type Keys } from '../helpers/oauth-client.js';
import { oauth1Header } from '../../src/core/oauth1.js';

let t: TestSandbox;
let base: string;
let app: Keys;
let owner: Keys;

beforeAll(async () => {
  t = await startTestSandbox({ clock: 'manual', tokenRequestsPerMinute: 4 });
  const s = t.sb.seed;
  base = s.base_url;
  app = { consumerKey: s.api_key, consumerSecret: s.api_secret };
  owner = { ...app, token: s.access_token, tokenSecret: s.access_token_secret };
});
afterAll(() => t.close());

const verifyCreds = (keys: Keys) => signedFetch(keys, 'GET', `${base}/1.1/account/verify_credentials.json`);
const code = (a: { data: Record<string, unknown> }) =>
  (a.data.errors as Array<{ code: number }> | undefined)?.[0]?.code;

async function requestToken(callback: string, query = ''): Promise<{ token: string; secret: string }> {
  const r = await signedFetch(app, 'POST', `${base}/oauth/request_token${query}`, {
    extra: { oauth_callback: callback },
  });
  expect(r.status, r.text).toBe(200);
  expect(r.data.oauth_callback_confirmed).toBe('true');
  return { token: r.data.oauth_token as string, secret: r.data.oauth_token_secret as string };
}

/** The whole three-legged flow with a loopback callback; returns the access token pairs. */
async function login(screenName = 'sandbox_alice', query = ''): Promise<Record<string, string>> {
  const rt = await requestToken('http://127.0.0.1:9/callback', query);
  const page = await decideOnPage(`${base}/oauth/authorize?oauth_token=${rt.token}`, 'allow', { screenName });
  const verifier = new URL(page.location!).searchParams.get('oauth_verifier')!;
  const r = await signedFetch(
    { ...app, token: rt.token, tokenSecret: rt.secret },
    'POST',
    `${base}/oauth/access_token`,
    { extra: { oauth_verifier: verifier } },
  );
  expect(r.status, r.text).toBe(200);
  return r.data as Record<string, string>;
}

describe('OAuth 1.0a signatures (401 code 32)', () => {
  it('accepts a good signature and rejects a wrong secret, a stale timestamp, a reused nonce and an unknown key', async () => {
    const good = await verifyCreds(owner);
    expect(good.status).toBe(200);
    expect(good.data.screen_name).toBe('xctl_dev');
    expect(good.headers.get('x-rate-limit-limit')).toMatch(/^\d+$/);

    const wrong = await verifyCreds({ ...owner, consumerSecret: 'not-the-secret' });
    expect([wrong.status, code(wrong)]).toEqual([401, 32]);
    const wrongTokenSecret = await verifyCreds({ ...owner, tokenSecret: 'not-the-token-secret' });
    expect([wrongTokenSecret.status, code(wrongTokenSecret)]).toEqual([401, 32]);

    const stale = await signedFetch(owner, 'GET', `${base}/1.1/account/verify_credentials.json`, {
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    expect([stale.status, code(stale)]).toEqual([401, 32]);

    const first = await signedFetch(owner, 'GET', `${base}/1.1/account/verify_credentials.json`, {
      nonce: 'fixed-nonce-1',
    });
    expect(first.status).toBe(200);
    const replay = await signedFetch(owner, 'GET', `${base}/1.1/account/verify_credentials.json`, {
      authorization: first.authorization,
    });
    expect([replay.status, code(replay)]).toEqual([401, 32]);

    const unknown = await verifyCreds({ ...owner, consumerKey: 'no-such-app-key' });
    expect([unknown.status, code(unknown)]).toEqual([401, 32]);

    // A tampered query (signed one thing, sent another) fails the signature.
    const signedForA1 = oauth1Header(owner, { method: 'GET', url: `${base}/1.1/account/verify_credentials.json?a=1` });
    const res = await fetch(`${base}/1.1/account/verify_credentials.json?a=2`, {
      headers: { authorization: signedForA1 },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { errors: Array<{ code: number }> }).errors[0]!.code).toBe(32);
    const sameQuery = await fetch(`${base}/1.1/account/verify_credentials.json?a=1`, {
      headers: {
        authorization: oauth1Header(owner, { method: 'GET', url: `${base}/1.1/account/verify_credentials.json?a=1` }),
      },
    });
    expect(sameQuery.status).toBe(200); // the control: the same header on the signed query passes

    const none = await fetch(`${base}/1.1/account/verify_credentials.json`);
    expect(none.status).toBe(401);
  });
});

describe('request token', () => {
  it('requires oauth_callback; accepts oob and loopback; refuses an unregistered callback; checks x_auth_access_type', async () => {
    const missing = await signedFetch(app, 'POST', `${base}/oauth/request_token`);
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.data)).toMatch(/oauth_callback is required/);

    const evil = await signedFetch(app, 'POST', `${base}/oauth/request_token`, {
      extra: { oauth_callback: 'https://evil.example/cb' },
    });
    expect([evil.status, code(evil)]).toEqual([403, 415]);

    await requestToken('oob');
    await requestToken('http://localhost:8123/cb');
    const rt = await requestToken('http://127.0.0.1:8123/callback', '?x_auth_access_type=read');
    expect(rt.token).toMatch(/^\w+$/);

    const bad = await signedFetch(app, 'POST', `${base}/oauth/request_token?x_auth_access_type=admin`, {
      extra: { oauth_callback: 'oob' },
    });
    expect(bad.status).toBe(400);
  });
});

describe('authorize and authenticate pages', () => {
  it('serve HTML with Allow and Deny; screen_name preselects; force_login asks for credentials', async () => {
    const rt = await requestToken('oob');
    const page = await fetch(`${base}/oauth/authorize?oauth_token=${rt.token}&screen_name=sandbox_bob`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('id="allow"');
    expect(html).toContain('id="deny"');
    expect(html).toMatch(/value="sandbox_bob" checked/);
    expect(html).not.toContain('id="password"');

    const forced = await (
      await fetch(`${base}/oauth/authenticate?oauth_token=${rt.token}&force_login=true&screen_name=sandbox_alice`)
    ).text();
    expect(forced).toMatch(/id="username" name="screen_name" value="sandbox_alice"/);
    expect(forced).toContain('id="password"');
    // Without a password the forced login does not go through.
    const noPw = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      body: new URLSearchParams({
        oauth_token: rt.token,
        decision: 'allow',
        screen_name: 'sandbox_alice',
        force_login: 'true',
      }),
    });
    expect(noPw.status).toBe(400);

    const gone = await fetch(`${base}/oauth/authorize?oauth_token=nope`);
    expect(gone.status).toBe(400);
  });

  it('oob: Allow shows the PIN in id="pin", and the PIN is the verifier', async () => {
    const rt = await requestToken('oob');
    const res = await decideOnPage(`${base}/oauth/authorize?oauth_token=${rt.token}`, 'allow', {
      screenName: 'sandbox_bob',
    });
    expect(res.status).toBe(200);
    expect(res.pin).toMatch(/^\d{7}$/);
    const at = await signedFetch(
      { ...app, token: rt.token, tokenSecret: rt.secret },
      'POST',
      `${base}/oauth/access_token`,
      { extra: { oauth_verifier: res.pin! } },
    );
    expect(at.status).toBe(200);
    expect(at.data).toMatchObject({ user_id: '6253282', screen_name: 'sandbox_bob' });
  });

  it('authenticate skips the page for a user who already approved, unless force_login', async () => {
    const first = await requestToken('http://127.0.0.1:9/cb');
    const allowed = await decideOnPage(`${base}/oauth/authenticate?oauth_token=${first.token}`, 'allow', {
      screenName: 'sandbox_alice',
    });
    expect(allowed.cookie).toMatch(/^sandbox_user=783214$/);
    const second = await requestToken('http://127.0.0.1:9/cb');
    const again = await fetch(`${base}/oauth/authenticate?oauth_token=${second.token}`, {
      redirect: 'manual',
      headers: { cookie: allowed.cookie! },
    });
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location')!).searchParams.get('oauth_verifier')).toBeTruthy();
    const third = await requestToken('http://127.0.0.1:9/cb');
    const forced = await fetch(`${base}/oauth/authenticate?oauth_token=${third.token}&force_login=true`, {
      redirect: 'manual',
      headers: { cookie: allowed.cookie! },
    });
    expect(forced.status).toBe(200);
    // authorize always asks (desktop applications).
    const viaAuthorize = await fetch(`${base}/oauth/authorize?oauth_token=${third.token}`, {
      redirect: 'manual',
      headers: { cookie: allowed.cookie! },
    });
    expect(viaAuthorize.status).toBe(200);
  });

  it('Deny redirects with denied=<token> and the request token can no longer be exchanged', async () => {
    const rt = await requestToken('http://127.0.0.1:9/callback');
    const res = await decideOnPage(`${base}/oauth/authorize?oauth_token=${rt.token}`, 'deny');
    expect(res.status).toBe(302);
    const loc = new URL(res.location!);
    expect(loc.searchParams.get('denied')).toBe(rt.token);
    expect(loc.searchParams.get('oauth_verifier')).toBeNull();
    const at = await signedFetch(
      { ...app, token: rt.token, tokenSecret: rt.secret },
      'POST',
      `${base}/oauth/access_token`,
      { extra: { oauth_verifier: 'x' } },
    );
    expect(at.status).toBe(401);
  });

  it('a request token expires after 15 minutes of sandbox time', async () => {
    const rt = await requestToken('oob');
    await t.admin('POST', '/_sandbox/clock', { advance: '16m' });
    expect((await fetch(`${base}/oauth/authorize?oauth_token=${rt.token}`)).status).toBe(400);
  });
});

describe('access token: the verifier is strictly required and single-use', () => {
  it('missing verifier fails; wrong verifier burns the request token; the right one works once', async () => {
    const rt = await requestToken('http://127.0.0.1:9/callback');
    const page = await decideOnPage(`${base}/oauth/authorize?oauth_token=${rt.token}`, 'allow', {
      screenName: 'sandbox_alice',
    });
    const verifier = new URL(page.location!).searchParams.get('oauth_verifier')!;
    const rtKeys = { ...app, token: rt.token, tokenSecret: rt.secret };
    const missing = await signedFetch(rtKeys, 'POST', `${base}/oauth/access_token`);
    expect(missing.status).toBe(401);
    expect(missing.text).toMatch(/oauth_verifier/);

    const ok = await signedFetch(rtKeys, 'POST', `${base}/oauth/access_token`, { extra: { oauth_verifier: verifier } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/x-www-form-urlencoded/);
    expect(Object.keys(ok.data).sort()).toEqual(['oauth_token', 'oauth_token_secret', 'screen_name', 'user_id']);
    expect(ok.data).toMatchObject({ user_id: '783214', screen_name: 'sandbox_alice' });

    const reuse = await signedFetch(rtKeys, 'POST', `${base}/oauth/access_token`, {
      extra: { oauth_verifier: verifier },
    });
    expect(reuse.status).toBe(401);
    expect(reuse.text).toMatch(/Invalid request token/);

    const rt2 = await requestToken('http://127.0.0.1:9/callback');
    const page2 = await decideOnPage(`${base}/oauth/authorize?oauth_token=${rt2.token}`, 'allow');
    const good2 = new URL(page2.location!).searchParams.get('oauth_verifier')!;
    const rt2Keys = { ...app, token: rt2.token, tokenSecret: rt2.secret };
    const wrong = await signedFetch(rt2Keys, 'POST', `${base}/oauth/access_token`, {
      extra: { oauth_verifier: 'guess' },
    });
    expect(wrong.status).toBe(401);
    const late = await signedFetch(rt2Keys, 'POST', `${base}/oauth/access_token`, { extra: { oauth_verifier: good2 } });
    expect(late.status).toBe(401);
  });

  it('x_auth_access_type=read yields a read-only token (x-access-level)', async () => {
    const tok = await login('sandbox_bob', '?x_auth_access_type=read');
    const me = await verifyCreds({ ...app, token: tok.oauth_token, tokenSecret: tok.oauth_token_secret });
    expect(me.headers.get('x-access-level')).toBe('read');
    const full = await login('sandbox_bob');
    const me2 = await verifyCreds({ ...app, token: full.oauth_token, tokenSecret: full.oauth_token_secret });
    expect(me2.headers.get('x-access-level')).toBe('read-write-directmessages');
  });
});

describe('user token invalidation', () => {
  it('issued -> invalidated: later use is 401 code 89; a new login yields a different token', async () => {
    const tok = await login('sandbox_alice');
    const keys = { ...app, token: tok.oauth_token, tokenSecret: tok.oauth_token_secret };
    expect((await verifyCreds(keys)).status).toBe(200);
    const inv = await signedFetch(keys, 'POST', `${base}/1.1/oauth/invalidate_token`);
    expect(inv.status).toBe(200);
    expect(inv.data).toEqual({ access_token: tok.oauth_token });
    const after = await verifyCreds(keys);
    expect([after.status, code(after)]).toEqual([401, 89]);
    expect(JSON.stringify(after.data)).toMatch(/Invalid or expired token/);
    const again = await signedFetch(keys, 'POST', `${base}/1.1/oauth/invalidate_token.json`);
    expect([again.status, code(again)]).toEqual([401, 89]);
    const next = await login('sandbox_alice');
    expect(next.oauth_token).not.toBe(tok.oauth_token);
    expect((await verifyCreds({ ...app, token: next.oauth_token, tokenSecret: next.oauth_token_secret })).status).toBe(
      200,
    );
    // The .json suffix is the same endpoint.
    const viaJson = await signedFetch(
      { ...app, token: next.oauth_token, tokenSecret: next.oauth_token_secret },
      'POST',
      `${base}/1.1/oauth/invalidate_token.json`,
    );
    expect(viaJson.status).toBe(200);
  });

  it('invalidate_token needs a user token (consumer-only signing is refused)', async () => {
    const r = await signedFetch(app, 'POST', `${base}/1.1/oauth/invalidate_token`);
    expect([r.status, code(r)]).toEqual([401, 32]);
  });
});

describe('OAuth 2.0 app-only bearer', () => {
  const rls = `/1.1/application/rate_limit_status.json`;
  it('none -> issued -> same on repeat -> invalidated by the owner -> a different one; 403 code 99 when asked too often', async () => {
    await t.admin('POST', '/_sandbox/clock', { advance: '2m' }); // a fresh token-request window
    const url = `${base}/oauth2/token`;
    const s = t.sb.seed;
    const badBasic = await basicFetch(s.api_key, 'wrong', url, 'grant_type=client_credentials');
    expect([badBasic.status, code(badBasic)]).toEqual([403, 99]);
    const noGrant = await basicFetch(s.api_key, s.api_secret, url, '');
    expect([noGrant.status, code(noGrant)]).toEqual([400, 170]);
    const queryGrant = await basicFetch(s.api_key, s.api_secret, `${url}?grant_type=client_credentials`, '');
    expect(queryGrant.status).toBe(400);
    const wrongGrant = await basicFetch(s.api_key, s.api_secret, url, 'grant_type=password');
    expect([wrongGrant.status, code(wrongGrant)]).toEqual([403, 99]);

    await t.admin('POST', '/_sandbox/clock', { advance: '2m' });
    const one = await basicFetch(s.api_key, s.api_secret, url, 'grant_type=client_credentials');
    expect(one.status).toBe(200);
    expect(one.data.token_type).toBe('bearer');
    const bearer = one.data.access_token as string;
    expect(bearer).toMatch(/^AAAA/);
    expect(bearer).toMatch(/%2F|%3D/); // the URL-encoded form of platform-notes.md
    const two = await basicFetch(s.api_key, s.api_secret, url, 'grant_type=client_credentials');
    expect(two.data.access_token).toBe(bearer);

    const used = await bearerFetch(bearer, base + rls);
    expect(used.status).toBe(200);
    expect(used.data.rate_limit_context).toEqual({ application: `app-only:${s.api_key}` });
    // An app-only bearer on a user endpoint: 403 code 220.
    const onUser = await bearerFetch(bearer, `${base}/1.1/account/verify_credentials.json`);
    expect([onUser.status, code(onUser)]).toEqual([403, 220]);

    // Too often: the limit is 4 per minute here; the 5th in the window is refused.
    await basicFetch(s.api_key, s.api_secret, url, 'grant_type=client_credentials');
    await basicFetch(s.api_key, s.api_secret, url, 'grant_type=client_credentials');
    const tooOften = await basicFetch(s.api_key, s.api_secret, url, 'grant_type=client_credentials');
    expect([tooOften.status, code(tooOften)]).toEqual([403, 99]);
    expect(JSON.stringify(tooOften.data)).toMatch(/authenticity_token_error/);
    await t.admin('POST', '/_sandbox/clock', { advance: '61s' });
    expect((await basicFetch(s.api_key, s.api_secret, url, 'grant_type=client_credentials')).data.access_token).toBe(
      bearer,
    );

    // Invalidation: signed as the application owner, access_token names the bearer.
    const inv = `${base}/oauth2/invalidate_token`;
    const alice = await login('sandbox_alice');
    const notOwner = await signedFetch(
      { ...app, token: alice.oauth_token, tokenSecret: alice.oauth_token_secret },
      'POST',
      inv,
      { form: { access_token: bearer } },
    );
    expect(notOwner.status).toBe(403);
    const withBearer = await bearerFetch(bearer, `${inv}?access_token=${encodeURIComponent(bearer)}`, 'POST');
    expect([withBearer.status, code(withBearer)]).toEqual([403, 220]); // must be OAuth 1.0a as the owner
    const missing = await signedFetch(owner, 'POST', inv);
    expect([missing.status, code(missing)]).toEqual([400, 170]);
    const other = await signedFetch(owner, 'POST', inv, { form: { access_token: 'AAAAnot-this-one' } });
    expect(other.status).toBe(400);
    const done = await signedFetch(owner, 'POST', `${inv}?access_token=${encodeURIComponent(bearer)}`);
    expect(done.status).toBe(200);
    expect(done.data).toEqual({ access_token: bearer });

    const stale = await bearerFetch(bearer, base + rls);
    expect([stale.status, code(stale)]).toEqual([401, 89]);
    const twice = await signedFetch(owner, 'POST', inv, { form: { access_token: bearer } });
    expect(twice.status).toBe(400);

    await t.admin('POST', '/_sandbox/clock', { advance: '61s' });
    const fresh = await basicFetch(s.api_key, s.api_secret, url, 'grant_type=client_credentials');
    expect(fresh.status).toBe(200);
    expect(fresh.data.access_token).not.toBe(bearer);
    expect((await bearerFetch(fresh.data.access_token as string, base + rls)).status).toBe(200);
  });
});

// The platform refuses an OAuth header that is not comma-separated pairs (RFC 5849 3.5.1); a
// lenient sandbox let a client that drops the separators pass every test here (TESTING.md).
describe('OAuth 1.0a header parsing is as strict as the platform', () => {
  const url = () => `${base}/1.1/account/verify_credentials.json?include_entities=true&include_entities=false`;

  it('signs and accepts repeated query keys', async () => {
    const r = await signedFetch(owner, 'GET', url());
    expect(r.status, r.text).toBe(200);
  });

  it('answers 401 code 32 to the same header without its separators, or with a name twice', async () => {
    const good = oauth1Header(owner, { method: 'GET', url: url() });
    for (const authorization of [good.replace(/", /g, '"'), good.replace(/", /g, '" '), `${good}, oauth_nonce="x"`]) {
      const r = await signedFetch(owner, 'GET', url(), { authorization });
      expect(r.status, authorization).toBe(401);
      expect(code(r)).toBe(32);
    }
    const ok = await signedFetch(owner, 'GET', url(), { authorization: good });
    expect(ok.status, ok.text).toBe(200);
  });
});
