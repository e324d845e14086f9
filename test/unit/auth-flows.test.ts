// In-process checks of the login pieces: flag rules, the loopback callback server, the browser
// opener (replaced by a fake that approves over HTTP), and the twurl rc parser.
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { UsageError } from '../../src/core/errors.js';
import { authLogin, checkLoginOptions } from '../../src/commands/auth/login.js';
import { startCallbackServer } from '../../src/commands/auth/callback-server.js';
import { parseTwurlrc } from '../../src/commands/auth/import.js';
import { authorizeUrl } from '../../src/commands/auth/oauth-flow.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { decideOnPage } from '../helpers/oauth-client.js';
import { tempDir } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('checkLoginOptions', () => {
  it('parses the defaults and durations', () => {
    expect(checkLoginOptions({})).toEqual({
      port: 0,
      accessLevel: undefined,
      screenName: undefined,
      timeoutMs: 300_000,
    });
    expect(checkLoginOptions({ timeout: '90' }).timeoutMs).toBe(90_000);
    // A bare number is seconds, whole or decimal (it was milliseconds when decimal: 1.5 -> 2 ms).
    expect(checkLoginOptions({ timeout: '1.5' }).timeoutMs).toBe(1500);
    expect(
      checkLoginOptions({ timeout: '2m', accessLevel: 'read', screenName: '@bob', callbackPort: '8123' }),
    ).toMatchObject({
      timeoutMs: 120_000,
      accessLevel: 'read',
      screenName: 'bob',
      port: 8123,
    });
  });
  it('names the flag of each broken rule', () => {
    const flagOf = (o: Parameters<typeof checkLoginOptions>[0]) => {
      try {
        checkLoginOptions(o);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as UsageError).flag;
      }
      return undefined;
    };
    expect(flagOf({ accessLevel: 'delete' })).toBe('--access-level');
    expect(flagOf({ callbackPort: '0' })).toBe('--callback-port');
    expect(flagOf({ pin: true, callbackPort: '9000' })).toBe('--callback-port');
    expect(flagOf({ timeout: '0s' })).toBe('--timeout');
    expect(flagOf({ timeout: '2h' })).toBe('--timeout');
    expect(flagOf({ screenName: 'way_too_long_handle_x' })).toBe('--screen-name');
  });
});

describe('authorizeUrl', () => {
  it('carries the request token and only the optional parameters asked for', () => {
    expect(authorizeUrl('https://api.x.com', 'abc')).toBe('https://api.x.com/oauth/authorize?oauth_token=abc');
    expect(authorizeUrl('http://127.0.0.1:9/', 'a b', { forceLogin: true, screenName: 'bob' })).toBe(
      'http://127.0.0.1:9/oauth/authorize?oauth_token=a+b&force_login=true&screen_name=bob',
    );
  });
});

describe('callback server', () => {
  it('listens on 127.0.0.1, ignores other paths and other tokens, settles on the expected one', async () => {
    const s = await startCallbackServer(0);
    try {
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      s.expect('rt1');
      expect((await fetch(s.url.replace('/callback', '/favicon.ico'))).status).toBe(404);
      expect((await fetch(`${s.url}?oauth_token=other&oauth_verifier=v`)).status).toBe(400);
      expect((await fetch(`${s.url}?oauth_token=rt1`)).status).toBe(400); // no verifier
      const ok = await fetch(`${s.url}?oauth_token=rt1&oauth_verifier=v1`);
      expect(ok.headers.get('content-type')).toMatch(/text\/html/);
      expect(await s.outcome).toEqual({ kind: 'verifier', verifier: 'v1' });
    } finally {
      await s.close();
    }
  });
  it('reports a denial', async () => {
    const s = await startCallbackServer(0);
    s.expect('rt2');
    await fetch(`${s.url}?denied=rt2`);
    expect(await s.outcome).toEqual({ kind: 'denied' });
    await s.close();
  });
});

describe('authLogin in-process', () => {
  it('opens the browser with the authorize URL (here a fake that approves) and stores the token', async () => {
    const sb = await startSandbox({});
    const dir = tempDir();
    dirs.push(dir);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    stdout.on('data', (d) => (out += d));
    const ctx = new Context({
      streams: { stdin: new PassThrough(), stdout, stderr },
      env: {
        XCTL_CONFIG_DIR: dir,
        XCTL_BASE_URL: sb.baseUrl,
        XCTL_API_KEY: sb.seed.api_key,
        XCTL_API_SECRET: sb.seed.api_secret,
      },
      globals: { json: true },
    });
    const opened: string[] = [];
    try {
      await authLogin(
        ctx,
        { timeout: '20s' },
        {
          openUrl: async (url) => {
            opened.push(url);
            const page = await decideOnPage(url, 'allow', { screenName: 'sandbox_bob' });
            await fetch(page.location!);
          },
        },
      );
    } finally {
      await sb.close();
    }
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(/\/oauth\/authorize\?oauth_token=/);
    expect(JSON.parse(out)).toMatchObject({ screen_name: 'sandbox_bob', user_id: '6253282' });
    expect(await ctx.profile()).toMatchObject({ screen_name: 'sandbox_bob', user_id: '6253282' });
  });
});

describe('parseTwurlrc', () => {
  const rc = `
profiles:
  alice:
    KEY1:
      username: alice
      consumer_key: KEY1
      consumer_secret: S1
      token: 42-TOKEN
      secret: TS
    KEY2:
      username: alice
      consumer_key: KEY2
      consumer_secret: S2
  bob:
    KEY1:
      consumer_key: KEY1
      consumer_secret: S1
configuration:
  default_profile: [alice, KEY2]
bearer_tokens:
  KEY1: AAAA%2Fbearer
`;
  it('maps every profile, names clashes by key, attaches bearers and the default', async () => {
    const e = await parseTwurlrc(rc, 'rc');
    expect(e.map((x) => x.name)).toEqual(['alice.KEY1', 'alice.KEY2', 'bob']);
    expect(e[0]!.profile).toEqual({
      api_key: 'KEY1',
      api_secret: 'S1',
      access_token: '42-TOKEN',
      access_token_secret: 'TS',
      screen_name: 'alice',
      user_id: '42',
      bearer_token: 'AAAA%2Fbearer',
      bearer_key: 'KEY1',
    });
    expect(e.filter((x) => x.isDefault).map((x) => x.name)).toEqual(['alice.KEY2']);
    expect(e[2]!.profile.access_token).toBeUndefined();
  });
  it('rejects what is not a twurl rc file', async () => {
    await expect(parseTwurlrc('foo: 1', 'rc')).rejects.toThrow(/no "profiles" map/);
    await expect(parseTwurlrc('profiles:\n  a:\n    K:\n      consumer_key: K\n', 'rc')).rejects.toThrow(
      /lacks consumer_key or consumer_secret/,
    );
    await expect(parseTwurlrc('profiles: {}', 'rc')).rejects.toThrow(/holds no profiles/);
  });
});
