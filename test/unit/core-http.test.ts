// core/http.ts over an HTTP registry: the auth header of each mode, what is retried and what is
// not (and the hint when a retry may repeat an applied change), error mapping, rate-limit waits
// and the redacted --verbose trace.
import { describe, expect, it } from 'vitest';
import { HttpClient, type HttpConfig } from '../../src/core/http.js';
import { ApiError, AuthError, NetworkError, RateLimitError } from '../../src/core/errors.js';
import type { Credentials } from '../../src/core/config.js';
import { HttpRegistry, json, networkError, route, text } from '../helpers/http-registry.js';
import { FakeClock, TEST_NOW, testContext } from '../helpers/test-context.js';

const creds: Credentials = {
  profile: 'default',
  api_key: 'ck',
  api_secret: 'cs',
  access_token: '1-at',
  access_token_secret: 'ats',
  source: {},
};

function client(reg: HttpRegistry, o: Partial<HttpConfig> = {}) {
  const t = testContext({ transport: reg });
  const clock = new FakeClock();
  const http = new HttpClient({
    apiBase: 'https://api.x.com',
    adsBase: 'https://ads-api.x.com',
    io: t.ctx.io,
    credentials: async () => creds,
    bearer: async () => 'BEARER-1',
    retryBaseMs: 100,
    now: () => clock.now(),
    sleep: (ms, s) => clock.sleep(ms, s),
    transport: reg,
    ...o,
  });
  return { http, t, clock };
}

describe('auth headers', () => {
  it('user: OAuth 1.0a with the user token; consumer: without; app: Bearer; basic: key:secret; none: nothing', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/a'), json({}), { times: 5 });
    const { http } = client(reg);
    for (const auth of ['user', 'consumer', 'app', 'basic', 'none'] as const)
      await http.request({ method: 'GET', path: '/a', auth });
    const [user, consumer, app, basic, none] = reg.requests.map((r) => r.headers.authorization);
    expect(user).toMatch(/^OAuth /);
    expect(user).toContain('oauth_consumer_key="ck"');
    expect(user).toContain('oauth_token="1-at"');
    expect(user).toContain('oauth_signature_method="HMAC-SHA1"');
    expect(consumer).toMatch(/^OAuth /);
    expect(consumer).not.toContain('oauth_token=');
    expect(app).toBe('Bearer BEARER-1');
    expect(basic).toBe('Basic ' + Buffer.from('ck:cs').toString('base64'));
    expect(none).toBeUndefined();
    expect(reg.requests[0]!.headers['user-agent']).toBe('xctl');
    reg.verify();
  });

  it('host ads goes to the ads base; a query is appended; form bodies are signed and encoded', async () => {
    const reg = new HttpRegistry();
    reg.register(route('POST', '/12/accounts/a1/campaigns', { query: { with_deleted: 'true' } }), json({ data: {} }));
    const { http } = client(reg);
    await http.request({
      method: 'POST',
      host: 'ads',
      path: '/12/accounts/a1/campaigns',
      query: { with_deleted: true, ids: ['x', 'y'], skip: undefined },
      form: { name: 'a b&c' },
    });
    const r = reg.requests[0]!;
    expect(r.url.toString()).toBe('https://ads-api.x.com/12/accounts/a1/campaigns?with_deleted=true&ids=x%2Cy');
    expect(r.body).toBe('name=a%20b%26c');
    expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    reg.verify();
  });

  it('no user token: an AuthError naming the way out, nothing sent', async () => {
    const reg = new HttpRegistry();
    const { http } = client(reg, {
      credentials: async () => ({ profile: 'default', api_key: 'ck', api_secret: 'cs', source: {} }),
    });
    await expect(http.request({ method: 'GET', path: '/a' })).rejects.toThrow(AuthError);
    expect(reg.requests).toEqual([]);
  });
});

