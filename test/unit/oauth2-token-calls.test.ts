// OAuth 2.0 token calls are never retried (issue 43): an authorization code and a refresh token
// are single-use, so a second attempt after a lost answer spends them twice (a rotating refresh
// token retried loses the session). The real HttpClient over an HTTP registry: a 5xx, and a
// connection lost after the request was written, each give one request and the error, where a
// GET in the same client is retried (core-http.test.ts).
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/core/http.js';
import { exchangeCode, refreshGrant, revokeToken } from '../../src/core/oauth2.js';
import { HttpRegistry, json, networkError, route } from '../helpers/http-registry.js';
import { FakeClock, testContext } from '../helpers/test-context.js';

function client(reg: HttpRegistry) {
  const t = testContext({ transport: reg });
  const clock = new FakeClock();
  const http = new HttpClient({
    apiBase: 'https://api.x.com',
    adsBase: 'https://ads-api.x.com',
    io: t.ctx.io,
    credentials: async () => ({ profile: 'default', api_key: 'ck', api_secret: 'cs', source: {} }),
    bearer: async () => 'B',
    retryBaseMs: 100,
    retries: 4,
    now: () => clock.now(),
    sleep: (ms, s) => clock.sleep(ms, s),
    transport: reg,
  });
  return { http, clock, t };
}

const CLIENTS = [
  ['confidential', { clientId: 'cid', clientSecret: 'csecret' }],
  ['public', { clientId: 'cid' }],
] as const;

const CALLS = [
  [
    'code exchange',
    '/2/oauth2/token',
    (h: HttpClient, c: (typeof CLIENTS)[number][1]) =>
      exchangeCode(h, c, 'CODE', 'http://127.0.0.1:8765/callback', 'v'.repeat(43), 0),
  ],
  ['refresh', '/2/oauth2/token', (h: HttpClient, c: (typeof CLIENTS)[number][1]) => refreshGrant(h, c, 'RT', 0)],
  [
    'revoke',
    '/2/oauth2/revoke',
    (h: HttpClient, c: (typeof CLIENTS)[number][1]) => revokeToken(h, c, 'RT', 'refresh_token'),
  ],
] as const;

describe('OAuth 2.0 token calls are sent once, whatever happens', () => {
  for (const [who, creds] of CLIENTS)
    for (const [name, path, call] of CALLS) {
      it(`${name} (${who} client): a 503 is not retried`, async () => {
        const reg = new HttpRegistry().register(route('POST', path), json({ title: 'Service Unavailable' }, 503), {
          times: Infinity,
        });
        const { http, clock } = client(reg);
        await expect(call(http, creds)).rejects.toMatchObject({ status: 503 });
        expect(reg.requests).toHaveLength(1);
        expect(clock.sleeps).toEqual([]);
      });
      it(`${name} (${who} client): a connection lost mid-flight is not retried`, async () => {
        const reg = new HttpRegistry().register(route('POST', path), networkError('ECONNRESET'), { times: Infinity });
        const { http, clock } = client(reg);
        await expect(call(http, creds)).rejects.toThrow();
        expect(reg.requests).toHaveLength(1);
        expect(clock.sleeps).toEqual([]);
      });
    }

  it('the same client retries a GET (the tests above are not vacuous)', async () => {
    const reg = new HttpRegistry()
      .register(route('GET', '/2/users/me'), json({}, 503))
      .register(route('GET', '/2/users/me'), json({ data: {} }));
    const { http } = client(reg);
    await http.request({ method: 'GET', path: '/2/users/me', auth: 'none' });
    expect(reg.requests).toHaveLength(2);
  });
});
