// Three-legged OAuth 1.0a and the app-only bearer, driven through the official clients' public
// methods against a real sandbox: twitter-api-v2 (generateAuthLink, login, appLogin) and XDK
// (OAuth1.startOAuthFlow, getAccessToken, Client with oauth1). Both send oauth_token in the header
// and again in the query or body; the platform counts it once, so must the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TwitterApi, ApiResponseError } from 'twitter-api-v2';
import { Client, OAuth1 } from '@xdevplatform/xdk';
import { startTestSandbox, type TestSandbox } from '../helpers/cli.js';
import { decideOnPage } from '../helpers/oauth-client.js';
import { oauth1Header } from '../../src/core/oauth1.js';
import { routePlatformHosts, toSandbox, twitterApiSettings } from './helpers.js';

let t: TestSandbox;
let base: string;
const CALLBACK = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  t = await startTestSandbox();
  base = t.sb.seed.base_url;
});
afterAll(async () => t.close());

function keys() {
  return { appKey: t.sb.seed.api_key, appSecret: t.sb.seed.api_secret };
}

describe('twitter-api-v2', () => {
  it('signs in with a callback: generateAuthLink, the consent page, login(verifier)', async () => {
    const app = new TwitterApi(keys(), twitterApiSettings(base));
    const link = await app.generateAuthLink(CALLBACK, { linkMode: 'authorize' });
    expect(link.oauth_callback_confirmed).toBe('true');
    expect(link.url).toMatch(/^https:\/\/api\.x\.com\/oauth\/authorize\?oauth_token=/);
    const page = await decideOnPage(toSandbox(link.url, base), 'allow');
    const back = new URL(page.location!);
    expect(back.origin + back.pathname).toBe(CALLBACK);
    expect(back.searchParams.get('oauth_token')).toBe(link.oauth_token);

    const pending = new TwitterApi(
      { ...keys(), accessToken: link.oauth_token, accessSecret: link.oauth_token_secret },
      twitterApiSettings(base),
    );
    const signedIn = await pending.login(back.searchParams.get('oauth_verifier')!);
    expect(signedIn.userId).toMatch(/^\d+$/);
    expect(signedIn.screenName).toBe(t.sb.seed.screen_name);
    expect(signedIn.accessToken).not.toBe(link.oauth_token);

    const me = await signedIn.client.v1.verifyCredentials();
    expect(me.id_str).toBe(signedIn.userId);
    expect(me.screen_name).toBe(signedIn.screenName);
  });

  it('signs in with a PIN (oob) and a read-only access level', async () => {
    const app = new TwitterApi(keys(), twitterApiSettings(base));
    const link = await app.generateAuthLink('oob', { authAccessType: 'read' });
    expect(link.url).toMatch(/\/oauth\/authenticate\?oauth_token=/);
    const page = await decideOnPage(toSandbox(link.url, base), 'allow');
    expect(page.pin).toMatch(/^\d{7}$/);
    const pending = new TwitterApi(
      { ...keys(), accessToken: link.oauth_token, accessSecret: link.oauth_token_secret },
      twitterApiSettings(base),
    );
    const { client, userId } = await pending.login(page.pin!);
    const res = await client.v1.get('account/verify_credentials.json', {}, { fullResponse: true });
    expect(res.data.id_str).toBe(userId);
    expect(res.headers['x-access-level']).toBe('read');
  });

  it('a wrong verifier is refused (401), and the request token cannot be retried', async () => {
    const app = new TwitterApi(keys(), twitterApiSettings(base));
    const link = await app.generateAuthLink(CALLBACK);
    await decideOnPage(toSandbox(link.url, base), 'allow');
    const pending = new TwitterApi(
      { ...keys(), accessToken: link.oauth_token, accessSecret: link.oauth_token_secret },
      twitterApiSettings(base),
    );
    const err = await pending.login('not-the-verifier').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiResponseError);
    expect((err as ApiResponseError).code).toBe(401);
  });

  it('app-only bearer lifecycle: appLogin twice gives one token; it works until invalidated', async () => {
    const app = new TwitterApi(keys(), twitterApiSettings(base));
    const bearerClient = await app.appLogin();
    const again = await app.appLogin();
    const bearer = bearerClient.getActiveTokens();
    expect(bearer.type).toBe('oauth2');
    expect(again.getActiveTokens()).toEqual(bearer);
    const status = await bearerClient.v1.get('application/rate_limit_status.json');
    expect(status.rate_limit_context).toEqual({ application: `app-only:${t.sb.seed.api_key}` });

    // Invalidation is signed as the app owner (docs/contract.md, credentials section 5).
    const owner = new TwitterApi(
      { ...keys(), accessToken: t.sb.seed.access_token, accessSecret: t.sb.seed.access_token_secret },
      twitterApiSettings(base),
    );
    const token = (bearer as { bearerToken: string }).bearerToken;
    const gone = await owner.post('https://api.x.com/oauth2/invalidate_token', { access_token: token });
    expect(gone).toEqual({ access_token: token });
    const err = await bearerClient.v1.get('application/rate_limit_status.json').catch((e: unknown) => e);
    expect((err as ApiResponseError).code).toBe(401);
    expect((err as ApiResponseError).errors?.[0]).toMatchObject({ code: 89 });
    const fresh = (await app.appLogin()).getActiveTokens() as { bearerToken: string };
    expect(fresh.bearerToken).not.toBe(token);
  });
});

