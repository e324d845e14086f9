// `xctl __complete <kind> [prefix]` (issue 29 item 9): ids for shell completion from a one-minute
// cache, else from the service within a hard time bound, with nothing on stderr, names cleaned of
// anything a shell could take for syntax, and the completion scripts that call it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completeIds, register, safeDescription } from '../../src/commands/complete-ids.js';
import { bashScript, commandTree, fishScript, idArguments, zshScript } from '../../src/commands/completion.js';
import { buildProgram, GROUPS, loadGroups } from '../../src/program.js';
import { FakeClock, TEST_CREDENTIALS, testContext, type TestContext } from '../helpers/test-context.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';

let t: TestContext;
let cache: string;
beforeEach(() => {
  cache = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-idcache-'));
});
afterEach(() => {
  t.cleanup();
  fs.rmSync(cache, { recursive: true, force: true });
});

const CAMPAIGNS = '/12/accounts/acct1/campaigns';
const campaigns = json({
  data: [
    { id: 'c1abc', name: 'Spring sale' },
    { id: 'c2def', name: 'Brand' },
  ],
});

function ctxWith(http: HttpRegistry, env: Record<string, string | undefined> = {}, clock = new FakeClock()) {
  t = testContext({ transport: http, env: { XCTL_CACHE_DIR: cache, ...env }, clock });
  return t;
}

const cacheFiles = () => fs.readdirSync(path.join(cache, 'completion')).map((f) => path.join(cache, 'completion', f));

describe('__complete: flags -> options (runF)', () => {
  it('takes the kind and an optional prefix', async () => {
    t = testContext();
    expect(
      await t.optionsOf((p, runF) => register(p.command('__complete'), [], runF), ['__complete', 'campaign']),
    ).toEqual({ kind: 'campaign', prefix: undefined });
    t.cleanup();
    t = testContext();
    expect(
      await t.optionsOf((p, runF) => register(p.command('__complete'), [], runF), ['__complete', 'audience', '1a']),
    ).toEqual({ kind: 'audience', prefix: '1a' });
  });
});

describe('__complete: cache', () => {
  it('a miss asks the service once (one page of 1000, no retry), prints id TAB name, caches 0600', async () => {
    const http = new HttpRegistry().register(route('GET', CAMPAIGNS, { query: { count: '1000' } }), campaigns);
    ctxWith(http);
    await completeIds(t.ctx, { kind: 'campaign' });
    http.verify();
    expect(t.stdout()).toBe('c1abc\tSpring sale\nc2def\tBrand\n');
    expect(t.stderr()).toBe('');
    const [file] = cacheFiles();
    expect(fs.statSync(file!).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file!)).mode & 0o777).toBe(0o700);
    const text = fs.readFileSync(file!, 'utf8');
    for (const secret of Object.values(TEST_CREDENTIALS).filter((v) => v !== 'acct1'))
      expect(text).not.toContain(secret);
  });

  it('a hit within a minute sends nothing; the prefix filters ids', async () => {
    const http = new HttpRegistry().register(route('GET', CAMPAIGNS), campaigns);
    const clock = new FakeClock();
    ctxWith(http, {}, clock);
    await completeIds(t.ctx, { kind: 'campaign' });
    clock.t += 59_000;
    await completeIds(t.ctx, { kind: 'campaign', prefix: 'c2' });
    expect(http.requests).toHaveLength(1);
    expect(t.stdout()).toBe('c1abc\tSpring sale\nc2def\tBrand\nc2def\tBrand\n');
  });

  it('stale after a minute: asks again and keeps the new list; a failing service gives the stale list', async () => {
    const http = new HttpRegistry()
      .register(route('GET', CAMPAIGNS), campaigns)
      .register(route('GET', CAMPAIGNS), json({ data: [{ id: 'c3ghi', name: 'New' }] }))
      .register(route('GET', CAMPAIGNS), json({ errors: [{ code: 'SERVICE_UNAVAILABLE' }] }, 503));
    const clock = new FakeClock();
    ctxWith(http, {}, clock);
    await completeIds(t.ctx, { kind: 'campaign' });
    clock.t += 61_000;
    await completeIds(t.ctx, { kind: 'campaign' });
    clock.t += 61_000;
    await completeIds(t.ctx, { kind: 'campaign' });
    http.verify();
    expect(http.requests).toHaveLength(3); // the 503 was not retried
    expect(t.stdout()).toBe('c1abc\tSpring sale\nc2def\tBrand\nc3ghi\tNew\nc3ghi\tNew\n');
    expect(t.stderr()).toBe('');
  });

  it('one cache per profile, account and kind', async () => {
    const http = new HttpRegistry()
      .register(route('GET', CAMPAIGNS), campaigns)
      .register(route('GET', '/12/accounts/acct2/campaigns'), json({ data: [{ id: 'x9', name: 'Other' }] }))
      .register(route('GET', '/12/accounts/acct1/line_items'), json({ data: [{ id: 'l1', name: 'Line' }] }));
    ctxWith(http);
    await completeIds(t.ctx, { kind: 'campaign' });
    const other = testContext({ transport: http, env: { XCTL_CACHE_DIR: cache, XCTL_ACCOUNT_ID: 'acct2' } });
    await completeIds(other.ctx, { kind: 'campaign' });
    await completeIds(t.ctx, { kind: 'line-item' });
    other.cleanup();
    http.verify();
    expect(other.stdout()).toBe('x9\tOther\n');
    expect(t.stdout()).toBe('c1abc\tSpring sale\nc2def\tBrand\nl1\tLine\n');
    expect(cacheFiles()).toHaveLength(3);
  });

  it('a cache file others can write to, or that is not a regular file, is not believed', async () => {
    const http = new HttpRegistry().register(route('GET', CAMPAIGNS), campaigns, { times: 2 });
    const clock = new FakeClock();
    ctxWith(http, {}, clock);
    await completeIds(t.ctx, { kind: 'campaign' });
    const [file] = cacheFiles();
    fs.writeFileSync(file!, JSON.stringify({ fetched_at: clock.t, entries: [{ id: 'planted', name: 'x' }] }));
    fs.chmodSync(file!, 0o666);
    await completeIds(t.ctx, { kind: 'campaign' });
    expect(http.requests).toHaveLength(2);
    expect(t.stdout()).not.toContain('planted');
  });
});

