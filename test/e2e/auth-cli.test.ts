// `xctl auth login|logout|app-token|import|status`: the real CLI against a real sandbox; the test
// plays the browser over HTTP (GET the printed authorize URL, POST Allow/Deny, follow the 302).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestSandbox, ROOT, runCli, tempDir, type RunOptions } from '../helpers/cli.js';
import { AUTHORIZE_URL, spawnCli } from '../helpers/live-cli.js';
import { basicFetch, decideOnPage } from '../helpers/oauth-client.js';

const t = useTestSandbox({ clock: 'manual', tokenRequestsPerMinute: 5 });

const NO_ENV_CREDS = {
  XCTL_API_KEY: undefined,
  XCTL_API_SECRET: undefined,
  XCTL_ACCESS_TOKEN: undefined,
  XCTL_ACCESS_TOKEN_SECRET: undefined,
};

/** A fresh config dir with the app key and secret stored in its default profile (no env credentials). */
async function freshProfile(withOwnerToken = false): Promise<Record<string, string | undefined>> {
  const dir = tempDir();
  t.dirs.push(dir);
  const env = { ...t.env, ...NO_ENV_CREDS, XCTL_CONFIG_DIR: dir };
  const s = t.sb.seed;
  const args = ['auth', 'set', '--api-key', s.api_key, '--api-secret', '-'];
  if (withOwnerToken)
    args.push(
      '--access-token',
      s.access_token,
      '--access-token-secret',
      '-',
      '--user-id',
      s.user_id,
      '--screen-name',
      s.screen_name,
    );
  const r = await runCli(args, {
    env,
    input: withOwnerToken ? `${s.api_secret}\n${s.access_token_secret}\n` : s.api_secret,
  });
  expect(r.code, r.stderr).toBe(0);
  return env;
}

const run = (args: string[], env: Record<string, string | undefined>, o: RunOptions = {}) =>
  runCli(args, { ...o, env: { ...env, ...(o.env ?? {}) } });
const json = (s: string) => JSON.parse(s) as Record<string, unknown> & Array<Record<string, unknown>>;

async function loginVia(env: Record<string, string | undefined>, screenName: string, extra: string[] = []) {
  const cli = spawnCli(['auth', 'login', '--no-browser', '--json', ...extra], env);
  const [, url] = await cli.waitStderr(AUTHORIZE_URL);
  const page = await decideOnPage(url!, 'allow', { screenName });
  expect(page.status).toBe(302);
  const back = await fetch(page.location!);
  expect(back.status).toBe(200);
  expect(await back.text()).toMatch(/signed in to xctl/);
  const r = await cli.done;
  expect(r.code, r.stderr).toBe(0);
  return { r, url: url!, callback: page.location! };
}