describe('retries', () => {
  it('a GET is retried after a 5xx and a lost connection, with backoff, and says so', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/a'), json({ title: 'boom' }, 503));
    reg.register(route('GET', '/a'), networkError('ECONNRESET'));
    reg.register(route('GET', '/a'), json({ ok: 1 }));
    const { http, t, clock } = client(reg);
    const res = await http.request({ method: 'GET', path: '/a' });
    expect(res.data).toEqual({ ok: 1 });
    expect(reg.requests).toHaveLength(3);
    expect(clock.sleeps).toHaveLength(2);
    // equal jitter: half the cap plus up to half again
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(50);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(100);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(100);
    expect(clock.sleeps[1]).toBeLessThanOrEqual(200);
    expect(t.stderr()).toMatch(
      /^HTTP 503 from GET \/a; retrying in \d+ ms \(attempt 2 of 5\)\nconnection to api.x.com closed unexpectedly; retrying in \d+ ms \(attempt 3 of 5\)\n$/,
    );
    reg.verify();
  });

  it('gives up after the last attempt with the last error', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/a'), json({ title: 'Service Unavailable' }, 503), { times: 3 });
    const { http } = client(reg, { retries: 2 });
    await expect(http.request({ method: 'GET', path: '/a' })).rejects.toMatchObject({
      status: 503,
      message: 'Service Unavailable (HTTP 503)',
    });
    expect(reg.requests).toHaveLength(3);
  });

  it('a POST is not retried after a 5xx or a connection lost mid-flight, and the error says it may have been applied', async () => {
    const reg = new HttpRegistry();
    reg.register(route('POST', '/a'), json({ title: 'Internal Error' }, 500));
    reg.register(route('POST', '/b'), networkError('ECONNRESET'));
    const { http } = client(reg);
    const e1 = await http.request({ method: 'POST', path: '/a', json: {} }).catch((e: ApiError) => e);
    expect(e1).toBeInstanceOf(ApiError);
    expect((e1 as ApiError).hint).toBe('not retried: the POST may have been applied');
    const e2 = await http.request({ method: 'POST', path: '/b', json: {} }).catch((e: NetworkError) => e);
    expect(e2).toBeInstanceOf(NetworkError);
    expect((e2 as NetworkError).hint).toBe(
      'the POST may have been applied before the connection failed: check before repeating it',
    );
    expect(reg.requests).toHaveLength(2);
    reg.verify();
  });

  it('a POST whose connection was refused (never sent) is retried', async () => {
    const reg = new HttpRegistry();
    reg.register(route('POST', '/a'), networkError('ECONNREFUSED'));
    reg.register(route('POST', '/a'), json({ ok: true }));
    const { http } = client(reg);
    expect((await http.request({ method: 'POST', path: '/a', json: {} })).data).toEqual({ ok: true });
    reg.verify();
  });

  it('a DELETE retried after a 5xx that then meets 404 says the first attempt most likely deleted it', async () => {
    const reg = new HttpRegistry();
    reg.register(route('DELETE', '/x/1'), json({ title: 'oops' }, 502));
    reg.register(route('DELETE', '/x/1'), json({ title: 'Not Found' }, 404));
    const { http } = client(reg);
    await expect(http.request({ method: 'DELETE', path: '/x/1' })).rejects.toMatchObject({
      status: 404,
      hint: 'the DELETE was retried after "HTTP 502": the first attempt most likely deleted it',
    });
  });

  it('retry: false surfaces the first failure', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/a'), json({}, 503));
    const { http } = client(reg);
    await expect(http.request({ method: 'GET', path: '/a', retry: false })).rejects.toMatchObject({ status: 503 });
    expect(reg.requests).toHaveLength(1);
  });
});

describe('error mapping', () => {
  it('v1.1, v2 problem and ads shapes become typed errors with status, code, parameter and hint', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/v1'), json({ errors: [{ code: 32, message: 'Could not authenticate you.' }] }, 401));
    reg.register(
      route('GET', '/v2'),
      json({ title: 'Invalid Request', detail: 'bad url', type: 'https://api.x.com/2/problems/invalid-request' }, 400),
    );
    reg.register(
      route('GET', '/ads'),
      json({ errors: [{ code: 'INVALID_PARAMETER', message: 'bad', parameter: 'name' }] }, 400),
    );
    const { http } = client(reg);
    const v1 = await http.request({ method: 'GET', path: '/v1' }).catch((e: AuthError) => e);
    expect(v1).toBeInstanceOf(AuthError);
    expect(v1).toMatchObject({
      status: 401,
      code: 32,
      exitCode: 3,
      message: 'Could not authenticate you. (HTTP 401, code 32)',
    });
    expect((v1 as AuthError).hint).toMatch(/signature was rejected/);
    await expect(http.request({ method: 'GET', path: '/v2' })).rejects.toMatchObject({
      code: 'invalid-request',
      message: 'Invalid Request: bad url (HTTP 400, code invalid-request)',
    });
    await expect(http.request({ method: 'GET', path: '/ads' })).rejects.toMatchObject({
      parameter: 'name',
      exitCode: 1,
      message: 'bad (HTTP 400, code INVALID_PARAMETER, parameter name)',
    });
    reg.verify();
  });

  it('a rejected bearer (401 code 89 on an app call) is dropped and the user told why', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/2/webhooks'),
      json({ errors: [{ code: 89, message: 'Invalid or expired token.' }] }, 401),
    );
    let dropped = 0;
    const { http } = client(reg, {
      onBearerRejected: async () => {
        dropped++;
        return 'the hint the owner of the bearer gives';
      },
    });
    await expect(http.request({ method: 'GET', path: '/2/webhooks', auth: 'app' })).rejects.toMatchObject({
      hint: 'the hint the owner of the bearer gives',
    });
    expect(dropped).toBe(1);
  });

  it('the v2 form of a rejected bearer (a bare 401 problem) drops it too; code 32 does not', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/2/webhooks'),
      json({ title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' }, 401),
    );
    reg.register(route('GET', '/1.1/x'), json({ errors: [{ code: 32, message: 'Could not authenticate you.' }] }, 401));
    let dropped = 0;
    const { http } = client(reg, { onBearerRejected: async () => void dropped++ });
    await expect(http.request({ method: 'GET', path: '/2/webhooks', auth: 'app' })).rejects.toMatchObject({
      status: 401,
    });
    expect(dropped).toBe(1);
    await expect(http.request({ method: 'GET', path: '/1.1/x', auth: 'app' })).rejects.toMatchObject({ status: 401 });
    expect(dropped).toBe(1);
  });

  it('HTML or malformed JSON on success is an ApiError pointing at --base-url', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/html'), text('<html><body>login</body></html>', 200, 'text/html'));
    reg.register(route('GET', '/bad'), text('{"data":', 200, 'application/json'));
    const { http } = client(reg);
    await expect(http.request({ method: 'GET', path: '/html' })).rejects.toThrow(
      'expected JSON from GET /html but the server answered with an HTML page',
    );
    await expect(http.request({ method: 'GET', path: '/bad' })).rejects.toMatchObject({
      message: 'the server answered 200 with malformed JSON',
      hint: 'is --base-url pointing at the API?',
    });
  });

  it('plain http to a public host is refused before sending', async () => {
    const reg = new HttpRegistry();
    const { http } = client(reg, { apiBase: 'http://api.example.com' });
    await expect(http.request({ method: 'GET', path: '/a' })).rejects.toThrow(
      /plain http is refused for api.example.com/,
    );
    expect(reg.requests).toEqual([]);
  });
});