describe('__complete: never blocks, never talks on stderr', () => {
  it('a slow service: nothing printed, back within the bound', async () => {
    const slow = () =>
      new Promise<{ status: number; body: string }>((resolve) =>
        setTimeout(() => resolve({ status: 200, body: '{"data":[{"id":"late","name":"x"}]}' }), 3000),
      );
    const http = new HttpRegistry().register(route('GET', CAMPAIGNS), slow);
    ctxWith(http);
    const started = performance.now();
    await completeIds(t.ctx, { kind: 'campaign', timeoutMs: 300 });
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1000);
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toBe('');
  });

  it('a failure is remembered for 30 s: the next Tabs answer at once, then the service is asked again', async () => {
    const http = new HttpRegistry()
      .register(route('GET', CAMPAIGNS), json({ errors: [{ code: 'SERVICE_UNAVAILABLE' }] }, 503))
      .register(route('GET', CAMPAIGNS), campaigns);
    const clock = new FakeClock();
    ctxWith(http, {}, clock);
    await completeIds(t.ctx, { kind: 'campaign' });
    clock.t += 29_000;
    await completeIds(t.ctx, { kind: 'campaign' });
    expect(http.requests).toHaveLength(1); // remembered: the second Tab did not wait on the service
    clock.t += 2_000;
    await completeIds(t.ctx, { kind: 'campaign' });
    http.verify();
    expect(http.requests).toHaveLength(2);
    expect(t.stdout()).toBe('c1abc\tSpring sale\nc2def\tBrand\n');
    expect(t.stderr()).toBe('');
  });

  it('no ads account, or no credentials: nothing, quietly', async () => {
    ctxWith(new HttpRegistry(), { XCTL_ACCOUNT_ID: undefined });
    await completeIds(t.ctx, { kind: 'campaign' });
    expect(t.stdout() + t.stderr()).toBe('');
    t.cleanup();
    const http = new HttpRegistry();
    ctxWith(http, { XCTL_ACCESS_TOKEN: undefined, XCTL_ACCESS_TOKEN_SECRET: undefined, XCTL_API_KEY: undefined });
    await completeIds(t.ctx, { kind: 'line-item' });
    expect(t.stdout() + t.stderr()).toBe('');
  });

  it('an unknown kind is a usage error naming the kinds', async () => {
    ctxWith(new HttpRegistry());
    await expect(completeIds(t.ctx, { kind: 'tweet' })).rejects.toThrow(
      'kind must be one of campaign, line-item, audience, webhook, subscription (got "tweet")',
    );
  });
});