describe('auth login (loopback callback)', () => {
  it('stores token, secret, user id and screen name; the token works; status shows it', async () => {
    const env = await freshProfile();
    const { r, url, callback } = await loginVia(env, 'sandbox_alice');
    expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?oauth_token=/);
    expect(url).not.toMatch(/force_login/);
    expect(r.stderr).toMatch(/Open this URL in a browser/);
    expect(r.stderr).toMatch(/Logged in as @sandbox_alice \(783214\)/);
    expect(json(r.stdout)).toMatchObject({ profile: 'default', user_id: '783214', screen_name: 'sandbox_alice' });

    const me = await run(['request', '/1.1/account/verify_credentials.json'], env);
    expect(me.code, me.stderr).toBe(0);
    expect(json(me.stdout).screen_name).toBe('sandbox_alice');

    const st = await run(['auth', 'status', '--json'], env);
    expect(st.code).toBe(0);
    const row = json(st.stdout)[0]!;
    expect(row).toMatchObject({
      profile: 'default',
      user_token: '@sandbox_alice (783214)',
      user_id: '783214',
      screen_name: 'sandbox_alice',
      bearer: '',
    });
    expect(row.api_key).not.toBe(t.sb.seed.api_key); // masked
    expect(st.stderr).toContain(`store: ${path.join(env.XCTL_CONFIG_DIR!, 'config.json')}`);
    expect(st.stderr).toMatch(/environment also sets: .*XCTL_BASE_URL=/);
    expect(st.stdout + st.stderr).not.toContain(t.sb.seed.api_secret);
    expect(r.stderr).not.toMatch(/replacing/);

    // logging in again over the stored token says whose token it replaces (never the token)
    const oldToken = (await run(['auth', 'token'], env)).stdout.trim();
    expect(oldToken.length).toBeGreaterThan(10);
    const again = await loginVia(env, 'sandbox_bob');
    expect(again.r.stderr).toMatch(/replacing the user token of @sandbox_alice \(783214\) in profile "default"/);
    expect(again.r.stderr + again.r.stdout).not.toContain(oldToken);
    const same = await loginVia(env, 'sandbox_bob');
    expect(same.r.stderr).toMatch(
      /replacing the user token of @sandbox_bob \(6253282\), the same user, in profile "default"/,
    );
  });

  it("logging in as another user warns when the profile's ads account is not theirs, listing theirs (issue 29)", async () => {
    const env = { ...(await freshProfile(true)), XCTL_ACCOUNT_ID: undefined };
    const set = await run(['config', 'set', 'account_id', t.sb.seed.account_id], env);
    expect(set.code, set.stderr).toBe(0);
    const { r } = await loginVia(env, 'sandbox_alice');
    expect(r.stderr).toContain(
      `warning: the profile's account_id ${t.sb.seed.account_id} is not one of @sandbox_alice's ads accounts: ads calls would fail with ACCOUNT_NOT_FOUND; `,
    );
    const listed = await run(['ads', 'accounts', 'list', '--jq', '.[].id'], env);
    for (const id of listed.stdout.trim().split('\n').filter(Boolean)) expect(r.stderr).toContain(id);
    // the same user again: no ads lookup, no warning
    const again = await loginVia(env, 'sandbox_alice');
    expect(again.r.stderr).not.toContain('ads accounts');
  });

  it('--access-level read, --force-login, --screen-name and --callback-port reach the service; a stale callback is refused', async () => {
    const env = await freshProfile();
    const port = await freePort();
    const cli = spawnCli(
      [
        'auth',
        'login',
        '--no-browser',
        '--access-level',
        'read',
        '--force-login',
        '--screen-name',
        '@sandbox_bob',
        '--callback-port',
        String(port),
      ],
      env,
    );
    const [, url] = await cli.waitStderr(AUTHORIZE_URL);
    expect(new URL(url!).searchParams.get('force_login')).toBe('true');
    expect(new URL(url!).searchParams.get('screen_name')).toBe('sandbox_bob');
    const html = await (await fetch(url!)).text();
    expect(html).toMatch(/id="username" name="screen_name" value="sandbox_bob"/);
    // An old tab's callback (another request token) does not complete this login.
    const stale = await fetch(`http://127.0.0.1:${port}/callback?oauth_token=old&oauth_verifier=x`);
    expect(stale.status).toBe(400);
    const page = await decideOnPage(url!, 'allow', { password: 'pw' });
    expect(page.location).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/callback\\?`));
    await fetch(page.location!);
    const r = await cli.done;
    expect(r.code, r.stderr).toBe(0);
    const me = await run(['request', '/1.1/account/verify_credentials.json', '-i'], env);
    expect(me.stdout + me.stderr).toMatch(/x-access-level: read\b/);
    expect(me.stdout).toMatch(/"screen_name": ?"sandbox_bob"/);
  });

  it('deny: exit 3, the browser is told, nothing is stored', async () => {
    const env = await freshProfile();
    const cli = spawnCli(['auth', 'login', '--no-browser'], env);
    const [, url] = await cli.waitStderr(AUTHORIZE_URL);
    const page = await decideOnPage(url!, 'deny');
    expect(new URL(page.location!).searchParams.get('denied')).toBeTruthy();
    const back = await fetch(page.location!);
    expect(await back.text()).toMatch(/Authorization cancelled/);
    const r = await cli.done;
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/error: authorization was denied/);
    const tok = await run(['auth', 'token'], env);
    expect(tok.code).toBe(3);
  });

  it('timeout: a clear error (exit 1) and the callback port is released; Ctrl-C exits 130', async () => {
    const env = await freshProfile();
    const port = await freePort();
    const r = await run(['auth', 'login', '--no-browser', '--timeout', '1s', '--callback-port', String(port)], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: no authorization arrived within 1s: login cancelled/);
    expect(r.stderr).toMatch(/hint: .*--timeout/);
    const again = http.createServer();
    await new Promise<void>((res, rej) => again.once('error', rej).listen(port, '127.0.0.1', res));
    again.close();
    // Ctrl-C while waiting: exit 130, nothing stored.
    const cli = spawnCli(['auth', 'login', '--no-browser'], env);
    await cli.waitStderr(/Waiting for the browser/);
    cli.child.kill('SIGINT');
    const stopped = await cli.done;
    expect(stopped.code).toBe(130);
    expect((await run(['auth', 'token'], env)).code).toBe(3);
  });

  it('bad flags exit 2 and send nothing; a busy --callback-port is a usage error', async () => {
    const env = await freshProfile();
    const before = (await t.admin<{ counts: Record<string, number> }>('GET', '/_sandbox/state')).counts.request_tokens;
    for (const [args, re] of [
      [['--access-level', 'admin'], /--access-level must be read or write/],
      [['--callback-port', '99999'], /--callback-port must be a port number/],
      [['--pin', '--callback-port', '8080'], /exclude each other/],
      [['--timeout', 'soon'], /--timeout must be a duration/],
      [['--screen-name', 'not a handle'], /--screen-name must be a handle/],
    ] as Array<[string[], RegExp]>) {
      const r = await run(['auth', 'login', '--no-browser', ...args], env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(re);
    }
    const busy = http.createServer();
    await new Promise<void>((res) => busy.listen(0, '127.0.0.1', res));
    const r = await run(
      ['auth', 'login', '--no-browser', '--callback-port', String((busy.address() as AddressInfo).port)],
      env,
    );
    busy.close();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the port is in use/);
    const after = (await t.admin<{ counts: Record<string, number> }>('GET', '/_sandbox/state')).counts.request_tokens;
    expect(after).toBe(before);
    // No API key at all: exit 3 with a hint.
    const none = await run(['auth', 'login', '--no-browser'], { ...env, XCTL_CONFIG_DIR: tempDir() });
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/hint: run `xctl auth set/);
  });
});

