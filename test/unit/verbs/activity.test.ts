// `xctl activity ...` and `xctl account-activity ...` tested where the verbs live: flags ->
// options through runF, the exact request each run function sends (HTTP registry), its piped and
// terminal output, and the refusals made before anything is sent. The stream's reconnects, the
// wire against a real sandbox and the real process are in test/e2e/activity.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import {
  register as registerCreate,
  subscriptionsCreate,
} from '../../../src/commands/activity/subscriptions/create.js';
import { register as registerList, subscriptionsList } from '../../../src/commands/activity/subscriptions/list.js';
import {
  register as registerDelete,
  subscriptionsDelete,
} from '../../../src/commands/activity/subscriptions/delete.js';
import {
  register as registerUpdate,
  subscriptionsUpdate,
} from '../../../src/commands/activity/subscriptions/update.js';
import { activityStream, register as registerStream } from '../../../src/commands/activity/stream.js';
import { countRun, register as registerCount } from '../../../src/commands/account-activity/count.js';
import { listRun, register as registerAaList } from '../../../src/commands/account-activity/list.js';
import { register as registerSubscribe, subscribeRun } from '../../../src/commands/account-activity/subscribe.js';
import { register as registerUnsubscribe, unsubscribeRun } from '../../../src/commands/account-activity/unsubscribe.js';
import { exitOf } from '../../helpers/exit-of.js';
import { HttpRegistry, json, route } from '../../helpers/http-registry.js';
import { testContext, type TestContext, type TestContextOptions } from '../../helpers/test-context.js';

let t: TestContext;
afterEach(() => t.cleanup());

function quiet(o: TestContextOptions = {}): HttpRegistry {
  const http = new HttpRegistry();
  t = testContext({ transport: http, ...o });
  return http;
}

const SUB = {
  subscription_id: '1900000000000000001',
  event_type: 'dm.received',
  filter: { direction: 'inbound', keyword: 'hello' },
  tag: 'dms',
  created_at: '2026-01-15T11:00:00.000Z',
};

describe('activity subscriptions create', () => {
  it('flags -> options', async () => {
    t = testContext();
    const argv = ['create', '--event', 'dm.received', '--direction', 'inbound', '--keyword', 'hello'];
    expect(await t.optionsOf(registerCreate, [...argv, '--tag', 'dms', '--webhook', '12', '--dry-run'])).toEqual({
      event: 'dm.received',
      direction: 'inbound',
      keyword: 'hello',
      tag: 'dms',
      webhook: '12',
      dryRun: true,
    });
  });

  it('refuses a deprecated name (naming the new one), a direction off dm/chat, a long keyword', async () => {
    const http = quiet();
    const dep = await exitOf(subscriptionsCreate(t.ctx, { event: 'ProfileBioUpdate' }));
    expect([dep.code, dep.message]).toEqual([2, expect.stringContaining('use profile.update.bio')]);
    for (const o of [
      { event: 'spaces.start', direction: 'inbound' },
      { event: 'dm.sent', keyword: 'k'.repeat(151) },
    ])
      expect((await exitOf(subscriptionsCreate(t.ctx, o))).code, JSON.stringify(o)).toBe(2);
    expect(http.requests).toEqual([]);
  });

  it('POSTs the filter and tag and prints the subscription (JSON piped)', async () => {
    const http = new HttpRegistry().register(
      route('POST', '/2/activity/subscriptions'),
      json({ data: { subscription: SUB } }),
    );
    t = testContext({ transport: http, globals: { output: 'json' } });
    await subscriptionsCreate(t.ctx, { event: 'dm.received', direction: 'inbound', keyword: 'hello', tag: 'dms' });
    expect(http.requests[0]!.json()).toEqual({
      event_type: 'dm.received',
      filter: { direction: 'inbound', keyword: 'hello' },
      tag: 'dms',
    });
    expect(JSON.parse(t.stdout())).toMatchObject({ subscription_id: SUB.subscription_id, tag: 'dms' });
  });
});

