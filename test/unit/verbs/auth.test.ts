// `xctl auth ...` tested where the verbs live (gh's list_test.go): flags -> options through runF,
// then each run function (or the real command tree in-process) against the HTTP registry: the
// exact request, stdout and stderr, and every refusal before anything is sent (exit 2, no request).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { authAppToken, register as registerAppToken } from '../../../src/commands/auth/app-token.js';
import { register as registerImport } from '../../../src/commands/auth/import.js';
import { register as registerLogin } from '../../../src/commands/auth/login.js';
import { authLogout, register as registerLogout } from '../../../src/commands/auth/logout.js';
import { authMigrate, register as registerMigrate } from '../../../src/commands/auth/migrate.js';
import { profilesList } from '../../../src/commands/auth/profiles/list.js';
import { profilesRemove, register as registerRemove } from '../../../src/commands/auth/profiles/remove.js';
import { profilesUse } from '../../../src/commands/auth/profiles/use.js';
import { authSet, register as registerSet } from '../../../src/commands/auth/set.js';
import { authStatus, register as registerStatus } from '../../../src/commands/auth/status.js';
import { authToken, register as registerToken } from '../../../src/commands/auth/token.js';
import { HttpRegistry, json, route, text } from '../../helpers/http-registry.js';
import { outcome } from '../../helpers/outcome.js';
import { TEST_CREDENTIALS, useTestContexts, type TestContext } from '../../helpers/test-context.js';

const ctxOf = useTestContexts();
/** No credential from the environment: only what the profile store holds. */
const NO_ENV: Record<string, undefined> = Object.fromEntries(Object.keys(TEST_CREDENTIALS).map((k) => [k, undefined]));

type Store = { default_profile?: string; profiles?: Record<string, Record<string, string>> };
function storeOf(t: TestContext): Store {
  const f = path.join(t.configDir, 'config.json');
  return fs.existsSync(f) ? (JSON.parse(fs.readFileSync(f, 'utf8')) as Store) : {};
}
/** A store with these profiles (the first one the default), written as xctl writes it. */
function writeStore(t: TestContext, profiles: Record<string, Record<string, string>>): void {
  const file = path.join(t.configDir, 'config.json');
  const body = { default_profile: Object.keys(profiles)[0], profiles };
  fs.writeFileSync(file, JSON.stringify(body, null, 2), { mode: 0o600 });
}

