// The upload's sender paces requests by the x-rate-limit-* headers; a paced run says so (issue 40
// item 9: a run silent for 45 s while it waits for the window looks stuck).
import { describe, expect, it } from 'vitest';
import type { HttpClient } from '../../src/core/http.js';
import { Sender } from '../../src/audiences/sender.js';
import type { Batch } from '../../src/audiences/batcher.js';
import { testContext } from '../helpers/test-context.js';

describe('the sender paced by the rate limit', () => {
  it('says once per window that it waits, and until when', async () => {
    const t = testContext();
    let now = Date.parse('2026-01-15T12:00:00.000Z');
    const reset = now / 1000 + 45;
    const slept: number[] = [];
    const http = {
      request: async () => ({
        status: 200,
        data: { data: { success_count: 1, total_count: 1 } },
        rateLimit: { limit: 1500, remaining: 0, reset },
        headers: {},
      }),
    } as unknown as HttpClient;
    const sender = new Sender({
      http,
      path: '/12/accounts/a/custom_audiences/b/users',
      io: t.ctx.io,
      stopSignal: new AbortController().signal,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
      now: () => now,
      maxAttempts: 3,
      retryBaseMs: 1,
      maxWaitMs: 900_000,
    });
    const batch = (index: number): Batch => ({ index, users: 1, ops: 1, bytes: 2, body: Buffer.from('[]'), head: '' });
    await sender.send(batch(0));
    await sender.send(batch(1));
    expect(slept).toEqual([45_250]);
    expect(t.stderr()).toBe('waiting for the rate limit: the window resets at 2026-01-15T12:00:45.000Z (in 45 s)\n');
    await sender.send(batch(2)); // the same reset said again by the service: not announced twice
    expect(t.stderr().split('\n').filter(Boolean)).toHaveLength(1);
  });
});
