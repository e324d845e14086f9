// The sandbox's memory stays bounded under load (issue 25 item 15): OAuth 1.0a nonces are capped
// (replays stay refused), and the request log and deliveries have caps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth1Header } from '../../src/core/oauth1.js';
import { NonceStore } from '../../src/sandbox/nonce-store.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';

describe('NonceStore', () => {
  it('refuses a replay, keeps at most `cap` nonces, and refuses the timestamps it forgot', () => {
    const s = new NonceStore(3);
    const now = 1_000_000;
    expect(s.use('a:n1:100', 100, now, 60_000)).toBe(true);
    expect(s.use('a:n1:100', 100, now, 60_000)).toBe(false);
    for (const [n, ts] of [
      ['n2', 101],
      ['n3', 102],
      ['n4', 103],
      ['n5', 104],
    ] as const)
      expect(s.use(`a:${n}:${ts}`, ts, now, 60_000)).toBe(true);
    expect(s.size).toBe(3);
    // n1 and n2 were forgotten: replaying them (or anything as old) is still refused.
    expect(s.use('a:n1:100', 100, now, 60_000)).toBe(false);
    expect(s.use('a:other:101', 101, now, 60_000)).toBe(false);
    expect(s.use('a:new:105', 105, now, 60_000)).toBe(true);
    // Expired entries go first.
    expect(s.use('a:later:200', 200, now + 120_000, 60_000)).toBe(true);
    expect(s.size).toBe(1);
  });
});

describe('a sandbox under load (bounded, loopback)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({});
  });
  afterAll(() => sb.close());

  it('3,000 signed requests keep at most the cap of nonces, the log at its cap, and still refuse a replay', async () => {
    sb.app.state.nonces.cap = 1000;
    sb.app.rates.override = 1_000_000;
    const k = sb.seed;
    const url = `${sb.baseUrl}/1.1/account/verify_credentials.json`;
    const keys = {
      consumerKey: k.api_key,
      consumerSecret: k.api_secret,
      token: k.access_token,
      tokenSecret: k.access_token_secret,
    };
    const first = oauth1Header(keys, { method: 'GET', url, timestamp: Math.floor(Date.now() / 1000) - 250 });
    expect((await fetch(url, { headers: { authorization: first } })).status).toBe(200);
    const statuses: number[] = [];
    // Each round signs with a later second (within the 300 s skew), as a steady stream over minutes would.
    const start = Math.floor(Date.now() / 1000) - 200;
    for (let round = 0; round < 30; round++) {
      const timestamp = start + round * 5;
      const batch = await Promise.all(
        Array.from({ length: 100 }, () =>
          fetch(url, { headers: { authorization: oauth1Header(keys, { method: 'GET', url, timestamp }) } }).then(
            (r) => (r.body?.cancel(), r.status),
          ),
        ),
      );
      statuses.push(...batch);
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(sb.app.state.nonces.size).toBeLessThanOrEqual(1000);
    expect(sb.app.logs.length).toBeLessThanOrEqual(5000);
    expect((await fetch(url, { headers: { authorization: first } })).status).toBe(401);
  }, 60_000);
});
