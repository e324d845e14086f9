// One 429 policy for every command (issue 25 item 11): a window that is not spent is backed off
// from within bounds; only a spent window is waited out until its reset (within --max-wait).
import { describe, expect, it } from 'vitest';
import { RateLimitError } from '../../src/core/errors.js';
import { rateLimitWait } from '../../src/core/http.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
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