describe('activity subscriptions list', () => {
  it('flags -> options', async () => {
    t = testContext();
    expect(await t.optionsOf(registerList, ['list', '--all', '--limit', '5', '--cursor', 'c1'])).toEqual({
      all: true,
      limit: '5',
      cursor: 'c1',
    });
  });

  it('follows next_token with --all; tab-separated rows when piped', async () => {
    const http = new HttpRegistry()
      .register(
        route('GET', '/2/activity/subscriptions', { query: { max_results: '100' } }),
        json({ data: [SUB], meta: { next_token: 'p2' } }),
      )
      .register(
        route('GET', '/2/activity/subscriptions', { query: { pagination_token: 'p2' } }),
        json({ data: [{ ...SUB, subscription_id: '2' }], meta: {} }),
      );
    t = testContext({ transport: http, globals: { output: 'tsv', fields: 'subscription_id,tag' } });
    await subscriptionsList(t.ctx, { all: true });
    http.verify();
    expect(t.stdout()).toBe('1900000000000000001\tdms\n2\tdms\n');
  });
});

describe('activity subscriptions list --cursor', () => {
  it('a page token the service would refuse (under 16 characters) is refused before sending, in its words', async () => {
    const http = quiet();
    const r = await exitOf(subscriptionsList(t.ctx, { cursor: 'c1' }));
    expect([r.code, r.message]).toEqual([
      2,
      '--cursor must be a page token of at least 16 characters (got 2 characters)',
    ]);
    expect(http.requests).toEqual([]);
  });
});

describe('activity subscriptions delete', () => {
  it('flags -> options: several ids', async () => {
    t = testContext();
    expect(await t.optionsOf(registerDelete, ['delete', '1', '2', '--dry-run'])).toEqual({
      ids: ['1', '2'],
      dryRun: true,
    });
  });

  it('needs --yes off a terminal (exit 2, nothing sent); with it, says what is left', async () => {
    const http = quiet();
    expect((await exitOf(subscriptionsDelete(t.ctx, { ids: ['5'] }))).code).toBe(2);
    expect(http.requests).toEqual([]);
    const ok = new HttpRegistry().register(
      route('DELETE', '/2/activity/subscriptions/5'),
      json({ data: { deleted: true }, meta: { total_subscriptions: 3 } }),
    );
    const y = testContext({ transport: ok, globals: { yes: true } });
    await subscriptionsDelete(y.ctx, { ids: ['5'] });
    expect([y.stdout(), y.stderr()]).toEqual(['', 'deleted subscription 5 (3 left)\n']);
    y.cleanup();
  });

  it('many ids: one DELETE ?ids=, the ones not deleted reported and exit 1', async () => {
    const http = new HttpRegistry().register(
      route('DELETE', '/2/activity/subscriptions', { query: { ids: '5,6' } }),
      json({
        data: [{ subscription_id: '5', deleted: true }],
        errors: [{ subscription_id: '6', message: 'not found' }],
        meta: { total_subscriptions: 1 },
      }),
    );
    t = testContext({ transport: http, globals: { yes: true } });
    const r = await exitOf(subscriptionsDelete(t.ctx, { ids: ['5', '6', '5'] }));
    expect(r).toEqual({ code: 1, message: '1 of 2 subscriptions were not deleted: 6' });
    expect(t.stderr()).toContain('deleted subscription 5\n');
    expect(t.stderr()).toContain('subscription 6 not deleted: not found');
    expect(t.stderr()).toContain('1 of 2 deleted (1 left)');
  });
});