describe('auth login --pin (oob)', () => {
  it('reads the PIN from stdin', async () => {
    const env = await freshProfile();
    const cli = spawnCli(['auth', 'login', '--pin', '--no-browser'], env);
    const [, url] = await cli.waitStderr(AUTHORIZE_URL);
    await cli.waitStderr(/pipe the PIN/);
    const page = await decideOnPage(url!, 'allow', { screenName: 'sandbox_bob' });
    expect(page.pin).toMatch(/^\d{7}$/);
    cli.child.stdin.end(`${page.pin}\n`);
    const r = await cli.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Logged in as @sandbox_bob/);
    const me = await run(['request', '/1.1/account/verify_credentials.json'], env);
    expect(json(me.stdout).screen_name).toBe('sandbox_bob');
  });

  it('never prompts without a terminal: nothing piped is exit 2 with a hint; a wrong PIN fails', async () => {
    const env = await freshProfile();
    const empty = await run(['auth', 'login', '--pin', '--no-browser'], env, { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--pin: stdin is not a terminal/);
    expect(empty.stderr).toMatch(/hint: pipe the PIN/);

    const cli = spawnCli(['auth', 'login', '--pin', '--no-browser'], env);
    const [, url] = await cli.waitStderr(AUTHORIZE_URL);
    await decideOnPage(url!, 'allow');
    cli.child.stdin.end('1234567\n');
    const r = await cli.done;
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/oauth_verifier/);
    expect(r.stderr).toMatch(
      /hint: the PIN was not the one the page showed; a wrong PIN spends the authorization: run `xctl auth login --pin` again/,
    );
  });
});

