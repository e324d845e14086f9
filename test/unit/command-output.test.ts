// What a user sees from the main list commands, exactly, on a terminal (table, 100 columns) and
// through a pipe (tsv), with every request they send: in-process through testContext and an
// HTTP registry, the real command tree (flags, defaults, auth choice, paths).
import { afterEach, describe, expect, it } from 'vitest';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { testContext, type TestContext } from '../helpers/test-context.js';

const made: TestContext[] = [];
afterEach(() => {
  for (const t of made.splice(0)) t.cleanup();
});

/** Runs argv on a terminal and piped; returns both outputs, and checks every stub was used each time. */
async function both(
  argv: string[],
  stub: (reg: HttpRegistry) => void,
): Promise<{ tty: TestContext; piped: TestContext; requests: HttpRegistry['requests'] }> {
  const out: TestContext[] = [];
  let requests: HttpRegistry['requests'] = [];
  for (const tty of [true, false]) {
    const reg = new HttpRegistry();
    stub(reg);
    const t = testContext({ tty, columns: 100, transport: reg });
    made.push(t);
    await t.run(argv);
    reg.verify();
    requests = reg.requests;
    out.push(t);
  }
  return { tty: out[0]!, piped: out[1]!, requests };
}

const table = (...lines: string[]) => lines.join('\n') + '\n';

describe('webhooks list', () => {
  it('GET /2/webhooks with the app bearer; status column; one line per webhook, a long URL cut with …', async () => {
    const { tty, piped, requests } = await both(['webhooks', 'list'], (reg) =>
      reg.register(
        route('GET', '/2/webhooks'),
        json({
          data: [
            {
              id: '1146654567674912769',
              url: 'https://hooks.example.com/x',
              valid: true,
              created_at: '2026-01-10T08:00:00.000Z',
            },
            {
              id: '2',
              url: 'https://b.example.com/a/path/long/enough/to/wrap/on/a/terminal/of/one/hundred/columns/yes',
              valid: false,
              created_at: '2026-01-11T09:30:00.000Z',
            },
          ],
          meta: { result_count: 2 },
        }),
      ),
    );
    expect(requests.map((r) => [r.method, r.url.toString(), r.headers.authorization])).toEqual([
      ['GET', 'https://api.x.com/2/webhooks', 'Bearer AAAA-test-bearer'],
    ]);
    expect(tty.stdout()).toBe(
      table(
        // issue 46: the URL before the creation time
        '┌─────────────────────┬──────────────────────────────────────────────────────────────────┬─────────┐',
        '│ id                  │ url                                                              │ status  │',
        '├─────────────────────┼──────────────────────────────────────────────────────────────────┼─────────┤',
        '│ 1146654567674912769 │ https://hooks.example.com/x                                      │ valid   │',
        '│ 2                   │ https://b.example.com/a/path/long/enough/to/wrap/on/a/terminal/… │ invalid │',
        '└─────────────────────┴──────────────────────────────────────────────────────────────────┴─────────┘',
      ),
    );
    expect(piped.stdout()).toBe(
      '1146654567674912769\thttps://hooks.example.com/x\tvalid\t2026-01-10T08:00:00.000Z\n' +
        '2\thttps://b.example.com/a/path/long/enough/to/wrap/on/a/terminal/of/one/hundred/columns/yes\tinvalid\t2026-01-11T09:30:00.000Z\n',
    );
    expect(tty.stderr() + piped.stderr()).toBe('(1 column hidden: created_at; use -o json or --fields)\n');
  });

  it('service data cannot smuggle a terminal escape into a table row', async () => {
    const { piped } = await both(['webhooks', 'list'], (reg) =>
      reg.register(
        route('GET', '/2/webhooks'),
        json({ data: [{ id: '9', url: 'https://e.example.com/\tx\ny', valid: true }] }),
      ),
    );
    expect(piped.stdout()).toBe('9\thttps://e.example.com/\\tx\\ny\tvalid\t\n');
  });
});