describe('rate limits', () => {
  const reset = TEST_NOW / 1000 + 60;
  it('a 429 waits until the reset (plus a margin) and retries; readings are kept per endpoint template', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/12/accounts/123/x'),
      json({ errors: [{ code: 'TOO_MANY_REQUESTS', message: 'slow down' }] }, 429, {
        'x-rate-limit-limit': '10',
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(reset),
      }),
    );
    reg.register(
      route('GET', '/12/accounts/123/x'),
      json({ data: [] }, 200, {
        'x-account-rate-limit-limit': '100',
        'x-account-rate-limit-remaining': '99',
        'x-account-rate-limit-reset': String(reset + 900),
      }),
    );
    const { http, t, clock } = client(reg);
    const res = await http.request({ method: 'GET', path: '/12/accounts/123/x' });
    expect(clock.sleeps).toEqual([60_250]);
    expect(t.stderr()).toBe(
      `rate limited on GET /12/accounts/123/x; waiting 60 s until ${new Date(reset * 1000).toISOString()}\n`,
    );
    expect(res.rateLimit).toEqual({ limit: 100, remaining: 99, reset: reset + 900, scope: 'account' });
    expect(http.rateLimits.get('GET /12/accounts/:id/x')).toEqual(res.rateLimit);
    reg.verify();
  });

  it('a reset beyond --max-wait is a RateLimitError with the reset time, not a wait', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/a'),
      json({ errors: [{ code: 88, message: 'Rate limit exceeded' }] }, 429, {
        'x-rate-limit-limit': '1',
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(reset + 3600),
      }),
    );
    const { http, clock } = client(reg, { maxWaitSec: 60 });
    const err = await http.request({ method: 'GET', path: '/a' }).catch((e: RateLimitError) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, resetAt: reset + 3600 });
    expect((err as RateLimitError).hint).toMatch(/rate limit exceeded/);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('--verbose', () => {
  it('traces request and response on stderr with the authorization and secret-looking params redacted', async () => {
    const reg = new HttpRegistry();
    reg.register(route('POST', '/oauth2/invalidate_token'), json({ access_token: 'x' }, 200, { 'x-thing': '1' }));
    const { http, t } = client(reg, { verbose: true });
    await http.request({
      method: 'POST',
      path: '/oauth2/invalidate_token',
      query: { client_secret: 'shh' },
      form: { access_token: 'SECRET-BEARER', name: 'n' },
    });
    const err = t.stderr();
    expect(err).toContain('> POST https://api.x.com/oauth2/invalidate_token?client_secret=[redacted]\n');
    expect(err).toContain('> authorization: OAuth [redacted]\n');
    expect(err).toContain('> body (form): access_token=[redacted]&name=n\n');
    expect(err).toMatch(/< 200 \(\d+ ms\)\n/);
    expect(err).toContain('< x-thing: 1\n');
    expect(err).not.toContain('SECRET-BEARER');
    expect(err).not.toContain('shh');
  });
});