describe('auth logout', () => {
  it('revokes at the service then forgets: the old token fails with exit 3 (code 89)', async () => {
    const env = await freshProfile();
    await loginVia(env, 'sandbox_alice');
    const token = (await run(['auth', 'token'], env)).stdout.trim();
    const secret = (await run(['auth', 'token', '--secret'], env)).stdout.trim();
    const out = await run(['auth', 'logout'], env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/revoked the token of @sandbox_alice/);
    expect(out.stderr).toMatch(/removed the user token from profile "default"/);
    const old = await run(['request', '/1.1/account/verify_credentials.json'], env, {
      env: { XCTL_ACCESS_TOKEN: token, XCTL_ACCESS_TOKEN_SECRET: secret },
    });
    expect(old.code).toBe(3);
    expect(old.stderr).toMatch(/code 89/);
    const gone = await run(['auth', 'token'], env);
    expect(gone.code).toBe(3);
    const again = await run(['auth', 'logout'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/nothing to log out/);
  });

  it('--local-only leaves the token valid at the service; a failed revocation still forgets it and says so', async () => {
    const env = await freshProfile();
    await loginVia(env, 'sandbox_bob');
    const token = (await run(['auth', 'token'], env)).stdout.trim();
    const secret = (await run(['auth', 'token', '--secret'], env)).stdout.trim();
    const local = await run(['auth', 'logout', '--local-only'], env);
    expect(local.code).toBe(0);
    expect(local.stderr).toMatch(/not revoked at the service/);
    const still = await run(['request', '/1.1/account/verify_credentials.json'], env, {
      env: { XCTL_ACCESS_TOKEN: token, XCTL_ACCESS_TOKEN_SECRET: secret },
    });
    expect(still.code).toBe(0);

    await loginVia(env, 'sandbox_bob');
    await t.admin('POST', '/_sandbox/faults', { error_rate: 1, status: 503, match: 'invalidate_token', count: 1 });
    const failed = await run(['auth', 'logout'], env);
    await t.admin('DELETE', '/_sandbox/faults');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/error: the token was removed locally, but revoking it at the service failed/);
    expect((await run(['auth', 'token'], env)).code).toBe(3);
  });
});

describe('auth app-token', () => {
  it('obtains once, caches, revokes as the owner, and a new one differs; the old one fails with exit 3', async () => {
    await t.admin('POST', '/_sandbox/clock', { advance: '61s' });
    const env = await freshProfile(true);
    const first = await run(['auth', 'app-token'], env);
    expect(first.code, first.stderr).toBe(0);
    // shown masked: `auth token` is the one command that prints a secret
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(
      /obtained the app's bearer token and cached it in profile "default" \(AAAA…\(\d+\); print it with `xctl auth token --type app`\)/,
    );
    const bearer = (await run(['auth', 'token', '--type', 'app'], env)).stdout.trim();
    expect(bearer).toMatch(/^AAAA/);
    expect(first.stderr).not.toContain(bearer);
    const again = await run(['auth', 'app-token'], env);
    expect(again.stderr).toMatch(/bearer cached in profile "default"/);
    expect((await run(['auth', 'token', '--type', 'app'], env)).stdout.trim()).toBe(bearer);
    const st = json((await run(['auth', 'status', '--json'], env)).stdout)[0]!;
    expect(st.bearer).toBe('cached');
    expect(JSON.stringify(st)).not.toContain(bearer);
    const use = await run(['request', '/1.1/application/rate_limit_status.json', '--auth', 'app'], env);
    expect(use.code, use.stderr).toBe(0);

    const inv = await run(['auth', 'app-token', '--invalidate'], env);
    expect(inv.code, inv.stderr).toBe(0);
    expect(inv.stderr).toMatch(/revoked the app's bearer token and forgot it/);
    const old = await run(['request', '/1.1/application/rate_limit_status.json', '--auth', 'app'], env, {
      env: { XCTL_BEARER_TOKEN: bearer },
    });
    expect(old.code).toBe(3);
    expect(old.stderr).toMatch(/code 89/);
    const next = await run(['auth', 'app-token'], env);
    expect(next.code).toBe(0);
    expect((await run(['auth', 'token', '--type', 'app'], env)).stdout.trim()).not.toBe(bearer);
  });

  it('--invalidate signed by a user who is not the owner: exit 3 with a hint; 403 code 99 is explained', async () => {
    await t.admin('POST', '/_sandbox/clock', { advance: '61s' });
    const env = await freshProfile();
    await loginVia(env, 'sandbox_alice');
    const r = await run(['auth', 'app-token', '--invalidate'], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/hint: .*application owner/);

    // (A fresh store: the profile above now caches the outstanding bearer, which would be printed.)
    const bare = { ...env, XCTL_CONFIG_DIR: tempDir() };
    t.dirs.push(bare.XCTL_CONFIG_DIR);
    const bad = await run(['auth', 'app-token'], bare, {
      env: { XCTL_API_KEY: t.sb.seed.api_key, XCTL_API_SECRET: 'wrong-secret' },
    });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/code 99/);
    expect(bad.stderr).toMatch(/hint: cache your token/);
    expect(bad.stderr).not.toContain('wrong-secret');

    // Asking too often (a fresh store each time, so nothing is cached): 403 code 99.
    const results = [];
    for (let i = 0; i < 5; i++) {
      const fresh = { ...env, XCTL_CONFIG_DIR: tempDir() };
      t.dirs.push(fresh.XCTL_CONFIG_DIR);
      results.push(
        await run(['auth', 'app-token'], fresh, {
          env: { XCTL_API_KEY: t.sb.seed.api_key, XCTL_API_SECRET: t.sb.seed.api_secret },
        }),
      );
    }
    expect(results[0]!.code).toBe(0);
    const refused = results.find((x) => x.code === 3);
    expect(refused?.stderr).toMatch(/403, code 99[\s\S]*hint: cache your token/);
  });
});

