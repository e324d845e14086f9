// One 429 policy for every command (issue 25 item 11): a window that is not spent is backed off
// from within bounds; only a spent window is waited out until its reset (within --max-wait).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type NetworkError, RateLimitError } from '../../src/core/errors.js';
import { backoff, HttpClient, parseRateLimit, rateLimitWait } from '../../src/core/http.js';
import { HttpRegistry, json, networkError, route } from '../helpers/http-registry.js';
import { FakeClock, TEST_NOW, testContext } from '../helpers/test-context.js';

const resetIn = (s: number) => String(Math.floor(TEST_NOW / 1000) + s);
const limited = (remaining: number, reset: string) =>
  json({ title: 'Too Many Requests', detail: 'Too Many Requests', status: 429 }, 429, {
    'x-rate-limit-limit': '15',
    'x-rate-limit-remaining': String(remaining),
    'x-rate-limit-reset': reset,
  });
const WEBHOOKS = json({
  data: [{ id: '1', url: 'https://e.x/w', valid: true, created_at: '2026-01-01T00:00:00.000Z' }],
});

describe('429 in an ordinary command (webhooks list)', () => {
  it('a window not spent (remaining > 0) with a reset beyond --max-wait: backs off and goes on', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/2/webhooks'), limited(3, resetIn(7200)));
    reg.register(route('GET', '/2/webhooks'), WEBHOOKS);
    const clock = new FakeClock();
    const t = testContext({ transport: reg, clock, globals: { json: true } });
    await t.run(['webhooks', 'list', '--json']);
    expect(JSON.parse(t.stdout())).toHaveLength(1);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(500);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(1000);
    expect(t.stderr()).toContain('(backoff: the window is not spent)');
    t.cleanup();
  });

  it('a spent window is waited out until its reset; one whose reset is beyond --max-wait stops at once', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', '/2/webhooks'), limited(0, resetIn(60)));
    reg.register(route('GET', '/2/webhooks'), WEBHOOKS);
    const clock = new FakeClock();
    const t = testContext({ transport: reg, clock });
    await t.run(['webhooks', 'list']);
    expect(clock.sleeps).toEqual([60_250]);
    const reg2 = new HttpRegistry().register(route('GET', '/2/webhooks'), limited(0, resetIn(3600)));
    const t2 = testContext({ transport: reg2 });
    await expect(t2.run(['webhooks', 'list'])).rejects.toBeInstanceOf(RateLimitError);
    t.cleanup();
    t2.cleanup();
  });

  it('backoffs are bounded: together they stay within --max-wait, then the command fails', async () => {
    const reg = new HttpRegistry().register(route('GET', '/2/webhooks'), limited(5, resetIn(7200)), { times: 50 });
    const clock = new FakeClock();
    const t = testContext({ transport: reg, clock, globals: { maxWait: '20' } });
    await expect(t.run(['webhooks', 'list', '--max-wait', '20'])).rejects.toBeInstanceOf(RateLimitError);
    const total = clock.sleeps.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(20_000);
    expect(clock.sleeps.length).toBeGreaterThanOrEqual(2);
    t.cleanup();
  });
});

describe('rateLimitWait', () => {
  const now = TEST_NOW;
  const h = (remaining?: number, reset?: number) => ({
    ...(remaining !== undefined ? { 'x-rate-limit-remaining': String(remaining) } : {}),
    ...(reset !== undefined ? { 'x-rate-limit-reset': String(reset) } : {}),
  });
  const sec = Math.floor(now / 1000);
  it('decides per answer', () => {
    const base = { now, waits: 0, backedOffMs: 0, maxWaitMs: 900_000 };
    expect(rateLimitWait({ ...base, headers: h(0, sec + 10) })).toMatchObject({ why: 'x-rate-limit-reset' });
    expect(rateLimitWait({ ...base, headers: h(undefined, sec + 10) })).toMatchObject({ why: 'x-rate-limit-reset' });
    expect(rateLimitWait({ ...base, headers: h(4, sec + 10) })).toMatchObject({ why: 'backoff' });
    expect(rateLimitWait({ ...base, headers: h(0, sec - 10) })).toMatchObject({ why: 'backoff' });
    expect(rateLimitWait({ ...base, headers: {} })).toMatchObject({ why: 'backoff' });
    expect(rateLimitWait({ ...base, headers: h(0, sec + 3600), maxWaitMs: 60_000 })).toBeUndefined();
    expect(rateLimitWait({ ...base, headers: h(4, sec + 3600), waits: 20 })).toBeUndefined();
  });
});

