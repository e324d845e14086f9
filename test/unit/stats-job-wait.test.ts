// `ads stats job wait` (issue 25 item 14): a poll that fails its retries is one poll; the wait
// goes on until --timeout, and only then (or on an error retrying cannot help) gives up.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { FakeClock, testContext } from '../helpers/test-context.js';

const JOBS = '/12/stats/jobs/accounts/acct1';
const job = (status: string) => json({ data: [{ id_str: '123', status, url: null, expires_at: null }] });
const down = json({ errors: [{ code: 'SERVICE_UNAVAILABLE', message: 'Service Unavailable' }] }, 503);

describe('ads stats job wait', () => {
  it('outlasts a poll that failed all its retries, with most of --timeout left', async () => {
    const reg = new HttpRegistry();
    reg.register(route('GET', JOBS), job('PROCESSING'));
    reg.register(route('GET', JOBS), down, { times: 5 }); // one poll: the first attempt and 4 retries
    reg.register(route('GET', JOBS), job('SUCCESS'));
    const t = testContext({ transport: reg, clock: new FakeClock() });
    await t.run(['ads', 'stats', 'job', 'wait', '123', '--timeout', '600', '--json']);
    expect(JSON.parse(t.stdout())).toMatchObject({ id_str: '123', status: 'SUCCESS' });
    expect(t.stderr()).toMatch(/job 123: checking failed \(.*503.*\); checking again in/i);
    reg.verify();
    t.cleanup();
  });

  it('still gives up at --timeout, and at once on an error retrying cannot help', async () => {
    const reg = new HttpRegistry().register(route('GET', JOBS), down, { times: Infinity });
    const t = testContext({ transport: reg, clock: new FakeClock() });
    await expect(t.run(['ads', 'stats', 'job', 'wait', '123', '--timeout', '30'])).rejects.toMatchObject({
      status: 503,
    });
    const reg2 = new HttpRegistry().register(
      route('GET', JOBS),
      json({ errors: [{ code: 'UNAUTHORIZED_ACCESS', message: 'no' }] }, 401),
    );
    const t2 = testContext({ transport: reg2, clock: new FakeClock() });
    await expect(t2.run(['ads', 'stats', 'job', 'wait', '123'])).rejects.toBeInstanceOf(ApiError);
    expect(reg2.requests).toHaveLength(1);
    t.cleanup();
    t2.cleanup();
  });
});