describe('auth import --twurlrc', () => {
  async function rcFile(mode: number): Promise<string> {
    const s = t.sb.seed;
    await t.admin('POST', '/_sandbox/clock', { advance: '61s' });
    const bearer = (
      await basicFetch(s.api_key, s.api_secret, `${s.base_url}/oauth2/token`, 'grant_type=client_credentials')
    ).data.access_token as string;
    const text = fs
      .readFileSync(path.join(ROOT, 'test/fixtures/twurlrc.yml'), 'utf8')
      .replaceAll('{{API_KEY}}', s.api_key)
      .replaceAll('{{API_SECRET}}', s.api_secret)
      .replaceAll('{{ACCESS_TOKEN}}', s.access_token)
      .replaceAll('{{ACCESS_TOKEN_SECRET}}', s.access_token_secret)
      .replaceAll('{{BEARER}}', bearer);
    const dir = tempDir();
    t.dirs.push(dir);
    const file = path.join(dir, '.twurlrc');
    fs.writeFileSync(file, text, { mode });
    fs.chmodSync(file, mode);
    return file;
  }

  it('imports every profile and bearer, honours the default, and the imported credentials work', async () => {
    const file = await rcFile(0o600);
    const dir = tempDir();
    t.dirs.push(dir);
    const env = { ...t.env, ...NO_ENV_CREDS, XCTL_CONFIG_DIR: dir };
    const r = await run(['auth', 'import', '--twurlrc', file, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const rows = json(r.stdout);
    expect(rows.map((x) => x.profile).sort()).toEqual(
      ['sandbox_alice.OtherApp', `sandbox_alice.${t.sb.seed.api_key.slice(0, 8)}`, 'xctl_dev'].sort(),
    );
    expect(rows.find((x) => x.profile === 'xctl_dev')).toMatchObject({
      user_token: 'yes',
      bearer: 'yes',
      default: true,
      status: 'imported',
    });
    expect(r.stderr).toMatch(/default profile is now "xctl_dev"/);
    expect(r.stdout + r.stderr).not.toContain(t.sb.seed.api_secret);

    const me = await run(['request', '/1.1/account/verify_credentials.json'], env);
    expect(json(me.stdout).screen_name).toBe('xctl_dev');
    const app = await run(['request', '/1.1/application/rate_limit_status.json', '--auth', 'app'], env);
    expect(app.code, app.stderr).toBe(0);
    const cached = await run(['auth', 'app-token'], env);
    expect(cached.stderr).toMatch(/bearer cached/);
    const st = json((await run(['auth', 'status', '--json'], env)).stdout);
    expect(st.find((x) => x.profile === 'sandbox_alice.OtherApp')).toMatchObject({
      user_token: '@sandbox_alice (783214)',
    });

    // Again: same credentials are updated; other credentials under the same name are kept unless --overwrite.
    const again = await run(['auth', 'import', '--twurlrc', file, '--json'], env);
    expect(json(again.stdout).every((x) => x.status === 'updated')).toBe(true);
    await run(['--profile', 'xctl_dev', 'auth', 'set', '--access-token', 'another-token'], env);
    const clash = await run(['auth', 'import', '--twurlrc', file, '--json'], env);
    expect(json(clash.stdout).find((x) => x.profile === 'xctl_dev')!.status).toMatch(/skipped/);
    expect(clash.stderr).toMatch(/--overwrite/);
    const forced = await run(['auth', 'import', '--twurlrc', file, '--overwrite', '--json'], env);
    expect(json(forced.stdout).find((x) => x.profile === 'xctl_dev')!.status).toBe('replaced');
  });

  it('refuses a world-readable rc file, a missing one, and one that is not a twurl file (exit 2)', async () => {
    const env = { ...t.env, ...NO_ENV_CREDS, XCTL_CONFIG_DIR: tempDir() };
    t.dirs.push(env.XCTL_CONFIG_DIR);
    const open = await rcFile(0o644);
    const r = await run(['auth', 'import', '--twurlrc', open], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/readable by every user \(mode 644\)/);
    expect(r.stderr).toContain(`hint: run \`chmod 600 ${open}\``);
    expect(fs.existsSync(path.join(env.XCTL_CONFIG_DIR, 'config.json'))).toBe(false);
    // group-readable is refused too (it used to be a warning), with the exact command to run
    const group = await rcFile(0o640);
    const g = await run(['auth', 'import', '--twurlrc', group], env);
    expect(g.code).toBe(2);
    expect(g.stderr).toMatch(/readable by its group \(mode 640\)/);
    expect(g.stderr).toContain(`chmod 600 ${group}`);
    expect(g.stderr).toMatch(/--insecure/);
    // --insecure imports anyway, with a warning
    const insecure = await run(['auth', 'import', '--twurlrc', group, '--insecure', '--json'], env);
    expect(insecure.code, insecure.stderr).toBe(0);
    expect(insecure.stderr).toMatch(/warning: .*readable by its group.*--insecure/);
    expect(json(insecure.stdout).length).toBe(3);
    // a path with a space is quoted so that the command works when pasted
    const spaced = path.join(tempDir(), 'my rc');
    t.dirs.push(path.dirname(spaced));
    fs.copyFileSync(group, spaced);
    fs.chmodSync(spaced, 0o604);
    expect((await run(['auth', 'import', '--twurlrc', spaced], env)).stderr).toContain(`chmod 600 '${spaced}'`);
    const missing = await run(['auth', 'import', '--twurlrc', '/nonexistent/.twurlrc'], env);
    expect(missing.code).toBe(2);
    const notRc = path.join(env.XCTL_CONFIG_DIR, 'x.yml');
    fs.writeFileSync(notRc, 'a: [1, 2\n', { mode: 0o600 });
    expect((await run(['auth', 'import', '--twurlrc', notRc], env)).stderr).toMatch(/not valid YAML/);
    // Default path: ~/.twurlrc under HOME.
    const home = tempDir();
    t.dirs.push(home);
    fs.copyFileSync(await rcFile(0o600), path.join(home, '.twurlrc'));
    fs.chmodSync(path.join(home, '.twurlrc'), 0o600);
    const viaHome = await run(['auth', 'import', '--twurlrc'], { ...env, HOME: home });
    expect(viaHome.code, viaHome.stderr).toBe(0);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = http.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}