// Mutation testing (TESTING.md): the boundaries of the 429 policy and of the backoff, exactly.
describe('rateLimitWait and backoff: boundaries', () => {
  const now = TEST_NOW; // a whole second
  const sec = now / 1000;
  const base = { now, waits: 0, backedOffMs: 0, maxWaitMs: 900_000 };
  afterEach(() => vi.restoreAllMocks());

  it('waits until the reset + 250 ms, at least 1 s, and a wait exactly at --max-wait', () => {
    const spent = { 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(sec + 10) };
    expect(rateLimitWait({ ...base, headers: spent })).toEqual({
      waitMs: 10_250,
      why: 'x-rate-limit-reset',
      reset: sec + 10,
    });
    expect(rateLimitWait({ ...base, headers: spent, maxWaitMs: 10_250 })).toMatchObject({
      waitMs: 10_250,
    });
    expect(rateLimitWait({ ...base, headers: spent, maxWaitMs: 10_249 })).toBeUndefined();
    // a reset 100 ms ahead still waits a whole second
    expect(rateLimitWait({ ...base, now: now - 100, headers: { 'x-rate-limit-reset': String(sec) } })).toEqual({
      waitMs: 1000,
      why: 'x-rate-limit-reset',
      reset: sec,
    });
    // a reset exactly now is not ahead: back off instead
    expect(rateLimitWait({ ...base, headers: { 'x-rate-limit-reset': String(sec) } })).toMatchObject({
      why: 'backoff',
    });
  });

  it('reads the parsed limits before the bare headers, and a remaining of 1 as not spent', () => {
    const rl = { limit: 15, remaining: 0, reset: sec + 30, scope: 'app' as const };
    const headers = { 'x-rate-limit-remaining': '7', 'x-rate-limit-reset': String(sec + 5) };
    expect(rateLimitWait({ ...base, headers, rateLimit: rl })).toEqual({
      waitMs: 30_250,
      why: 'x-rate-limit-reset',
      reset: sec + 30,
    });
    const one = { 'x-rate-limit-remaining': '1', 'x-rate-limit-reset': String(sec + 5) };
    expect(rateLimitWait({ ...base, headers: one })).toMatchObject({ why: 'backoff' });
    const junk = { 'x-rate-limit-remaining': 'n/a', 'x-rate-limit-reset': 'soon' };
    expect(rateLimitWait({ ...base, headers: junk })).toMatchObject({ why: 'backoff' });
  });

  it('backs off from 1 s doubling, at most 20 waits, within --max-wait with earlier ones', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    const h = { 'x-rate-limit-remaining': '3' };
    expect(rateLimitWait({ ...base, headers: h })).toEqual({ waitMs: 1000, why: 'backoff' });
    expect(rateLimitWait({ ...base, headers: h, waits: 3 })).toEqual({
      waitMs: 8000,
      why: 'backoff',
    });
    expect(rateLimitWait({ ...base, headers: h, waits: 19 })).toEqual({
      waitMs: 30_000,
      why: 'backoff',
    });
    expect(rateLimitWait({ ...base, headers: h, waits: 20 })).toBeUndefined();
    expect(rateLimitWait({ ...base, headers: h, backedOffMs: 9000, maxWaitMs: 10_000 })).toEqual({
      waitMs: 1000,
      why: 'backoff',
    });
    expect(rateLimitWait({ ...base, headers: h, backedOffMs: 9001, maxWaitMs: 10_000 })).toBeUndefined();
  });

  it('backoff: equal jitter between half the step and the step, capped at 30 s', () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0);
    expect([backoff(500, 0), backoff(500, 1), backoff(500, 3), backoff(500, 10)]).toEqual([250, 500, 2000, 15_000]);
    random.mockReturnValue(0.999_999);
    expect([backoff(500, 0), backoff(500, 1), backoff(500, 3), backoff(500, 10)]).toEqual([500, 1000, 4000, 30_000]);
    random.mockReturnValue(0.5);
    expect(backoff(1000, 2)).toBe(3000);
  });
});

describe('parseRateLimit and the unresolvable platform host', () => {
  it('reads a window only when all three headers are there; the account window first', () => {
    const app = {
      'x-rate-limit-limit': '15',
      'x-rate-limit-remaining': '3',
      'x-rate-limit-reset': '1700000000',
    };
    expect(parseRateLimit(app)).toEqual({
      limit: 15,
      remaining: 3,
      reset: 1_700_000_000,
      scope: 'app',
    });
    for (const drop of Object.keys(app)) {
      const partial: Record<string, string> = { ...app };
      delete partial[drop];
      expect(parseRateLimit(partial), drop).toBeUndefined();
    }
    const account = { 'x-account-rate-limit-limit': '5', 'x-account-rate-limit-remaining': '0' };
    // the account window is incomplete
    expect(parseRateLimit({ ...app, ...account })).toMatchObject({ scope: 'app', limit: 15 });
    expect(parseRateLimit({ ...app, ...account, 'x-account-rate-limit-reset': '1700000100' })).toEqual({
      limit: 5,
      remaining: 0,
      reset: 1_700_000_100,
      scope: 'account',
    });
  });

  it('a platform host that does not resolve: check the network, not --base-url', async () => {
    const reg = new HttpRegistry().register(route('GET', '/2/webhooks'), networkError('ENOTFOUND'), {
      times: Infinity,
    });
    const t = testContext({ transport: reg });
    const http = new HttpClient({
      apiBase: 'https://api.x.com',
      adsBase: 'https://ads-api.x.com',
      io: t.ctx.io,
      credentials: async () => ({ profile: 'p', api_key: 'k', api_secret: 's', source: {} }),
      bearer: async () => 'B',
      transport: reg,
    });
    const err = (await http
      .request({ method: 'GET', path: '/2/webhooks', auth: 'none' })
      .catch((e: NetworkError) => e)) as NetworkError;
    expect(err.message).toBe('cannot resolve host api.x.com');
    expect(err.hint).toBe('check the network connection');
    t.cleanup();
  });
});