describe('XDK', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = routePlatformHosts(base);
  });
  afterAll(() => restore());

  it('signs in with a callback: startOAuthFlow, the consent page, getAccessToken, then a user-context call', async () => {
    const oauth1 = new OAuth1({ apiKey: t.sb.seed.api_key, apiSecret: t.sb.seed.api_secret, callback: CALLBACK });
    const url = await oauth1.startOAuthFlow();
    expect(url).toMatch(/^https:\/\/x\.com\/oauth\/authorize\?oauth_token=/);
    const page = await decideOnPage(url, 'allow');
    const back = new URL(page.location!);
    const token = await oauth1.getAccessToken(back.searchParams.get('oauth_verifier')!);
    expect(token.accessToken).toMatch(/^\d+-/);
    expect(token.accessTokenSecret).toBeTruthy();

    // XDK's OAuth1 object keeps signing with the request token's secret once it holds both (its
    // _buildOAuthHeader prefers requestToken), so a user builds a fresh one from the access token.
    const signedIn = new OAuth1({
      apiKey: t.sb.seed.api_key,
      apiSecret: t.sb.seed.api_secret,
      callback: CALLBACK,
      ...token,
    });
    const client = new Client({ baseUrl: base, oauth1: signedIn });
    const subs = await client.activity.getSubscriptions();
    expect(subs).toMatchObject({ meta: { totalSubscriptions: 0 } });
  });

  it('signs in with a PIN through the "Log in with X" link', async () => {
    const oauth1 = new OAuth1({ apiKey: t.sb.seed.api_key, apiSecret: t.sb.seed.api_secret, callback: 'oob' });
    const url = await oauth1.startOAuthFlow(true);
    expect(url).toMatch(/^https:\/\/x\.com\/i\/oauth\/authenticate\?oauth_token=/);
    const page = await decideOnPage(url, 'allow');
    const token = await oauth1.getAccessToken(page.pin!);
    expect(token.accessToken).toBeTruthy();
  });

  it('a wrong PIN fails the exchange', async () => {
    const oauth1 = new OAuth1({ apiKey: t.sb.seed.api_key, apiSecret: t.sb.seed.api_secret, callback: 'oob' });
    await decideOnPage(await oauth1.startOAuthFlow(), 'allow');
    await expect(oauth1.getAccessToken('0000000')).rejects.toThrow(/401/);
  });
});

describe("xctl's signer and the sandbox's verifier agree either way", () => {
  it('oauth_token in the header only, or also in the query, verifies the same', async () => {
    const k = {
      consumerKey: t.sb.seed.api_key,
      consumerSecret: t.sb.seed.api_secret,
      token: t.sb.seed.access_token,
      tokenSecret: t.sb.seed.access_token_secret,
    };
    for (const url of [
      `${base}/1.1/account/verify_credentials.json`,
      `${base}/1.1/account/verify_credentials.json?oauth_token=${t.sb.seed.access_token}`,
    ]) {
      const res = await fetch(url, { headers: { authorization: oauth1Header(k, { method: 'GET', url }) } });
      expect(res.status, url).toBe(200);
    }
  });

  it('a parameter repeated with a different value still counts twice (the signature must cover both)', async () => {
    const k = {
      consumerKey: t.sb.seed.api_key,
      consumerSecret: t.sb.seed.api_secret,
      token: t.sb.seed.access_token,
      tokenSecret: t.sb.seed.access_token_secret,
    };
    const signedFor = `${base}/1.1/account/verify_credentials.json`;
    const auth = oauth1Header(k, { method: 'GET', url: signedFor });
    const res = await fetch(`${signedFor}?oauth_token=someone-else`, { headers: { authorization: auth } });
    expect(res.status).toBe(401);
  });
});