describe('activity subscriptions update', () => {
  it('flags -> options', async () => {
    t = testContext();
    expect(await t.optionsOf(registerUpdate, ['update', '5', '--tag', 'x'])).toEqual({ id: '5', tag: 'x' });
  });

  it('needs --tag or --webhook (exit 2, nothing sent); PUTs only what changes', async () => {
    const http = new HttpRegistry().register(
      route('PUT', '/2/activity/subscriptions/5'),
      json({ data: { subscription: { ...SUB, tag: 'new' } } }),
    );
    t = testContext({ transport: http, globals: { output: 'json' } });
    const none = await exitOf(subscriptionsUpdate(t.ctx, { id: '5' }));
    expect([none.code, none.message]).toEqual([2, expect.stringMatching(/^give --tag and\/or --webhook/)]);
    expect(http.requests).toEqual([]);
    await subscriptionsUpdate(t.ctx, { id: '5', tag: 'new' });
    expect(http.requests[0]!.json()).toEqual({ tag: 'new' });
    expect(JSON.parse(t.stdout())).toMatchObject({ tag: 'new' });
  });
});

describe('activity stream: flags and refusals', () => {
  it('defaults: a 60 s stall timeout', async () => {
    t = testContext();
    expect(await t.optionsOf(registerStream, ['stream'])).toEqual({ stallTimeout: '60' });
    expect(
      await t.optionsOf(registerStream, ['stream', '--backfill-minutes', '2', '--start-time', 'a', '--end-time', 'b']),
    ).toEqual({ stallTimeout: '60', backfillMinutes: '2', startTime: 'a', endTime: 'b' });
  });

  it('refuses --backfill-minutes outside 0-5 and a time without a zone (exit 2, nothing sent)', async () => {
    const http = quiet();
    const r = await exitOf(activityStream(t.ctx, { backfillMinutes: '6', stallTimeout: '60' }));
    expect([r.code, r.message]).toEqual([2, expect.stringContaining('--backfill-minutes')]);
    const time = await exitOf(activityStream(t.ctx, { startTime: 'yesterday', stallTimeout: '60' }));
    expect([time.code, time.message]).toEqual([2, expect.stringContaining('--start-time must be an ISO 8601 time')]);
    expect(http.requests).toEqual([]);
  });
});

describe('account-activity', () => {
  it('flags -> options', async () => {
    t = testContext();
    expect(await t.optionsOf(registerAaList, ['list', '12'])).toEqual({ webhookId: '12' });
    expect(await t.optionsOf((p, runF) => registerCount(p, (ctx) => runF(ctx, {})), ['count'])).toEqual({});
    expect(await t.optionsOf(registerSubscribe, ['subscribe', '12', '--check'])).toEqual({
      webhookId: '12',
      check: true,
    });
    expect(await t.optionsOf(registerUnsubscribe, ['unsubscribe', '12', '--user-id', '7', '--dry-run'])).toEqual({
      webhookId: '12',
      userId: '7',
      dryRun: true,
    });
  });

  it('list: one row per subscribed user, as the app', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/2/account_activity/webhooks/12/subscriptions/all/list'),
      json({ data: { webhook_id: '12', webhook_url: 'https://h.example.com/x', subscriptions: [{ user_id: '7' }] } }),
    );
    t = testContext({ transport: http, globals: { output: 'tsv' } });
    await listRun(t.ctx, { webhookId: '12' });
    expect(t.stdout()).toBe('7\t12\thttps://h.example.com/x\n');
    expect(http.requests[0]!.headers.authorization).toBe('Bearer AAAA-test-bearer');
    expect((await exitOf(listRun(t.ctx, { webhookId: 'x' }))).code).toBe(2);
  });

  it('count: the counts on a terminal', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/2/account_activity/subscriptions/count'),
      json({ data: { account_name: 'a', subscriptions_count_all: '2', provisioned_count: '1' } }),
    );
    t = testContext({ transport: http, globals: { output: 'json' } });
    await countRun(t.ctx);
    expect(JSON.parse(t.stdout())).toMatchObject({ subscriptions_count_all: '2', provisioned_count: '1' });
  });

  it('subscribe signs as the user; --check exits 1 when not subscribed', async () => {
    const http = new HttpRegistry()
      .register(
        route('POST', '/2/account_activity/webhooks/12/subscriptions/all'),
        json({ data: { subscribed: true } }),
      )
      .register(
        route('GET', '/2/account_activity/webhooks/12/subscriptions/all'),
        json({ data: { subscribed: false } }),
      );
    t = testContext({ transport: http, globals: { output: 'jsonl' } });
    await subscribeRun(t.ctx, { webhookId: '12' });
    expect(http.requests[0]!.headers.authorization).toMatch(/^OAuth /);
    const r = await exitOf(subscribeRun(t.ctx, { webhookId: '12', check: true }));
    expect(r).toEqual({ code: 1, message: 'the user is not subscribed to webhook 12' });
    expect(t.stdout()).toBe('{"webhook_id":"12","subscribed":true}\n{"webhook_id":"12","subscribed":false}\n');
  });

  it("unsubscribe: the token's user by default; asks (exit 2 off a terminal); --dry-run", async () => {
    const http = quiet();
    expect((await exitOf(unsubscribeRun(t.ctx, { webhookId: '12' }))).code).toBe(2);
    await unsubscribeRun(t.ctx, { webhookId: '12', dryRun: true });
    expect(t.stdout()).toBe(
      '{"dry_run":true,"method":"DELETE",' +
        '"url":"https://api.x.com/2/account_activity/webhooks/12/subscriptions/1001/all"}\n',
    );
    expect(http.requests).toEqual([]);
  });
});

