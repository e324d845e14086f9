// Issue 20, what used to lose or misplace credentials: `sandbox start --configure` over real
// credentials (item 1), a bad XCTL_BEARER_TOKEN dropping the cached bearer (item 2), a mistyped
// --profile silently acting on a new empty profile (item 8).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestSandbox, runCli, tempDir } from '../helpers/cli.js';
import { spawnCli } from '../helpers/receiver.js';

const t = useTestSandbox();

function fresh(): string {
  const d = tempDir();
  t.dirs.push(d);
  return d;
}

type Store = { default_profile?: string; profiles?: Record<string, Record<string, string>> };
function store(dir: string): Store {
  const f = path.join(dir, 'config.json');
  return fs.existsSync(f) ? (JSON.parse(fs.readFileSync(f, 'utf8')) as Store) : {};
}

/** A store whose default profile holds "real" credentials (as `auth import --twurlrc` leaves it). */
async function realDefault(dir: string): Promise<void> {
  const r = await runCli(
    [
      'auth',
      'set',
      '--api-key',
      'REALKEY123',
      '--api-secret',
      '-',
      '--access-token',
      '-',
      '--access-token-secret',
      '-',
    ],
    {
      env: { XCTL_CONFIG_DIR: dir },
      input: 'real-secret\n1-real-token\nreal-token-secret\n',
    },
  );
  expect(r.code, r.stderr).toBe(0);
}