describe('activity subscriptions list', () => {
  it('asks for 100 per page with the user token; ids whole, the filter as k=v, a column dropped to fit (and said)', async () => {
    const { tty, piped, requests } = await both(['activity', 'subscriptions', 'list'], (reg) =>
      reg.register(
        route('GET', '/2/activity/subscriptions', { query: { max_results: '100' } }),
        json({
          data: [
            {
              subscription_id: '1900000000000000001',
              event_type: 'dm.received',
              filter: { user_id: '783214', direction: 'inbound' },
              tag: 'support',
              webhook_id: '1146654567674912769',
              created_at: '2026-01-10T08:00:00.000Z',
            },
            {
              subscription_id: '1900000000000000002',
              event_type: 'spaces.start',
              filter: {},
              created_at: '2026-01-11T09:30:00.000Z',
            },
          ],
          meta: { result_count: 2 },
        }),
      ),
    );
    expect(requests[0]!.headers.authorization).toMatch(/^OAuth .*oauth_token="1001-test-access-token"/);
    expect(tty.stdout()).toBe(
      table(
        '┌─────────────────────┬──────────────┬─────────────────────────────┬─────────┬─────────────────────┐',
        '│ subscription_id     │ event_type   │ filter                      │ tag     │ webhook_id          │',
        '├─────────────────────┼──────────────┼─────────────────────────────┼─────────┼─────────────────────┤',
        '│ 1900000000000000001 │ dm.received  │ user_id=783214 direction=i… │ support │ 1146654567674912769 │',
        '│ 1900000000000000002 │ spaces.start │                             │         │                     │',
        '└─────────────────────┴──────────────┴─────────────────────────────┴─────────┴─────────────────────┘',
      ),
    );
    expect(tty.stderr()).toBe('(1 column hidden: created_at; use -o json or --fields)\n');
    expect(piped.stdout()).toBe(
      '1900000000000000001\tdm.received\t{"user_id":"783214","direction":"inbound"}\tsupport\t1146654567674912769\t2026-01-10T08:00:00.000Z\n' +
        '1900000000000000002\tspaces.start\t{}\t\t\t2026-01-11T09:30:00.000Z\n',
    );
  });

  it('--all follows next_token; --limit caps the page size and the records', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/2/activity/subscriptions', { query: { max_results: '2' } }),
      json({ data: [{ subscription_id: '1' }, { subscription_id: '2' }], meta: { next_token: 'p2' } }),
    );
    const t = testContext({ transport: reg });
    made.push(t);
    await t.run(['activity', 'subscriptions', 'list', '--limit', '2', '-o', 'jsonl', '--fields', 'subscription_id']);
    expect(t.stdout()).toBe('{"subscription_id":"1"}\n{"subscription_id":"2"}\n');
    reg.verify();
  });
});

describe('ads campaigns list', () => {
  it('GET /12/accounts/:account/campaigns on the ads host; total_count on stderr', async () => {
    const { tty, piped, requests } = await both(['ads', 'campaigns', 'list', '--with-total-count'], (reg) =>
      reg.register(
        route('GET', '/12/accounts/acct1/campaigns', { query: { with_total_count: 'true' } }),
        json({
          data: [
            {
              id: 'c1a2b',
              name: 'Spring launch',
              entity_status: 'ACTIVE',
              funding_instrument_id: 'fi1',
              daily_budget_amount_local_micro: 50000000,
              total_budget_amount_local_micro: null,
              currency: 'USD',
              created_at: '2026-01-05T10:00:00Z',
            },
          ],
          next_cursor: null,
          data_type: 'campaign',
          total_count: 1,
        }),
      ),
    );
    expect(requests[0]!.url.origin).toBe('https://ads-api.x.com');
    expect(tty.stdout()).toBe(
      table(
        '┌───────┬───────────────┬───────────────┬───────────────────────┬──────────────┬──────────────┐',
        '│ id    │ name          │ entity_status │ funding_instrument_id │ daily_budget │ total_budget │',
        '├───────┼───────────────┼───────────────┼───────────────────────┼──────────────┼──────────────┤',
        '│ c1a2b │ Spring launch │ ACTIVE        │ fi1                   │ 50.00 USD    │              │',
        '└───────┴───────────────┴───────────────┴───────────────────────┴──────────────┴──────────────┘',
      ),
    );
    expect(piped.stdout()).toBe('c1a2b\tSpring launch\tACTIVE\tfi1\t50000000\t\t2026-01-05T10:00:00Z\n');
    expect(tty.stderr()).toBe('total_count: 1\n(1 column hidden: created_at; use -o json or --fields)\n'); // metrics over timestamps (issue 29)
  });

  it('refuses a bad flag before sending anything', async () => {
    const reg = new HttpRegistry();
    const t = testContext({ transport: reg });
    made.push(t);
    await expect(t.run(['ads', 'campaigns', 'list', '--count', '1001'])).rejects.toThrow(
      '--count must be between 1 and 1000 (got "1001")',
    );
    expect(reg.requests).toEqual([]);
  });
});