describe('activity subscriptions create: the contract', () => {
  it('sends the body the contract allows, signed as the user', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/2/activity/subscriptions'),
      json({ data: { subscription_id: '1', event_type: 'dm.received' } }),
    );
    t = testContext({ transport: reg });
    await subscriptionsCreate(t.ctx, {
      event: 'dm.received',
      userId: '783214',
      keyword: 'k'.repeat(150),
      direction: 'inbound',
      tag: 't'.repeat(200),
      webhook: '99',
    });
    expect(reg.requests[0]!.json()).toEqual({
      event_type: 'dm.received',
      filter: { user_id: '783214', keyword: 'k'.repeat(150), direction: 'inbound' },
      tag: 't'.repeat(200),
      webhook_id: '99',
    });
    expect(reg.requests[0]!.headers.authorization).toMatch(/^OAuth /);
    reg.verify();
  });

  it('refuses one character past each limit, before sending', async () => {
    const reg = new HttpRegistry();
    t = testContext({ transport: reg });
    await expect(subscriptionsCreate(t.ctx, { event: 'dm.received', keyword: 'k'.repeat(151) })).rejects.toThrow(
      '--keyword must be 1-150 characters (got 151)',
    );
    await expect(subscriptionsCreate(t.ctx, { event: 'dm.received', tag: 't'.repeat(201) })).rejects.toThrow(
      '--tag must be 1-200 characters (got 201)',
    );
    await expect(subscriptionsCreate(t.ctx, { event: 'spaces.start', direction: 'inbound' })).rejects.toThrow(
      '--direction applies to direct-message and chat events',
    );
    await expect(subscriptionsCreate(t.ctx, { event: 'ProfileBioUpdate' })).rejects.toThrow('use profile.update.bio');
    expect(reg.requests).toEqual([]);
  });

  it('signs with the app bearer when no user token is set', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/2/activity/subscriptions'),
      json({ data: { subscription: { subscription_id: '2', event_type: 'spaces.start' } } }),
    );
    t = testContext({ transport: reg, env: { XCTL_ACCESS_TOKEN: undefined, XCTL_ACCESS_TOKEN_SECRET: undefined } });
    await subscriptionsCreate(t.ctx, { event: 'spaces.start' });
    expect(reg.requests[0]!.headers.authorization).toBe('Bearer AAAA-test-bearer');
  });
});