describe('sandbox start --configure (issue 20 item 1)', () => {
  it('without --profile writes profile "sandbox", leaves the default alone, and says how to use it', async () => {
    const dir = fresh();
    await realDefault(dir);
    const sb = spawnCli(['sandbox', 'start', '--configure', '--no-log'], { XCTL_CONFIG_DIR: dir });
    const out = await sb.waitStdout(/Ctrl-C stops it/).then(() => sb.stdout());
    try {
      expect(out).toContain('credentials stored in profile "sandbox"');
      expect(out).toContain('--profile sandbox');
      expect(out).toContain('export XCTL_PROFILE=sandbox');
      const s = store(dir);
      expect(s.profiles!.default).toEqual({
        api_key: 'REALKEY123',
        api_secret: 'real-secret',
        access_token: '1-real-token',
        access_token_secret: 'real-token-secret',
      });
      expect(s.profiles!.sandbox!.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // the way the banner says works
      const me = await runCli(['request', '/1.1/account/verify_credentials.json'], {
        env: { XCTL_CONFIG_DIR: dir, XCTL_PROFILE: 'sandbox' },
      });
      expect(me.code, me.stderr).toBe(0);
      expect(JSON.parse(me.stdout).screen_name).toBe('xctl_dev');
    } finally {
      expect(await sb.stop()).toBe(0);
    }
    // a second sandbox (new port, new keys) replaces the sandbox profile without asking
    const again = spawnCli(['sandbox', 'start', '--configure', '--no-log', '--json'], { XCTL_CONFIG_DIR: dir });
    await again.waitStdout(/"base_url"/);
    try {
      const seed = JSON.parse(again.stdout().split('\n')[0]!) as { api_key: string };
      expect(store(dir).profiles!.sandbox!.api_key).toBe(seed.api_key);
      await again.waitStderr(/credentials stored in profile "sandbox"/);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });

  it('refuses (exit 2) to replace a profile holding other credentials unless --overwrite', async () => {
    const dir = fresh();
    await realDefault(dir);
    const before = fs.readFileSync(path.join(dir, 'config.json'), 'utf8');
    for (const env of [{ XCTL_CONFIG_DIR: dir, XCTL_PROFILE: 'default' }, { XCTL_CONFIG_DIR: dir }]) {
      const args = env.XCTL_PROFILE
        ? ['sandbox', 'start', '--configure']
        : ['--profile', 'default', 'sandbox', 'start', '--configure'];
      const r = await runCli(args, { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /error: profile "default" holds other credentials \(for the platform\): refusing to replace them/,
      );
      expect(r.stderr).toMatch(/hint: .*--overwrite/);
      expect(r.stdout).toBe(''); // no sandbox was started
    }
    expect(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).toBe(before);
    const forced = spawnCli(['--profile', 'default', 'sandbox', 'start', '--configure', '--overwrite', '--no-log'], {
      XCTL_CONFIG_DIR: dir,
    });
    await forced.waitStdout(/Ctrl-C stops it/);
    try {
      expect(forced.stdout()).toContain('credentials stored in profile "default" (the default profile)');
      expect(store(dir).profiles!.default!.base_url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    } finally {
      expect(await forced.stop()).toBe(0);
    }
    expect((await runCli(['sandbox', 'start', '--overwrite'], { env: { XCTL_CONFIG_DIR: dir } })).code).toBe(2);
  });
});

describe('a rejected XCTL_BEARER_TOKEN (issue 20 item 2)', () => {
  it('says the variable is wrong and keeps the cached bearer', async () => {
    const dir = fresh();
    const env = { XCTL_CONFIG_DIR: dir };
    const cached = await t.run(['auth', 'app-token'], { env });
    expect(cached.code, cached.stderr).toBe(0);
    const bearer = store(dir).profiles!.default!.bearer_token;
    expect(bearer).toBeTruthy();
    const bad = await t.run(['request', '/1.1/application/rate_limit_status.json', '--auth', 'app'], {
      env: { ...env, XCTL_BEARER_TOKEN: 'AAAAnot-a-valid-bearer' },
    });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/code 89/);
    expect(bad.stderr).toMatch(/hint: XCTL_BEARER_TOKEN is not a valid bearer token.*unset it/);
    expect(bad.stderr).not.toMatch(/dropped/);
    expect(store(dir).profiles!.default!.bearer_token).toBe(bearer);
    // and the cached one still works once the variable is gone
    const good = await t.run(['request', '/1.1/application/rate_limit_status.json', '--auth', 'app'], { env });
    expect(good.code, good.stderr).toBe(0);
  });

  it('a cached bearer the service refuses is dropped, and the next run obtains a new one', async () => {
    const dir = fresh();
    const env = { XCTL_CONFIG_DIR: dir };
    await t.admin('POST', '/_sandbox/clock', { advance: '61s' }); // the token endpoint's per-app limit
    const r = await t.run(['auth', 'set', '--bearer-token', '-'], { env, input: 'AAAAcached-but-revoked\n' });
    expect(r.code, r.stderr).toBe(0);
    const bad = await t.run(['request', '/1.1/application/rate_limit_status.json', '--auth', 'app'], { env });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/hint: the cached bearer token of profile "default" was rejected .* dropped/);
    expect(store(dir).profiles!.default!.bearer_token).toBeUndefined();
    const next = await t.run(['request', '/1.1/application/rate_limit_status.json', '--auth', 'app'], { env });
    expect(next.code, next.stderr).toBe(0);
    expect(store(dir).profiles!.default!.bearer_token).toMatch(/^AAAA/);
  });
});

describe('an unknown --profile (issue 20 item 8)', () => {
  it('is refused with exit 2 and the closest names, and nothing is created', async () => {
    const dir = fresh();
    await realDefault(dir);
    expect(
      (await runCli(['--profile', 'sandbox', 'auth', 'set', '--api-key', 'SANDKEY'], { env: { XCTL_CONFIG_DIR: dir } }))
        .code,
    ).toBe(0);
    const before = fs.readFileSync(path.join(dir, 'config.json'), 'utf8');
    for (const [args, env] of [
      [['--profile', 'sandbx', 'auth', 'status'], {}],
      [['auth', 'status'], { XCTL_PROFILE: 'sandbx' }],
      [['--profile', 'sandbx', 'config', 'set', 'account_id', 'abc'], {}],
      [['--profile', 'sandbx', 'request', '/1.1/account/verify_credentials.json'], {}],
      [['--profile', 'sandbx', 'ads', 'campaigns', 'list'], {}],
    ] as Array<[string[], Record<string, string>]>) {
      const r = await runCli(args, { env: { XCTL_CONFIG_DIR: dir, ...env } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/error: unknown profile "sandbx"( \(from XCTL_PROFILE\))? \(did you mean sandbox\?\)/);
      expect(r.stderr).toMatch(/hint: profiles: default, sandbox/);
      if (env.XCTL_PROFILE) expect(r.stderr).toContain('(from XCTL_PROFILE)');
    }
    expect(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).toBe(before);
    // a stale XCTL_PROFILE does not lock out the commands that repair it
    const stale = { XCTL_CONFIG_DIR: dir, XCTL_PROFILE: 'sandbx' };
    const list = await runCli(['auth', 'profiles', 'list', '-o', 'tsv', '--fields', 'name'], { env: stale });
    expect([list.code, list.stdout]).toEqual([0, 'default\nsandbox\n']);
    const use = await runCli(['auth', 'profiles', 'use', 'sandbx'], { env: stale });
    expect(use.code).toBe(2);
    expect(use.stderr).toMatch(/no profile named "sandbx" \(did you mean sandbox\?\)/);
    expect((await runCli(['config', 'path'], { env: stale })).code).toBe(0);
  });

  it('is a new profile for the commands that create one; the default name is always known', async () => {
    const dir = fresh();
    const env = { XCTL_CONFIG_DIR: dir };
    const st = await runCli(['--profile', 'default', 'auth', 'status'], { env });
    expect(st.stderr).not.toMatch(/unknown profile/);
    const set = await runCli(['--profile', 'work', 'auth', 'set', '--api-key', 'WORKKEY'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(store(dir).profiles!.work).toEqual({ api_key: 'WORKKEY' });
    const none = await runCli(['--profile', 'nope', 'config', 'list'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).not.toMatch(/did you mean/);
  });
});
