// `webhooks listen --register` subscribes its webhook to events and removes what it registered on
// exit; stale webhooks of killed runs are reported and deleted with `webhooks delete --all-stale`
// (issue 20 item 10). The real CLI against a real sandbox.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVITY_EVENT_TYPES } from '../../src/contract/activity.js';
import { startTestSandbox, runCli, type TestSandbox } from '../helpers/cli.js';
import { appBearer, spawnCli, startReceiver, waitFor } from '../helpers/receiver.js';

let t: TestSandbox;
const subs = () =>
  [...t.sb.app.state.collection({ name: 'activity_subscriptions' } as never).values()] as Array<{
    id: string;
    event_type: string;
    webhook_id?: string;
    filter: Record<string, string>;
  }>;
const hooks = () =>
  [...t.sb.app.state.collection({ name: 'webhooks' } as never).values()] as Array<{
    id: string;
    url: string;
    valid: boolean;
  }>;

beforeAll(async () => {
  t = await startTestSandbox();
  t.env.XCTL_BEARER_TOKEN = await appBearer(t.sb.baseUrl, t.sb.seed.api_key, t.sb.seed.api_secret);
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  t.sb.app.state.collection({ name: 'webhooks' } as never).clear();
  t.sb.app.state.collection({ name: 'activity_subscriptions' } as never).clear();
});