describe('audiences list', () => {
  it('GET /12/accounts/:account/custom_audiences', async () => {
    const { tty, piped } = await both(['audiences', 'list'], (reg) =>
      reg.register(
        route('GET', '/12/accounts/acct1/custom_audiences'),
        json({
          data: [
            {
              id: 'ca1',
              name: 'Newsletter',
              audience_size: 1234,
              audience_type: 'WEB',
              is_owner: true,
              description: null,
              created_at: '2026-01-02T00:00:00Z',
              deleted: false,
            },
          ],
          next_cursor: null,
        }),
      ),
    );
    expect(tty.stdout()).toBe(
      table(
        '┌─────┬────────────┬───────────────┬───────────────┬──────────┬─────────────┬─────────┐',
        '│ id  │ name       │ audience_size │ audience_type │ is_owner │ description │ deleted │',
        '├─────┼────────────┼───────────────┼───────────────┼──────────┼─────────────┼─────────┤',
        '│ ca1 │ Newsletter │ 1234          │ WEB           │ true     │             │ false   │',
        '└─────┴────────────┴───────────────┴───────────────┴──────────┴─────────────┴─────────┘',
      ),
    );
    expect(piped.stdout()).toBe('ca1\tNewsletter\t1234\tWEB\ttrue\t\t2026-01-02T00:00:00Z\tfalse\n');
  });
});

describe('auth status', () => {
  it('masks the key, says where each credential comes from, sends nothing', async () => {
    const { tty, piped, requests } = await both(['auth', 'status'], () => {});
    expect(requests).toEqual([]);
    expect(tty.stdout()).toBe(
      table(
        '┌─────────┬──────────┬───────────┬────────────┬────────────┬────────┬───────────────────┬──────────┐',
        '│ profile │ selected │ api_key   │ api_secret │ user_token │ bearer │ from_env          │ base_url │',
        '├─────────┼──────────┼───────────┼────────────┼────────────┼────────┼───────────────────┼──────────┤',
        '│ default │ true     │ test…(12) │ set        │ from env   │ env    │ XCTL_API_KEY XCT… │          │',
        '└─────────┴──────────┴───────────┴────────────┴────────────┴────────┴───────────────────┴──────────┘',
      ),
    );
    expect(piped.stdout()).toBe(
      'default\ttrue\ttest…(12)\tset\tfrom env\tenv\tXCTL_API_KEY XCTL_API_SECRET XCTL_ACCESS_TOKEN XCTL_ACCESS_TOKEN_SECRET XCTL_BEARER_TOKEN\t\tfile\n',
    );
    expect(piped.stderr()).toBe(
      `store: ${piped.configDir}/config.json (folder from XCTL_CONFIG_DIR)\n` +
        // issue 46: two lines within 80 columns, not one of 134
        'secrets: new secrets go to the 0600 file; no OS keychain\n' +
        '  (no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset): no Secret Service)\n' +
        'environment overrides the profile "default": XCTL_API_KEY, XCTL_API_SECRET, XCTL_ACCESS_TOKEN, XCTL_ACCESS_TOKEN_SECRET, XCTL_BEARER_TOKEN\n' +
        'environment also sets: XCTL_CONFIG_DIR, XCTL_ACCOUNT_ID=acct1\n',
    );
    for (const secret of ['test-api-secret', '1001-test-access-token', 'test-access-token-secret', 'AAAA-test-bearer'])
      expect(tty.stdout() + tty.stderr()).not.toContain(secret);
  });
});