describe('__complete: service data reaches the shell harmless', () => {
  it('names lose control characters, tabs, newlines and shell syntax; odd ids are dropped', async () => {
    const http = new HttpRegistry().register(
      route('GET', CAMPAIGNS),
      json({
        data: [
          { id: 'ok1', name: 'Sale\t$(rm -rf ~)\n`id`; echo "hi" | sh > /x & \\ \'q\'' },
          { id: 'ok2', name: '\u001b]0;pwned\u0007\u001b[31mRed\u202e gnp.exe\u200b' },
          { id: 'ok3', name: 'Été à Zürich: 50% off, 2/3 @brand +more' },
          { id: 'bad id', name: 'space' },
          { id: '$(x)', name: 'subst' },
          { id: 'a:b', name: 'colon breaks zsh entries' },
          { id: 42, name: 'number ids are fine' },
          { name: 'no id' },
        ],
      }),
    );
    ctxWith(http);
    await completeIds(t.ctx, { kind: 'campaign' });
    expect(t.stdout()).toBe(
      [
        'ok1\tSale rm -rf id echo hi sh /x q',
        'ok2\t0 pwned 31mRed gnp.exe',
        'ok3\tÉté à Zürich: 50% off, 2/3 @brand +more',
        '42\tnumber ids are fine',
        '',
      ].join('\n'),
    );
    expect(safeDescription('x'.repeat(80))).toBe(`${'x'.repeat(59)}…`);
  });

  it('webhooks: app-only auth, the URL as the description; subscriptions: event type and user', async () => {
    const http = new HttpRegistry()
      .register(
        route('GET', '/2/webhooks'),
        json({ data: [{ id: '1146654567674912769', url: 'https://hooks.example.com/x', valid: true }] }),
      )
      .register(
        route('GET', '/2/activity/subscriptions'),
        json({
          data: [
            {
              subscription_id: '1882343291919171584',
              event_type: 'profile.update.bio',
              filter: { user_id: '2244994945' },
            },
          ],
        }),
      );
    ctxWith(http);
    await completeIds(t.ctx, { kind: 'webhook' });
    await completeIds(t.ctx, { kind: 'subscription', prefix: '188' });
    http.verify();
    expect(http.requests[0]!.headers.authorization).toBe('Bearer AAAA-test-bearer');
    expect(t.stdout()).toBe(
      '1146654567674912769\thttps://hooks.example.com/x\n1882343291919171584\tprofile.update.bio user 2244994945\n',
    );
  });
});

describe('completion scripts call __complete where an id goes', () => {
  it('id arguments and id options of the real tree, in bash, zsh and fish', async () => {
    const program = buildProgram('0.0.0-test');
    await loadGroups(program, Object.keys(GROUPS));
    const ids = new Map(idArguments(program));
    expect(ids.get('ads campaigns get 0')).toBe('campaign');
    expect(ids.get('ads line-items delete 0')).toBe('line-item');
    expect(ids.get('audiences get 0')).toBe('audience');
    expect(ids.get('audiences upload 0')).toBe('audience');
    expect(ids.get('audiences upload 1')).toBeUndefined();
    expect(ids.get('webhooks delete 0')).toBe('webhook');
    expect(ids.get('account-activity subscribe 0')).toBe('webhook');
    expect(ids.get('activity subscriptions delete *')).toBe('subscription');
    const nodes = commandTree(program);
    const bash = bashScript(nodes, [...ids]);
    expect(bash).toContain("['ads campaigns get 0']='campaign'");
    expect(bash).toContain("['--line-item-id']='line-item'");
    expect(bash).toContain("['--campaign-ids']='campaign'");
    const zsh = zshScript(nodes, [...ids]);
    expect(zsh).toContain("'ads campaigns get 0' 'campaign'");
    expect(zsh).toContain('ids) _describe -t ids id reply -P "$_xctl_prefix" ;;');
    const fish = fishScript(nodes, [...ids]);
    expect(fish).toContain(
      "complete -c xctl -n 'test (__xctl_path) = '\\''ads campaigns get'\\''' -a '(__xctl_ids campaign 0)'",
    );
    expect(fish).toMatch(/-l line-item-id -xa '\(__xctl_ids line-item -\)'/);
    // hidden: not offered as a command
    expect(nodes.find((n) => n.path === '')!.subs.map((s) => s.name)).not.toContain('__complete');
  });

  it('a hidden command is not in the root help', async () => {
    const program = buildProgram('0.0.0-test');
    expect(program.helpInformation()).not.toContain('__complete');
  });
});
