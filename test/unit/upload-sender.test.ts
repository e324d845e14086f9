// The upload sender paces itself by the x-rate-limit-* headers (issue 43): once an answer says
// the window has no request left (or only as many as are already in flight), the next batch
// waits for the reset instead of being sent into a 429. A sender that ignored the headers passed
// every test (the e2e uploads never spend a window). The real HttpClient over an HTTP registry,
// with a fake clock: each request is stamped with the clock's time when it is sent.
import { describe, expect, it } from 'vitest';
import type { Batch } from '../../src/audiences/batcher.js';
import { Sender } from '../../src/audiences/sender.js';
import { HttpClient } from '../../src/core/http.js';
import { HttpRegistry, route } from '../helpers/http-registry.js';
import { FakeClock, TEST_NOW, testContext } from '../helpers/test-context.js';

const PATH = '/12/accounts/acct1/custom_audiences/ca1/users';
const RESET = TEST_NOW / 1000 + 60;

function batch(index: number, users = 2): Batch {
  return { index, users, ops: 1, bytes: 2, body: Buffer.from('[]'), head: `h${index}` };
}

/** A sender whose answers carry the rate-limit headers `remaining(n)` decides for the n-th request. */
function setup(remaining: (n: number) => number | undefined, hold?: (n: number) => Promise<void>) {
  const reg = new HttpRegistry();
  const clock = new FakeClock();
  const sentAt: number[] = [];
  reg.register(
    route('POST', PATH),
    async () => {
      const n = sentAt.push(clock.now()) - 1;
      await hold?.(n);
      const left = remaining(n);
      return {
        status: 200,
        headers: {
          'content-type': 'application/json',
          ...(left === undefined
            ? {}
            : {
                'x-rate-limit-limit': '1500',
                'x-rate-limit-remaining': String(left),
                'x-rate-limit-reset': String(RESET),
              }),
        },
        body: JSON.stringify({ data: { success_count: 2, total_count: 2 } }),
      };
    },
    { times: Infinity },
  );
  const t = testContext({ transport: reg });
  const http = new HttpClient({
    apiBase: 'https://api.x.com',
    adsBase: 'https://ads-api.x.com',
    io: t.ctx.io,
    credentials: async () => ({
      profile: 'default',
      api_key: 'ck',
      api_secret: 'cs',
      access_token: '1-at',
      access_token_secret: 'ats',
      source: {},
    }),
    bearer: async () => 'B',
    now: () => clock.now(),
    sleep: (ms, s) => clock.sleep(ms, s),
    transport: reg,
  });
  const sender = new Sender({
    http,
    path: PATH,
    io: t.ctx.io,
    stopSignal: new AbortController().signal,
    sleep: (ms, s) => clock.sleep(ms, s),
    now: () => clock.now(),
    maxAttempts: 3,
    retryBaseMs: 100,
    maxWaitMs: 15 * 60_000,
  });
  return { sender, clock, sentAt, t };
}

describe('the upload sender paces itself by x-rate-limit-*', () => {
  it('remaining 0: the next batch waits for the reset (plus 250 ms), then goes', async () => {
    const { sender, clock, sentAt } = setup((n) => (n === 0 ? 0 : 1499));
    await sender.send(batch(0));
    await sender.send(batch(1));
    expect(clock.sleeps).toEqual([60_250]);
    expect(sentAt).toEqual([TEST_NOW, RESET * 1000 + 250]);
  });

  it('remaining 2 with two in flight: the third waits for the reset, the first two do not', async () => {
    const release: Array<() => void> = [];
    const { sender, clock, sentAt } = setup(
      (n) => (n === 0 ? 2 : 1000),
      (n) => (n === 0 ? Promise.resolve() : new Promise<void>((r) => release.push(r))),
    );
    await sender.send(batch(0));
    const inFlight = [sender.send(batch(1)), sender.send(batch(2))];
    await new Promise((r) => setImmediate(r));
    // the third finds the window's last two requests in flight: it waits for the reset (the
    // fake clock's sleep returns at once, with the time moved on)
    const third = sender.send(batch(3));
    await new Promise((r) => setImmediate(r));
    expect(clock.sleeps).toEqual([60_250]);
    expect(sentAt).toEqual([TEST_NOW, TEST_NOW, TEST_NOW, RESET * 1000 + 250]);
    for (const r of release.splice(0)) r();
    await Promise.all([...inFlight, third]);
  });

  it('requests left, or no headers: no wait (the tests above are not vacuous)', async () => {
    for (const left of [5, undefined]) {
      const { sender, clock } = setup(() => left);
      for (let i = 0; i < 3; i++) await sender.send(batch(i));
      expect(clock.sleeps).toEqual([]);
    }
  });
});