describe('webhooks listen --register', () => {
  it('subscribes to every event type the sandbox knows; a triggered event arrives; Ctrl-C removes subscriptions and webhook', async () => {
    const l = spawnCli(['webhooks', 'listen', '--register'], t.env);
    let code: number | null = null;
    try {
      const id = (await l.waitStderr(/registered webhook (\d+)/))[1]!;
      await l.waitStderr(/subscribed webhook \d+ to all 29 event types/);
      expect(
        subs()
          .map((s) => s.event_type)
          .sort(),
      ).toEqual([...ACTIVITY_EVENT_TYPES].sort());
      expect(subs().every((s) => s.webhook_id === id)).toBe(true);
      const trig = await t.run([
        'sandbox',
        'trigger',
        'follow.follow',
        '--user-id',
        '783214',
        '--data',
        '{"target":"x"}',
        '-o',
        'json',
      ]);
      expect(JSON.parse(trig.stdout).deliveries).toBe(1);
      expect(trig.stderr).not.toMatch(/no subscription matches/);
      // issue 29 item 8: the subscription has no user filter; the event's matched filter names
      // the user, and the line says whose event it is (it said user=-)
      await l.waitStdout(/follow\.follow {2}user=783214 {2}/);
    } finally {
      code = await l.stop('SIGINT');
    }
    expect(code).toBe(0);
    expect(l.stderr()).toMatch(/deleted 29 subscriptions\ndeleted webhook \d+/);
    expect(subs()).toEqual([]);
    expect(hooks()).toEqual([]);
  });

  it('--events picks the types, --user-id filters; --keep leaves both and says how to delete them (SIGTERM)', async () => {
    const l = spawnCli(
      [
        'webhooks',
        'listen',
        '--register',
        '--events',
        'news.new,follow.follow,profile.update.verified',
        '--user-id',
        '783214',
        '--keep',
      ],
      t.env,
    );
    const id = (await l.waitStderr(/registered webhook (\d+)/))[1]!;
    await l.waitStderr(
      /subscribed webhook \d+ to 3 event types \(news\.new, follow\.follow, profile\.update\.verified_badge\) about user 783214/,
    );
    expect(subs().map((s) => [s.event_type, s.filter.user_id, s.webhook_id])).toEqual([
      ['news.new', '783214', id],
      ['follow.follow', '783214', id],
      ['profile.update.verified_badge', '783214', id],
    ]);
    expect(await l.stop('SIGTERM')).toBe(0);
    const ids = subs().map((s) => s.id);
    expect(l.stderr()).toContain(
      `webhook ${id} and its 3 subscriptions stay registered (--keep); delete with \`xctl webhooks delete ${id}\` and \`xctl activity subscriptions delete ${ids.join(' ')}\``,
    );
    expect(hooks().map((h) => h.id)).toEqual([id]);
  });

  it('--no-subscribe registers the webhook only', async () => {
    const l = spawnCli(['webhooks', 'listen', '--register', '--no-subscribe'], t.env);
    await l.waitStderr(/registered webhook (\d+)/);
    expect(subs()).toEqual([]);
    expect(await l.stop()).toBe(0);
    expect(l.stderr()).not.toMatch(/subscri/);
    expect(hooks()).toEqual([]);
  });

  it('bad --events, or options without --register, exit 2 and register nothing', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--register', '--events', 'nope.event'], /--events: "nope\.event" is not one of the platform's event types/],
      [['--register', '--events', 'ProfileBioUpdate'], /deprecated name .* use profile\.update\.bio/],
      [['--register', '--events', ','], /--events needs at least one event type/],
      [['--events', 'news.new'], /--events goes with --register/],
      [['--keep'], /--keep goes with --register/],
      [['--register', '--user-id', 'abc'], /--user-id must be 1-19 digits/],
    ];
    for (const [args, re] of cases) {
      const r = await t.run(['webhooks', 'listen', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(re);
    }
    expect(hooks()).toEqual([]);
  });

  it('against the service, --events is required (nothing sent)', async () => {
    const r = await runCli(['webhooks', 'listen', '--register', '--public-url', 'https://hooks.example.com/x'], {
      env: { ...t.env, XCTL_BASE_URL: 'https://api.example.com', XCTL_BEARER_TOKEN: 'x' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--register against the service needs --events TYPE,\.\.\./);
  });
});

describe('stale webhooks', () => {
  it('a killed run leaves a stale webhook: the next --register reports it; delete --all-stale --dry-run lists, then deletes', async () => {
    const killed = spawnCli(['webhooks', 'listen', '--register', '--no-subscribe'], t.env);
    const staleId = (await killed.waitStderr(/registered webhook (\d+)/))[1]!;
    await killed.stop('SIGKILL');
    // A live receiver's webhook and an invalid one (its last CRC failed).
    const rx = await startReceiver(t.sb.seed.api_secret);
    try {
      const live = await t.run(['webhooks', 'create', rx.url, '-o', 'json']);
      expect(live.code, live.stderr).toBe(0);
      const liveId = JSON.parse(live.stdout).id as string;
      const invalid = await t.run(['webhooks', 'create', `${rx.url.replace(/\/$/, '')}/other`, '-o', 'json']);
      const invalidId = JSON.parse(invalid.stdout).id as string;
      hooks().find((h) => h.id === invalidId)!.valid = false;

      const l = spawnCli(['webhooks', 'listen', '--register', '--no-subscribe'], t.env);
      const mine = (await l.waitStderr(/registered webhook (\d+)/))[1]!;
      await l.waitStderr(/delete them with `xctl webhooks delete --all-stale`/);
      expect(l.stderr()).toMatch(
        new RegExp(`stale webhook ${staleId} \\(http://127\\.0\\.0\\.1:\\d+/webhooks\\): nothing answers at`),
      );
      expect(l.stderr()).toMatch(
        new RegExp(`stale webhook ${invalidId} .*: invalid: its last challenge check \\(CRC\\) failed`),
      );
      expect(l.stderr()).not.toContain(`stale webhook ${liveId}`);
      expect(l.stderr()).not.toContain(`stale webhook ${mine}`);

      const dry = await t.run(['webhooks', 'delete', '--all-stale', '--dry-run', '-o', 'tsv']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(
        dry.stdout
          .trim()
          .split('\n')
          .map((x) => x.split('\t')[0])
          .sort(),
      ).toEqual([staleId, invalidId].sort());
      expect(dry.stderr).toMatch(/2 stale webhooks; nothing deleted \(--dry-run\)/);
      expect(hooks()).toHaveLength(4);

      const noYes = await t.run(['webhooks', 'delete', '--all-stale']);
      expect(noYes.code).toBe(2);
      expect(hooks()).toHaveLength(4);

      const del = await t.run(['webhooks', 'delete', '--all-stale', '--yes']);
      expect(del.code, del.stderr).toBe(0);
      expect(
        hooks()
          .map((h) => h.id)
          .sort(),
      ).toEqual([liveId, mine].sort());
      expect(await l.stop()).toBe(0);
      await waitFor(() => hooks().length === 1, 'the listener to delete its webhook');
    } finally {
      await rx.close();
    }
  });

  it('delete needs an id or --all-stale, not both', async () => {
    expect((await t.run(['webhooks', 'delete', '--yes'])).stderr).toMatch(/which webhook\?/);
    expect((await t.run(['webhooks', 'delete', '123', '--all-stale'])).code).toBe(2);
    const dry = await t.run(['webhooks', 'delete', '123', '--dry-run']);
    expect([dry.code, dry.stderr]).toEqual([0, 'dry run: nothing was sent\n']);
    expect(JSON.parse(dry.stdout)).toEqual({
      dry_run: true,
      method: 'DELETE',
      url: `${t.env.XCTL_BASE_URL}/2/webhooks/123`,
    });
  });
});
