// start_time / end_time of the activity stream go through the one ISO parser (contract/time.ts)
// on both sides: a day the month does not have is refused instead of rolling into the next
// month (Date.parse turns 2026-02-30 into March 2), and nothing is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityStream } from '../../src/commands/activity/stream.js';
import { UsageError } from '../../src/core/errors.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { HttpRegistry } from '../helpers/http-registry.js';
import { appBearer } from '../helpers/receiver.js';
import { testContext } from '../helpers/test-context.js';

describe('xctl activity stream --start-time/--end-time', () => {
  for (const [flag, field, value] of [
    ['--start-time', 'startTime', '2026-02-30T00:00:00Z'],
    ['--end-time', 'endTime', '2026-01-15T24:00:00Z'],
    ['--start-time', 'startTime', '2026-01-15'],
  ] as const) {
    it(`refuses ${flag} ${value} before sending anything`, async () => {
      const reg = new HttpRegistry();
      const t = testContext({ transport: reg });
      try {
        const err = await activityStream(t.ctx, { [field]: value }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(UsageError);
        expect((err as UsageError).message).toBe(
          `${flag} must be an ISO 8601 time with a zone, such as 2026-01-15T12:00:00Z (got "${value}")`,
        );
        expect(reg.requests).toEqual([]);
      } finally {
        t.cleanup();
      }
    });
  }
});

describe('GET /2/activity/stream start_time in the sandbox', () => {
  let sb: Sandbox;
  let bearer: string;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0 });
    bearer = await appBearer(sb.seed.base_url, sb.seed.api_key, sb.seed.api_secret);
  });
  afterAll(() => sb.close());

  const status = async (start: string) => {
    const ac = new AbortController();
    const res = await fetch(`${sb.seed.base_url}/2/activity/stream?start_time=${encodeURIComponent(start)}`, {
      headers: { authorization: `Bearer ${bearer}` },
      signal: ac.signal,
    });
    const body = res.status === 200 ? undefined : ((await res.json()) as { detail?: string });
    ac.abort();
    return { status: res.status, detail: body?.detail };
  };

  it('takes UTC to the second, and refuses an impossible day, a missing second or an offset', async () => {
    const now = new Date(sb.app.clock.now());
    const ok = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect((await status(ok)).status).toBe(200);
    for (const bad of ['2026-02-30T00:00:00Z', ok.replace(/:\d{2}Z$/, 'Z'), ok.replace(/Z$/, '+00:00')]) {
      expect(await status(bad), bad).toEqual({
        status: 400,
        detail: `start_time must be an ISO 8601 UTC time such as 2026-01-15T12:00:00Z (got ${JSON.stringify(bad)})`,
      });
    }
  });
});