// Issue 29: at 80 columns `auth status` cut the user (its id inside), and three account names
// read "Sandbox …". Ids are never cut; names go short only after the other columns have gone.
describe('80 and 160 columns: ids whole, names shortened last', () => {
  const noEnv = {
    XCTL_API_KEY: undefined,
    XCTL_API_SECRET: undefined,
    XCTL_ACCESS_TOKEN: undefined,
    XCTL_ACCESS_TOKEN_SECRET: undefined,
    XCTL_BEARER_TOKEN: undefined,
    XCTL_ACCOUNT_ID: undefined,
  };
  const store = {
    default_profile: 'sandbox',
    profiles: {
      sandbox: {
        api_key: 'dXIuWxUEQnM4VeOoWIYxlFzHS',
        api_secret: 'sandbox-secret',
        access_token: '2244994945-qmYxOlgIDhh5dYSzTnXxPuZ8u7a93yFW',
        access_token_secret: 'sandbox-token-secret',
        user_id: '2244994945',
        screen_name: 'xctl_dev',
        base_url: 'http://127.0.0.1:41234',
        account_id: 'tod61m5h',
      },
      work: {
        api_key: 'abcdefghijklmnopqrstu',
        api_secret: 'work-secret',
        access_token: '783214-aaaa',
        access_token_secret: 'work-token-secret',
        user_id: '783214',
        screen_name: 'sandbox_alice',
      },
    },
  };
  const status = async (columns: number) => {
    const t = testContext({ tty: true, columns, env: noEnv });
    made.push(t);
    const fs = await import('node:fs');
    fs.writeFileSync(`${t.configDir}/config.json`, JSON.stringify(store), { mode: 0o600 });
    await t.run(['auth', 'status']);
    return t;
  };

  it('auth status at 80: the user with its id whole; the columns that do not fit are named', async () => {
    const t = await status(80);
    expect(t.stdout()).toBe(
      table(
        '┌─────────┬──────────┬───────────┬─────────────────────────┐',
        '│ profile │ selected │ api_key   │ user_token              │',
        '├─────────┼──────────┼───────────┼─────────────────────────┤',
        '│ sandbox │ true     │ dXIu…(25) │ @xctl_dev (2244994945)  │',
        '│ work    │ false    │ abcd…(21) │ @sandbox_alice (783214) │',
        '└─────────┴──────────┴───────────┴─────────────────────────┘',
      ),
    );
    expect(t.stderr()).toMatch(
      /^\(5 columns hidden: base_url, api_secret, bearer, from_env, secrets; use -o json or --fields\)\n/,
    );
  });

  it('auth status at 160: every column', async () => {
    const t = await status(160);
    expect(t.stdout()).toBe(
      table(
        '┌─────────┬──────────┬───────────┬────────────┬─────────────────────────┬────────┬──────────┬────────────────────────┬─────────┐',
        '│ profile │ selected │ api_key   │ api_secret │ user_token              │ bearer │ from_env │ base_url               │ secrets │',
        '├─────────┼──────────┼───────────┼────────────┼─────────────────────────┼────────┼──────────┼────────────────────────┼─────────┤',
        '│ sandbox │ true     │ dXIu…(25) │ set        │ @xctl_dev (2244994945)  │        │          │ http://127.0.0.1:41234 │ file    │',
        '│ work    │ false    │ abcd…(21) │ set        │ @sandbox_alice (783214) │        │          │                        │ file    │',
        '└─────────┴──────────┴───────────┴────────────┴─────────────────────────┴────────┴──────────┴────────────────────────┴─────────┘',
      ),
    );
    expect(t.stderr()).not.toMatch(/hidden/);
  });

  const accounts = [
    ['18ce54d4x5t', 'Sandbox Ads Account', 'Sandbox Business', 'TECHNOLOGY'],
    ['1gwd6tjb', 'Sandbox Sister Account', 'Sandbox Business', 'OTHER'],
    ['5gvk9h', 'Sandbox Partner Account', 'Partner Business', 'OTHER'],
  ].map(([id, name, business_name, industry_type]) => ({
    id,
    name,
    business_name,
    industry_type,
    timezone: 'America/New_York',
    approval_status: 'ACCEPTED',
    deleted: false,
  }));

  it.each([80, 160])('ads accounts list at %i: the account names whole', async (columns) => {
    const reg = new HttpRegistry().register(route('GET', '/12/accounts'), json({ data: accounts }));
    const t = testContext({ tty: true, columns, transport: reg });
    made.push(t);
    await t.run(['ads', 'accounts', 'list']);
    for (const a of accounts) expect(t.stdout()).toContain(`│ ${a.id} `), expect(t.stdout()).toContain(` ${a.name} `);
    for (const l of t.stdout().trimEnd().split('\n')) expect(l.length).toBeLessThanOrEqual(columns);
    if (columns === 80)
      expect(t.stdout().split('\n')[1]).toBe(
        '│ id          │ name                    │ business_name    │ approval_status │',
      );
  });
});