describe('auth set', () => {
  it('flags -> options: values, "-" and bare secret flags', async () => {
    const t = ctxOf();
    expect(
      await t.optionsOf(registerSet, [
        'set',
        '--api-key',
        'K',
        '--api-secret',
        '-',
        '--access-token',
        '--user-id',
        '12',
        '--screen-name',
        '@bob',
        '--client-id',
        'cid',
        '--client-secret',
      ]),
    ).toEqual({
      apiKey: 'K',
      apiSecret: '-',
      accessToken: true,
      userId: '12',
      screenName: '@bob',
      clientId: 'cid',
      clientSecret: true,
    });
    const missing = await outcome(t.optionsOf(registerSet, ['set', '--api-key']));
    expect(missing).toEqual({ code: 2, error: "option '--api-key <key>' argument missing" });
  });

  it('several "-" secrets are read one per line from stdin, in the documented order; nothing sent', async () => {
    const reg = new HttpRegistry();
    const t = ctxOf({ transport: reg, env: NO_ENV, stdin: 's1\ntok-2\ns3\nbearer4\ncs5\n' });
    await authSet(t.ctx, {
      apiKey: 'KEY1',
      apiSecret: '-',
      accessToken: '-',
      accessTokenSecret: '-',
      bearerToken: '-',
      clientSecret: '-',
      userId: '42',
      screenName: '@bob',
    });
    expect(storeOf(t).profiles!.default).toEqual({
      api_key: 'KEY1',
      api_secret: 's1',
      access_token: 'tok-2',
      access_token_secret: 's3',
      bearer_token: 'bearer4',
      bearer_key: 'KEY1',
      client_secret: 'cs5',
      user_id: '42',
      screen_name: 'bob',
    });
    expect(fs.statSync(path.join(t.configDir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toBe(
      'saved api_secret, access_token, access_token_secret, bearer_token, client_secret, api_key, user_id, ' +
        'screen_name in profile "default"\n',
    );
    expect(reg.requests).toEqual([]);
  });

  it('--access-token - takes the token from stdin like the other secrets; auth token prints it (hostile-server)', async () => {
    const t = ctxOf({ env: NO_ENV, stdin: 'the-api-secret\n123-the-access-token\nthe-token-secret\n' });
    await t.run([
      'auth',
      'set',
      '--api-key',
      'k',
      '--api-secret',
      '-',
      '--access-token',
      '-',
      '--access-token-secret',
      '-',
    ]);
    expect(storeOf(t).profiles!.default!.access_token).toBe('123-the-access-token');
    expect(t.stderr()).not.toMatch(/shell history/);
    const tok = ctxOf({ env: { ...NO_ENV, XCTL_CONFIG_DIR: t.configDir, XCTL_ACCESS_TOKEN: '' } });
    await tok.run(['auth', 'token']);
    expect(tok.stdout()).toBe('123-the-access-token\n');
  });

  it('a token on the command line is taken, with a warning about shell history and ps', async () => {
    const t = ctxOf({ env: NO_ENV });
    await authSet(t.ctx, { accessToken: '1-on-argv' });
    expect(storeOf(t).profiles!.default!.access_token).toBe('1-on-argv');
    expect(t.stderr()).toMatch(/^warning: --access-token on the command line is kept in shell history .* `ps`/);
  });

  it('a new API key drops the bearer cached for the old one; a new client id drops the old secret', async () => {
    const t = ctxOf({ env: NO_ENV });
    writeStore(t, {
      default: { api_key: 'OLD', bearer_token: 'AAAA-old', bearer_key: 'OLD', client_id: 'c1', client_secret: 'cs' },
    });
    await authSet(t.ctx, { apiKey: 'NEW', clientId: 'c2' });
    expect(storeOf(t).profiles!.default).toEqual({ api_key: 'NEW', client_id: 'c2' });
  });

  it('refuses, before storing anything (exit 2)', async () => {
    const cases: Array<[string[], string, string?]> = [
      [
        ['auth', 'set', '--api-secret', 'on-argv'],
        '--api-secret takes no value on the command line (it would be kept in shell history): pass "-" and pipe it ' +
          'on stdin, or omit the value to be prompted',
      ],
      [['auth', 'set'], 'nothing to set', 'e.g. `xctl auth set --api-key KEY --api-secret -` with the secret on stdin'],
      [['auth', 'set', '--user-id', 'abc'], '--user-id must be digits (got "abc")'],
      [['auth', 'set', '--api-key', 'has space'], 'the value for api_key must be printable ASCII without spaces'],
      [['auth', 'set', '--api-secret', '-', '--access-token', '-'], '--access-token -: line 2 of stdin is empty'],
    ];
    for (const [argv, error, hint] of cases) {
      const t = ctxOf({ env: NO_ENV, stdin: 'only-one\n' });
      const o = await outcome(t.run(argv));
      expect(o, argv.join(' ')).toMatchObject({ code: 2, error, ...(hint ? { hint } : {}) });
      expect(storeOf(t), argv.join(' ')).toEqual({});
    }
  });

  it('`--profile __proto__ auth set` is refused (exit 2), not "saved" with nothing stored (hardening-3 item 9)', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const t = ctxOf({ env: NO_ENV });
      const o = await outcome(t.run(['--profile', name, 'auth', 'set', '--api-key', 'K']));
      expect(o.code, name).toBe(2);
      expect(o.error).toMatch(/profile name/);
      expect(t.stderr()).not.toMatch(/saved/);
      expect(storeOf(t)).toEqual({});
    }
  });
});

describe('an unknown --profile (profile-safety, issue 20 item 8)', () => {
  const stored = { default: { api_key: 'REALKEY123' }, sandbox: { api_key: 'SANDKEY' } };

  it('is refused with exit 2 and the closest names, and nothing is created', async () => {
    const cases: Array<[string[], Record<string, string>]> = [
      [['--profile', 'sandbx', 'auth', 'status'], {}],
      [['auth', 'status'], { XCTL_PROFILE: 'sandbx' }],
      [['--profile', 'sandbx', 'config', 'set', 'account_id', 'abc'], {}],
      [['--profile', 'sandbx', 'request', '/1.1/account/verify_credentials.json'], {}],
      [['--profile', 'sandbx', 'ads', 'campaigns', 'list'], {}],
    ];
    for (const [argv, env] of cases) {
      const reg = new HttpRegistry();
      const t = ctxOf({ env: { ...NO_ENV, ...env }, transport: reg });
      writeStore(t, stored);
      const before = fs.readFileSync(path.join(t.configDir, 'config.json'), 'utf8');
      const o = await outcome(t.run(argv));
      const from = env.XCTL_PROFILE ? ' (from XCTL_PROFILE)' : '';
      expect(o, argv.join(' ')).toEqual({
        code: 2,
        error: `unknown profile "sandbx"${from} (did you mean sandbox?)`,
        hint: expect.stringMatching(/^profiles: default, sandbox/),
      });
      expect(fs.readFileSync(path.join(t.configDir, 'config.json'), 'utf8')).toBe(before);
      expect(reg.requests).toEqual([]);
    }
  });

  it('a stale XCTL_PROFILE does not lock out the commands that repair it', async () => {
    const stale = { ...NO_ENV, XCTL_PROFILE: 'sandbx' };
    const list = ctxOf({ env: stale });
    writeStore(list, stored);
    await list.run(['auth', 'profiles', 'list', '-o', 'tsv', '--fields', 'name']);
    expect(list.stdout()).toBe('default\nsandbox\n');
    const use = ctxOf({ env: stale });
    writeStore(use, stored);
    expect(await outcome(use.run(['auth', 'profiles', 'use', 'sandbx']))).toMatchObject({
      code: 2,
      error: 'no profile named "sandbx" (did you mean sandbox?)',
    });
    const where = ctxOf({ env: stale });
    writeStore(where, stored);
    expect(await outcome(where.run(['config', 'path']))).toEqual({ code: 0 });
  });

  it('is a new profile for the commands that create one; the default name is always known', async () => {
    const st = ctxOf({ env: NO_ENV });
    expect((await outcome(st.run(['--profile', 'default', 'auth', 'status']))).error).not.toMatch(/unknown profile/);
    const set = ctxOf({ env: NO_ENV });
    await set.run(['--profile', 'work', 'auth', 'set', '--api-key', 'WORKKEY']);
    expect(storeOf(set).profiles!.work).toEqual({ api_key: 'WORKKEY' });
    const none = ctxOf({ env: NO_ENV });
    const o = await outcome(none.run(['--profile', 'nope', 'config', 'list']));
    expect(o.code).toBe(2);
    expect(o.error).not.toMatch(/did you mean/);
  });
});

describe('auth token', () => {
  it('flags -> options: --type defaults to user', async () => {
    const t = ctxOf();
    expect(await t.optionsOf(registerToken, ['token'])).toEqual({ type: 'user' });
    expect(await t.optionsOf(registerToken, ['token', '--type', 'app'])).toEqual({ type: 'app' });
    expect(await t.optionsOf(registerToken, ['token', '--secret'])).toEqual({ type: 'user', secret: true });
  });

  it('prints exactly one credential on stdout: the user token, its secret, the app bearer', async () => {
    for (const [o, want] of [
      [{ type: 'user' }, TEST_CREDENTIALS.XCTL_ACCESS_TOKEN],
      [{ type: 'user', secret: true }, TEST_CREDENTIALS.XCTL_ACCESS_TOKEN_SECRET],
      [{ type: 'app' }, TEST_CREDENTIALS.XCTL_BEARER_TOKEN],
    ] as const) {
      const t = ctxOf({ transport: new HttpRegistry() });
      await authToken(t.ctx, o);
      expect(t.stdout()).toBe(`${want}\n`);
      expect(t.stderr()).toBe('');
    }
  });

  it('refuses a bad --type or --secret with another type (exit 2); no user token is exit 3', async () => {
    const t = ctxOf({ transport: new HttpRegistry() });
    expect(await outcome(authToken(t.ctx, { type: 'bogus' }))).toMatchObject({
      code: 2,
      error: '--type must be user, app or oauth2 (got "bogus")',
    });
    expect(await outcome(authToken(t.ctx, { type: 'app', secret: true }))).toMatchObject({
      code: 2,
      error: '--secret goes with --type user',
    });
    const none = ctxOf({ env: NO_ENV });
    expect(await outcome(authToken(none.ctx, {}))).toEqual({
      code: 3,
      error: 'no user access token is set in profile "default"',
      hint: 'run `xctl auth login`',
    });
    expect(t.stdout() + none.stdout()).toBe('');
  });
});

describe('auth app-token', () => {
  const app = { ...NO_ENV, XCTL_API_KEY: 'app-key', XCTL_API_SECRET: 'app-secret' };

  it('flags -> options', async () => {
    const t = ctxOf();
    expect(await t.optionsOf(registerAppToken, ['app-token'])).toEqual({});
    expect(await t.optionsOf(registerAppToken, ['app-token', '--invalidate'])).toEqual({ invalidate: true });
  });

  it('obtains the bearer once (POST /oauth2/token, Basic), caches it, and shows it masked', async () => {
    const reg = new HttpRegistry().register(
      route('POST', '/oauth2/token'),
      json({ token_type: 'bearer', access_token: 'AAAA-new-bearer-0123456789' }),
    );
    const t = ctxOf({ transport: reg, env: app });
    await authAppToken(t.ctx, {});
    reg.verify();
    expect(reg.requests[0]!.form().get('grant_type')).toBe('client_credentials');
    expect(reg.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('app-key:app-secret').toString('base64')}`,
    );
    expect(storeOf(t).profiles!.default!.bearer_token).toBe('AAAA-new-bearer-0123456789');
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toMatch(/^obtained the app's bearer token and cached it in profile "default" \(AAAA\S*…?\S*; /);
    expect(t.stderr()).not.toContain('AAAA-new-bearer-0123456789');
    // the second time: the cache, nothing sent
    const again = ctxOf({ transport: new HttpRegistry(), env: { ...app, XCTL_CONFIG_DIR: t.configDir } });
    await authAppToken(again.ctx, {});
    expect(again.stderr()).toMatch(/^bearer cached in profile "default"/);
  });

  it('403 code 99 is explained (exit 3) and nothing is cached', async () => {
    const reg = new HttpRegistry().register(
      route('POST', '/oauth2/token'),
      json({ errors: [{ code: 99, message: 'Unable to verify your credentials' }] }, 403),
    );
    const t = ctxOf({ transport: reg, env: app });
    const o = await outcome(authAppToken(t.ctx, {}));
    expect(o).toMatchObject({
      code: 3,
      error: 'the token endpoint refused to issue a bearer token (HTTP 403, code 99)',
      hint: expect.stringMatching(/^cache your token: /),
    });
    expect(storeOf(t)).toEqual({});
  });
});

describe('auth logout', () => {
  it('flags -> options', async () => {
    const t = ctxOf();
    expect(await t.optionsOf(registerLogout, ['logout', '--oauth2', '--local-only'])).toEqual({
      oauth2: true,
      localOnly: true,
    });
  });

  const withToken = { api_key: 'k', api_secret: 's', access_token: '1-tok', access_token_secret: 'ts' };

  it('revokes (POST /1.1/oauth/invalidate_token, signed) then forgets the token', async () => {
    const reg = new HttpRegistry().register(
      route('POST', '/1.1/oauth/invalidate_token'),
      json({ access_token: '1-tok' }),
    );
    const t = ctxOf({ transport: reg, env: NO_ENV });
    writeStore(t, { default: { ...withToken, screen_name: 'bob', user_id: '7' } });
    await authLogout(t.ctx, {});
    reg.verify();
    expect(reg.requests[0]!.headers.authorization).toMatch(/^OAuth .*oauth_token="1-tok"/);
    expect(storeOf(t).profiles!.default).toEqual({ api_key: 'k', api_secret: 's' });
    expect(t.stderr()).toBe(
      'revoked the token of @bob at the service\nremoved the user token from profile "default"\n',
    );
  });

  it('--local-only sends nothing; code 89 counts as revoked; another failure still forgets and says so', async () => {
    const local = ctxOf({ transport: new HttpRegistry(), env: NO_ENV });
    writeStore(local, { default: withToken });
    await authLogout(local.ctx, { localOnly: true });
    expect(local.stderr()).toBe(
      'removed the user token from profile "default" (not revoked at the service: --local-only)\n',
    );
    const gone = new HttpRegistry().register(
      route('POST', '/1.1/oauth/invalidate_token'),
      json({ errors: [{ code: 89, message: 'Invalid or expired token.' }] }, 401),
    );
    const t89 = ctxOf({ transport: gone, env: NO_ENV });
    writeStore(t89, { default: withToken });
    await authLogout(t89.ctx, {});
    expect(t89.stderr()).toMatch(/^the token of the user was already invalid at the service\n/);
    const down = new HttpRegistry().register(route('POST', '/1.1/oauth/invalidate_token'), text('no', 403));
    const t403 = ctxOf({ transport: down, env: NO_ENV });
    writeStore(t403, { default: withToken });
    const o = await outcome(authLogout(t403.ctx, {}));
    expect(o.code).toBe(1);
    expect(o.error).toMatch(/^the token was removed locally, but revoking it at the service failed: /);
    expect(storeOf(t403).profiles!.default!.access_token).toBeUndefined();
  });

  it('nothing to log out: said, exit 0, nothing sent', async () => {
    const reg = new HttpRegistry();
    const t = ctxOf({ transport: reg, env: NO_ENV });
    await authLogout(t.ctx, {});
    await authLogout(t.ctx, { oauth2: true });
    expect(t.stderr()).toBe(
      'profile "default" holds no user token: nothing to log out\n' +
        'profile "default" holds no OAuth 2.0 user token: nothing to log out\n',
    );
    expect(reg.requests).toEqual([]);
  });
});

describe('auth status', () => {
  it('flags -> options', async () => {
    const t = ctxOf();
    expect(await t.optionsOf(registerStatus, ['status', '--check'])).toEqual({ check: true });
  });

  it('each profile, masked, piped as JSON; the secrets never printed', async () => {
    const t = ctxOf({ env: NO_ENV, globals: { output: 'json' } });
    writeStore(t, {
      default: {
        ...{ api_key: 'abcdefghijkl', api_secret: 'SECRET-1' },
        access_token: '9-tok',
        access_token_secret: 'S2',
      },
      other: { api_key: 'zyxwvutsrqpo' },
    });
    await authStatus(t.ctx, {});
    const rows = JSON.parse(t.stdout()) as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.profile, r.default, r.selected, r.api_secret, r.user_token])).toEqual([
      ['default', true, true, 'set', 'set'],
      ['other', false, false, '', ''],
    ]);
    expect(t.stdout()).not.toMatch(/SECRET-1|9-tok|abcdefghijkl/);
  });

  it('nothing usable in the selected profile is exit 1 with a hint', async () => {
    const t = ctxOf({ env: NO_ENV });
    const o = await outcome(authStatus(t.ctx, {}));
    expect(o.code).toBe(1);
    expect(o.hint).toMatch(/auth set|auth login/);
  });
});

describe('auth migrate', () => {
  it('flags -> options; --to must be keyring or file; the place it is in already is said', async () => {
    const t = ctxOf({ env: NO_ENV });
    expect(await t.optionsOf(registerMigrate, ['migrate', '--to', 'file'])).toEqual({ to: 'file' });
    expect(await outcome(authMigrate(t.ctx, { to: 'cloud' }))).toMatchObject({
      code: 2,
      error: '--to must be keyring or file',
    });
    expect(await outcome(authMigrate(t.ctx, { to: 'file' }))).toMatchObject({
      code: 2,
      error: 'profile "default" does not exist',
    });
    writeStore(t, { default: { api_key: 'k', api_secret: 's' } });
    await authMigrate(t.ctx, { to: 'file' });
    expect(t.stderr()).toBe('profile "default": its secrets are in the file already\n');
  });
});

describe('auth profiles list, use, remove', () => {
  const two = { work: { api_key: 'abcdefghijkl', screen_name: 'bob' }, play: { api_key: 'zyxwvutsrqpo' } };

  it('list: every profile with its key masked (tsv when piped; a table on a terminal)', async () => {
    const t = ctxOf({ env: NO_ENV, globals: { output: 'tsv' } });
    writeStore(t, two);
    await profilesList(t.ctx);
    expect(t.stdout()).toBe('work\ttrue\tabcd…(12)\t@bob\t\nplay\tfalse\tzyxw…(12)\t\t\n');
    expect(t.stdout()).not.toContain('abcdefghijkl');
    const tty = ctxOf({ env: NO_ENV, tty: true });
    writeStore(tty, two);
    await profilesList(tty.ctx);
    expect(tty.stdout()).toBe(
      [
        '┌──────┬─────────┬───────────┬──────┬──────────┐',
        '│ name │ default │ api_key   │ user │ base_url │',
        '├──────┼─────────┼───────────┼──────┼──────────┤',
        '│ work │ true    │ abcd…(12) │ @bob │          │',
        '│ play │ false   │ zyxw…(12) │      │          │',
        '└──────┴─────────┴───────────┴──────┴──────────┘\n',
      ].join('\n'),
    );
  });

  it('use: makes a profile the default; an unknown one is exit 2 with did-you-mean and a hint', async () => {
    const t = ctxOf({ env: NO_ENV });
    writeStore(t, two);
    await profilesUse(t.ctx, { name: 'play' });
    expect(storeOf(t).default_profile).toBe('play');
    expect(t.stderr()).toBe('default profile is now "play"\n');
    expect(await outcome(profilesUse(t.ctx, { name: 'wrk' }))).toEqual({
      code: 2,
      error: 'no profile named "wrk" (did you mean work?)',
      hint: 'create it with `xctl --profile wrk auth set ...`; see `xctl auth profiles list`',
    });
    expect(await outcome(profilesUse(t.ctx, { name: 'bad name!' }))).toMatchObject({ code: 2 });
  });

  it('remove: refuses without --yes when piped; removes with it', async () => {
    const t = ctxOf({ env: NO_ENV });
    expect(await t.optionsOf(registerRemove, ['remove', 'play'])).toEqual({ name: 'play' });
    writeStore(t, two);
    expect((await outcome(profilesRemove(t.ctx, { name: 'play' }))).code).toBe(2);
    expect(Object.keys(storeOf(t).profiles!)).toEqual(['work', 'play']);
    const yes = ctxOf({ env: NO_ENV, globals: { yes: true } });
    writeStore(yes, two);
    await profilesRemove(yes.ctx, { name: 'play' });
    expect(Object.keys(storeOf(yes).profiles!)).toEqual(['work']);
    expect(yes.stderr()).toBe('removed profile "play"\n');
    expect(await outcome(profilesRemove(yes.ctx, { name: 'wrk' }))).toMatchObject({
      code: 2,
      error: 'no profile named "wrk" (did you mean work?)',
    });
  });
});

describe('auth login: every flag rule before anything is sent or bound', () => {
  it('flags -> options', async () => {
    const t = ctxOf();
    expect(
      await t.optionsOf(registerLogin, [
        'login',
        '--pin',
        '--access-level',
        'read',
        '--force-login',
        '--screen-name',
        'bob',
        '--timeout',
        '90s',
      ]),
    ).toMatchObject({ pin: true, accessLevel: 'read', forceLogin: true, screenName: 'bob', timeout: '90s' });
    expect(await t.optionsOf(registerLogin, ['login', '--oauth2', '--scopes', 'tweet.read', '--paste'])).toMatchObject({
      oauth2: true,
      scopes: 'tweet.read',
      paste: true,
    });
  });

  it('OAuth 1.0a: bad flags exit 2 and send nothing (auth-cli)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--access-level', 'admin'], /--access-level must be read or write/],
      [['--callback-port', '99999'], /--callback-port must be a port number/],
      [['--pin', '--callback-port', '8080'], /exclude each other/],
      [['--timeout', 'soon'], /--timeout must be a duration/],
      [['--screen-name', 'not a handle'], /--screen-name must be a handle/],
      [['--scopes', 'tweet.read'], /--scopes goes with --oauth2/],
    ];
    for (const [extra, re] of cases) {
      const reg = new HttpRegistry();
      const t = ctxOf({ transport: reg });
      const o = await outcome(t.run(['auth', 'login', '--no-browser', ...extra]));
      expect([o.code, extra]).toEqual([2, extra]);
      expect(o.error).toMatch(re);
      expect(reg.requests).toEqual([]);
    }
  });

  it('a busy --callback-port is a usage error before the request token is asked for', async () => {
    const busy = http.createServer();
    await new Promise<void>((res) => busy.listen(0, '127.0.0.1', res));
    try {
      const reg = new HttpRegistry();
      const t = ctxOf({ transport: reg });
      const port = String((busy.address() as AddressInfo).port);
      const o = await outcome(t.run(['auth', 'login', '--no-browser', '--callback-port', port]));
      expect(o.code).toBe(2);
      expect(o.error).toMatch(/the port is in use/);
      expect(reg.requests).toEqual([]);
    } finally {
      busy.close();
    }
  });

  it('no API key at all: exit 3 with a hint, nothing sent', async () => {
    const reg = new HttpRegistry();
    const t = ctxOf({ transport: reg, env: NO_ENV });
    const o = await outcome(t.run(['auth', 'login', '--no-browser']));
    expect(o.code).toBe(3);
    expect(o.hint).toMatch(/^run `xctl auth set/);
    expect(reg.requests).toEqual([]);
  });

  it('OAuth 2.0: bad flags exit 2 before anything is sent (auth-oauth2-cli)', async () => {
    const cases: Array<[string[], RegExp, Record<string, string | undefined>?]> = [
      [['--scopes', 'tweet.read follow.read'], /unknown scope "follow\.read"/],
      [['--pin'], /--pin belongs to the OAuth 1\.0a login/],
      [['--paste', '--callback-port', '9000'], /exclude each other/],
      [['--callback-port', '70000'], /0 for a free one/],
      [['--client-id', 'a:b'], /--client-id must be printable ASCII without spaces or ':'/],
      [[], /needs the app's OAuth 2\.0 Client ID/],
    ];
    for (const [extra, re] of cases) {
      const reg = new HttpRegistry();
      const t = ctxOf({ transport: reg, env: { XCTL_CLIENT_ID: extra.length ? 'client-1' : undefined } });
      const o = await outcome(t.run(['auth', 'login', '--oauth2', '--no-browser', ...extra]));
      expect([o.code, extra]).toEqual([2, extra]);
      expect(o.error).toMatch(re);
      expect(reg.requests).toEqual([]);
    }
  });
});

describe('auth import --twurlrc', () => {
  it('flags -> options: --twurlrc with or without a path', async () => {
    const t = ctxOf();
    expect(await t.optionsOf(registerImport, ['import', '--twurlrc'])).toEqual({ twurlrc: true });
    expect(await t.optionsOf(registerImport, ['import', '--twurlrc', 'f', '--overwrite', '--insecure'])).toEqual({
      twurlrc: 'f',
      overwrite: true,
      insecure: true,
    });
  });

  /** The fixture rc file with made-up credentials (no network: import reads a file only). */
  function rcFile(t: TestContext, mode: number, name = '.twurlrc'): string {
    const body = fs
      .readFileSync(path.join(import.meta.dirname, '../../fixtures/twurlrc.yml'), 'utf8')
      .replaceAll('{{API_KEY}}', 'AppKey000000000000000001')
      .replaceAll('{{API_SECRET}}', 'app-secret-1')
      .replaceAll('{{ACCESS_TOKEN}}', '1001-token')
      .replaceAll('{{ACCESS_TOKEN_SECRET}}', 'token-secret')
      .replaceAll('{{BEARER}}', 'AAAA-bearer');
    const dir = fs.mkdtempSync(path.join(t.configDir, 'rc-'));
    const file = path.join(dir, name);
    fs.writeFileSync(file, body, { mode });
    fs.chmodSync(file, mode);
    return file;
  }

  it('refuses a world- or group-readable rc file, a missing one, one that is not YAML (exit 2)', async () => {
    const t = ctxOf({ env: NO_ENV });
    const open = rcFile(t, 0o644);
    const o = await outcome(t.run(['auth', 'import', '--twurlrc', open]));
    expect(o.code).toBe(2);
    expect(o.error).toMatch(/readable by every user \(mode 644\)/);
    expect(o.hint).toContain(`run \`chmod 600 ${open}\``);
    expect(fs.existsSync(path.join(t.configDir, 'config.json'))).toBe(false);
    const group = rcFile(t, 0o640);
    const g = await outcome(t.run(['auth', 'import', '--twurlrc', group]));
    expect(g.code).toBe(2);
    expect(g.error).toMatch(/readable by its group \(mode 640\)/);
    expect(`${g.error} ${g.hint}`).toContain(`chmod 600 ${group}`);
    expect(`${g.error} ${g.hint}`).toMatch(/--insecure/);
    // a path with a space is quoted so that the command works when pasted
    const spaced = rcFile(t, 0o604, 'my rc');
    expect((await outcome(t.run(['auth', 'import', '--twurlrc', spaced]))).hint).toContain(`chmod 600 '${spaced}'`);
    expect((await outcome(t.run(['auth', 'import', '--twurlrc', '/nonexistent/.twurlrc']))).code).toBe(2);
    const notRc = path.join(t.configDir, 'x.yml');
    fs.writeFileSync(notRc, 'a: [1, 2\n', { mode: 0o600 });
    expect((await outcome(t.run(['auth', 'import', '--twurlrc', notRc]))).error).toMatch(/not valid YAML/);
    expect(await outcome(t.run(['auth', 'import']))).toMatchObject({
      code: 2,
      error: 'say what to import: --twurlrc [path] (default ~/.twurlrc)',
    });
  });

  it('--insecure imports a group-readable file anyway, with a warning; ~/.twurlrc is the default', async () => {
    const t = ctxOf({ env: NO_ENV });
    const group = rcFile(t, 0o640);
    await t.run(['auth', 'import', '--twurlrc', group, '--insecure', '-o', 'json']);
    expect(t.stderr()).toMatch(/warning: .*readable by its group.*--insecure/);
    expect((JSON.parse(t.stdout()) as unknown[]).length).toBe(3);
    const home = ctxOf({ env: NO_ENV });
    const file = rcFile(home, 0o600);
    home.env.HOME = path.dirname(file);
    await home.run(['auth', 'import', '--twurlrc']);
    expect(Object.keys(storeOf(home).profiles!).sort()).toEqual([
      'sandbox_alice.AppKey00',
      'sandbox_alice.OtherApp',
      'xctl_dev',
    ]);
  });
});
