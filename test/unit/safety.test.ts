// Issue 20, in-process: irreversible deletes ask on a terminal and `n` is not an error (items 7,
// 15), a stopped sandbox or an unknown host fails at once (item 12), a 429 on a terminal shows a
// countdown (item 13).
import { describe, expect, it } from 'vitest';
import { HttpClient, fmtClock } from '../../src/core/http.js';
import { NetworkError, UsageError, type XctlError } from '../../src/core/errors.js';
import { HttpRegistry, json, networkError, route } from '../helpers/http-registry.js';
import { FakeClock, TEST_NOW, testContext, type TestContextOptions } from '../helpers/test-context.js';

const CAMPAIGN = '/12/accounts/acct1/campaigns/c8wku2';
const deleted = json({ data: { id: 'c8wku2', name: 'Spring', deleted: true }, data_type: 'campaign' });

/** A terminal on every stream, with `answer` typed at the prompt. */
function atTerminal(reg: HttpRegistry, answer: string, o: TestContextOptions = {}) {
  return testContext({ tty: { stdin: true, stdout: true, stderr: true }, stdin: answer, transport: reg, ...o });
}

async function exitOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 0;
  } catch (e) {
    return (e as XctlError).exitCode ?? -1;
  }
}

describe('irreversible deletes ask first (issue 20 items 7 and 15)', () => {
  it('ads campaigns delete: asks on a terminal; y deletes', async () => {
    const reg = new HttpRegistry().register(route('DELETE', CAMPAIGN), deleted);
    const t = atTerminal(reg, 'y\n');
    await t.run(['ads', 'campaigns', 'delete', 'c8wku2', '-o', 'json']);
    expect(t.stderr()).toContain('delete campaign c8wku2? This cannot be undone. [y/N] ');
    expect(JSON.parse(t.stdout())).toMatchObject({ id: 'c8wku2', deleted: true });
    reg.verify();
  });

  it('n (or just Enter) is not an error: exit 0, "nothing deleted", nothing sent', async () => {
    for (const answer of ['n\n', '\n', 'no\n']) {
      const reg = new HttpRegistry();
      const t = atTerminal(reg, answer);
      await t.run(['ads', 'campaigns', 'delete', 'c8wku2']);
      expect(t.stderr()).toMatch(/delete campaign c8wku2\? This cannot be undone\. \[y\/N\] [^]*nothing deleted\n$/);
      expect(t.stdout()).toBe('');
      expect(reg.requests.filter((r) => r.method !== 'GET')).toEqual([]); // only the name was read
    }
  });

  it('the question shows the name with the id (issue 29), read only when someone will answer', async () => {
    const reg = new HttpRegistry().register(
      route('GET', CAMPAIGN),
      json({ data: { id: 'c8wku2', name: 'Spring \u001b[31msale' } }),
    );
    const t = atTerminal(reg, 'n\n');
    await t.run(['ads', 'campaigns', 'delete', 'c8wku2']);
    expect(t.stderr()).toContain('delete campaign c8wku2 ("Spring \\u001b[31msale")? This cannot be undone. [y/N] ');
    expect(reg.requests.map((r) => r.method)).toEqual(['GET']);
    const yes = new HttpRegistry().register(route('DELETE', CAMPAIGN), deleted);
    await atTerminal(yes, '').run(['ads', 'campaigns', 'delete', 'c8wku2', '--yes', '-o', 'json']);
    expect(yes.requests.map((r) => r.method)).toEqual(['DELETE']);
  });

  it('without a terminal it refuses (exit 2, a hint for --yes) and sends nothing; --yes and -y skip the question', async () => {
    const reg = new HttpRegistry();
    const t = testContext({ transport: reg });
    const err = await t.run(['ads', 'campaigns', 'delete', 'c8wku2']).catch((e: UsageError) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(
      'delete campaign c8wku2? This cannot be undone. — refusing without confirmation',
    );
    expect((err as UsageError).hint).toBe('pass --yes to confirm when not at a terminal');
    expect((err as UsageError).exitCode).toBe(2);
    expect(reg.requests).toEqual([]);
    for (const yes of ['--yes', '-y']) {
      const ok = new HttpRegistry().register(route('DELETE', CAMPAIGN), deleted);
      const u = atTerminal(ok, '');
      await u.run(['ads', 'campaigns', 'delete', 'c8wku2', yes, '-o', 'json']);
      expect(u.stderr()).not.toContain('[y/N]');
      ok.verify();
    }
  });

  it('the other ads deletes, audiences delete and permissions revoke ask too; stats job cancel does not', async () => {
    const cases: Array<[string[], string, string]> = [
      [['ads', 'line-items', 'delete', 'li1'], '/12/accounts/acct1/line_items/li1', 'delete line item li1?'],
      [['ads', 'cards', 'delete', 'cd1'], '/12/accounts/acct1/cards/cd1', 'delete card cd1?'],
      [['audiences', 'delete', 'ca1'], '/12/accounts/acct1/custom_audiences/ca1', 'delete custom audience ca1?'],
      [
        ['audiences', 'do-not-reach', 'delete', 'dnr1'],
        '/12/accounts/acct1/do_not_reach_lists/dnr1',
        'delete do not reach list dnr1?',
      ],
      [
        ['audiences', 'permissions', 'revoke', 'ca1', 'p1'],
        '/12/accounts/acct1/custom_audiences/ca1/permissions/p1',
        'revoke custom audience permission p1 of ca1?',
      ],
      [
        ['audiences', 'permissions', 'revoke', 'ca1', 'p1', '--tailored'],
        '/5/accounts/acct1/tailored_audiences/ca1/permissions/p1',
        'revoke tailored audience permission p1 of ca1?',
      ],
    ];
    for (const [args, path, question] of cases) {
      const no = new HttpRegistry();
      const t = atTerminal(no, 'n\n');
      await t.run(args);
      expect(t.stderr(), args.join(' ')).toContain(`${question} This cannot be undone. [y/N] `);
      expect(t.stderr()).toMatch(new RegExp(`nothing ${args.includes('revoke') ? 'revoked' : 'deleted'}\\n$`));
      expect(no.requests.filter((r) => r.method !== 'GET')).toEqual([]);
      const piped = testContext({ transport: new HttpRegistry() });
      expect(await exitOf(piped.run(args)), args.join(' ')).toBe(2);
      const yes = new HttpRegistry().register(route('DELETE', path), json({ data: { id: 'x', deleted: true } }));
      await testContext({ transport: yes }).run([...args, '--yes', '-o', 'json']);
      yes.verify();
    }
    const cancel = new HttpRegistry().register(
      route('DELETE', '/12/stats/jobs/accounts/acct1/j1'),
      json({ data: { id: 'j1', status: 'CANCELLED' } }),
    );
    await testContext({ transport: cancel }).run(['ads', 'stats', 'job', 'cancel', 'j1', '-o', 'json']);
    cancel.verify();
  });

  it('the deletes that already asked: n exits 0 with "nothing deleted" (it used to be exit 2)', async () => {
    for (const args of [
      ['webhooks', 'delete', '1146654567674912769'],
      ['activity', 'subscriptions', 'delete', '1976325569252868097'],
    ]) {
      const reg = new HttpRegistry();
      const t = atTerminal(reg, 'n\n');
      await t.run(args);
      expect(t.stderr(), args.join(' ')).toMatch(/\? \[y\/N\] [^]*\nnothing deleted\n$/);
      expect(reg.requests).toEqual([]);
    }
  });
});

describe('connection failures that retries cannot mend fail at once (issue 20 item 12)', () => {
  function client(reg: HttpRegistry, base: string) {
    const t = testContext({ transport: reg });
    const clock = new FakeClock();
    const http = new HttpClient({
      apiBase: base,
      adsBase: base,
      io: t.ctx.io,
      credentials: async () => ({
        profile: 'default',
        api_key: 'ck',
        api_secret: 'cs',
        access_token: '1-at',
        access_token_secret: 'ats',
        source: {},
      }),
      bearer: async () => 'BEARER-1',
      now: () => clock.now(),
      sleep: (ms, s) => clock.sleep(ms, s),
      transport: reg,
    });
    return { http, t, clock };
  }

  it('a refused loopback connection (a stopped sandbox): one attempt, no wait, a hint to start it again', async () => {
    const reg = new HttpRegistry().register(route('GET', '/2/webhooks'), networkError('ECONNREFUSED'), {
      times: Infinity,
    });
    const { http, t, clock } = client(reg, 'http://127.0.0.1:4711');
    const err = (await http
      .request({ method: 'GET', path: '/2/webhooks' })
      .catch((e: NetworkError) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toBe('connection refused by 127.0.0.1:4711');
    expect(err.hint).toMatch(
      /nothing listens on 127\.0\.0\.1:4711: is the sandbox running\? .*new port and new keys: `xctl sandbox start --configure`/,
    );
    expect(reg.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    expect(t.stderr()).toBe('');
  });

  it('an unknown host (ENOTFOUND) or a failed lookup (EAI_AGAIN): one attempt, a hint about --base-url', async () => {
    for (const code of ['ENOTFOUND', 'EAI_AGAIN']) {
      const reg = new HttpRegistry().register(route('GET', '/2/webhooks'), networkError(code), { times: Infinity });
      const { http, clock } = client(reg, 'https://sandbx.example.com');
      const err = (await http
        .request({ method: 'GET', path: '/2/webhooks' })
        .catch((e: NetworkError) => e)) as NetworkError;
      expect(err.message).toMatch(/^cannot resolve host sandbx\.example\.com/);
      expect(err.hint).toMatch(/check --base-url/);
      expect(reg.requests).toHaveLength(1);
      expect(clock.sleeps).toEqual([]);
    }
  });

  it('a refused connection to a remote host and a reset keep their bounded retries', async () => {
    for (const [code, base] of [
      ['ECONNREFUSED', 'https://proxy.example.com'],
      ['ECONNRESET', 'https://api.x.com'],
      ['ECONNRESET', 'http://127.0.0.1:4711'],
    ]) {
      const reg = new HttpRegistry().register(route('GET', '/2/webhooks'), networkError(code), { times: Infinity });
      const { http, clock } = client(reg, base!);
      await expect(http.request({ method: 'GET', path: '/2/webhooks' })).rejects.toBeInstanceOf(NetworkError);
      expect(reg.requests, `${code} ${base}`).toHaveLength(5);
      expect(clock.sleeps).toHaveLength(4);
    }
  });
});

describe('a 429 on a terminal shows a countdown (issue 20 item 13)', () => {
  const reset = TEST_NOW / 1000 + 272; // 4:32
  const limited = json({ errors: [{ code: 88, message: 'Rate limit exceeded' }] }, 429, {
    'x-rate-limit-limit': '15',
    'x-rate-limit-remaining': '0',
    'x-rate-limit-reset': String(reset),
  });

  it('one line on stderr, redrawn each second, removed when the wait ends', async () => {
    const reg = new HttpRegistry()
      .register(route('GET', '/2/webhooks'), limited)
      .register(route('GET', '/2/webhooks'), json({ data: [] }));
    const t = testContext({ tty: { stdout: true, stderr: true }, transport: reg, columns: 80 });
    const http = await t.ctx.http();
    await http.request({ method: 'GET', path: '/2/webhooks', auth: 'app' });
    const clock = t.clock as FakeClock;
    // 272.25 s: a quarter second to reach a whole second, then 272 one-second steps
    expect(clock.sleeps[0]).toBe(250);
    expect(clock.sleeps.slice(1).every((ms) => ms === 1000)).toBe(true);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(272_250);
    const err = t.stderr();
    const frames = err.split('\r\u001b[2K').filter(Boolean);
    expect(frames[0]).toBe('rate limited on GET /2/webhooks: retrying in 4:33 (x-rate-limit-reset)');
    expect(frames[1]).toBe('rate limited on GET /2/webhooks: retrying in 4:32 (x-rate-limit-reset)');
    expect(frames).toContain('rate limited on GET /2/webhooks: retrying in 0:01 (x-rate-limit-reset)');
    expect(err).not.toMatch(/retrying in 0:00/);
    expect(err.split('\n')).toHaveLength(2); // no new line per redraw: one line at the end
    expect(
      err.endsWith('\r\u001b[2Krate limited on GET /2/webhooks: waited 272 s (x-rate-limit-reset); retrying\n'),
    ).toBe(true);
    reg.verify();
  });

  it('not a terminal (or --quiet, --no-progress): the one line as before', async () => {
    for (const o of [{ tty: false }, { tty: { stderr: true }, globals: { progress: false } }] as TestContextOptions[]) {
      const reg = new HttpRegistry()
        .register(route('GET', '/2/webhooks'), limited)
        .register(route('GET', '/2/webhooks'), json({ data: [] }));
      const t = testContext({ ...o, transport: reg });
      await (await t.ctx.http()).request({ method: 'GET', path: '/2/webhooks', auth: 'app' });
      expect(t.stderr()).toBe(
        `rate limited on GET /2/webhooks; waiting 272 s until ${new Date(reset * 1000).toISOString()}\n`,
      );
      expect((t.clock as FakeClock).sleeps).toEqual([272_250]);
    }
    const quiet = new HttpRegistry()
      .register(route('GET', '/2/webhooks'), limited)
      .register(route('GET', '/2/webhooks'), json({ data: [] }));
    const q = testContext({ tty: { stderr: true }, globals: { quiet: true }, transport: quiet });
    await (await q.ctx.http()).request({ method: 'GET', path: '/2/webhooks', auth: 'app' });
    expect(q.stderr()).toBe('');
  });

  it('formats the time left as m:ss (h:mm:ss past an hour), rounded up', () => {
    expect([fmtClock(272_000), fmtClock(271_001), fmtClock(5_000), fmtClock(900_000), fmtClock(3_723_000)]).toEqual([
      '4:32',
      '4:32',
      '0:05',
      '15:00',
      '1:02:03',
    ]);
  });
});

describe('-v shows the body of a failing answer, redacted (issue 20 item 16)', () => {
  it('after the status and headers; secrets echoed back are masked; long bodies are cut', async () => {
    const echo = {
      errors: [
        { code: 'INVALID_PARAMETER', message: 'bad', parameter: 'name' },
        { code: 'INVALID_PARAMETER', message: 'worse' },
      ],
      request: { params: { access_token_secret: 'leaked-secret-value' } },
      seen: 'Bearer AAAA-test-bearer',
    };
    const reg = new HttpRegistry()
      .register(route('GET', '/2/x'), json(echo, 400))
      .register(route('GET', '/2/long'), json({ detail: 'x'.repeat(5000) }, 500), { times: Infinity });
    const t = testContext({ transport: reg, globals: { verbose: true }, env: { XCTL_RETRY_BASE_MS: '1' } });
    const http = await t.ctx.http();
    await t.ctx.credentials(); // registers the secrets, as every command's first request does
    await expect(http.request({ method: 'GET', path: '/2/x', auth: 'app' })).rejects.toThrow(/bad \(and 1 more\)/);
    const err = t.stderr();
    expect(err).toMatch(
      /< 400 \(\d+ ms\)\n< content-type: application\/json\n< body: \{"errors":\[\{"code":"INVALID_PARAMETER","message":"bad","parameter":"name"\},\{"code":"INVALID_PARAMETER","message":"worse"\}\]/,
    );
    expect(err).toContain('"access_token_secret":"[redacted]"');
    expect(err).not.toContain('leaked-secret-value');
    expect(err).not.toContain('AAAA-test-bearer');
    await expect(http.request({ method: 'GET', path: '/2/long', retry: false })).rejects.toThrow();
    expect(t.stderr()).toMatch(/< body: \{"detail":"x{3989}\.\.\. \(5013 characters\)\n/);
  });

  it('without -v no body is printed', async () => {
    const reg = new HttpRegistry().register(route('GET', '/2/x'), json({ errors: [{ message: 'bad' }] }, 400));
    const t = testContext({ transport: reg });
    await expect((await t.ctx.http()).request({ method: 'GET', path: '/2/x', auth: 'app' })).rejects.toThrow();
    expect(t.stderr()).toBe('');
  });
});
