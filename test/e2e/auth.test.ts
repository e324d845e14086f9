// Authentication end to end: the real CLI against a real sandbox (one per section where the
// sandbox options differ: a manual clock, a token-request rate limit). Merged from auth-cli,
// auth-check, auth-oauth2-cli, sandbox-oauth2, bearer-cache, profile-safety and lock-race.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it, afterAll, beforeAll } from 'vitest';
import {
  useTestSandbox,
  ROOT,
  runCli,
  tempDir,
  type RunOptions,
  startTestSandbox,
  type RunResult,
  type TestSandbox,
  xctl,
} from '../helpers/cli.js';
import { AUTHORIZE_URL, spawnCli, OAUTH2_AUTHORIZE_URL } from '../helpers/live-cli.js';
import { basicFetch, decideOnPage, decideOnOAuth2Page, signedFetch } from '../helpers/oauth-client.js';
import { clientBasic, codeChallenge, newVerifier } from '../../src/core/oauth2.js';
import { spawnCli as spawnCliReceiver } from '../helpers/receiver.js';

// `xctl auth login|logout|app-token|import|status`: the real CLI against a real sandbox; the test
// plays the browser over HTTP (GET the printed authorize URL, POST Allow/Deny, follow the 302).
const t = useTestSandbox({ clock: 'manual', tokenRequestsPerMinute: 5 });

const NO_ENV_CREDS = {
  XCTL_API_KEY: undefined,
  XCTL_API_SECRET: undefined,
  XCTL_ACCESS_TOKEN: undefined,
  XCTL_ACCESS_TOKEN_SECRET: undefined,
};

/**
 * A profile store written as `auth set` leaves it (one JSON file, 0600): a test's setup, not what
 * it proves, so no CLI process (auth set itself is tested in-process and in the sections below).
 */
function writeProfiles(dir: string, profiles: Record<string, Record<string, string>>): void {
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ profiles }, undefined, '\t'), { mode: 0o600 });
}

/** A fresh config dir with the app key and secret stored in its default profile (no env credentials). */
async function freshProfile(withOwnerToken = false): Promise<Record<string, string | undefined>> {
  const dir = tempDir();
  t.dirs.push(dir);
  const env = { ...t.env, ...NO_ENV_CREDS, XCTL_CONFIG_DIR: dir };
  const s = t.sb.seed;
  const owner = {
    access_token: s.access_token,
    access_token_secret: s.access_token_secret,
    user_id: s.user_id,
    screen_name: s.screen_name,
  };
  writeProfiles(dir, { default: { api_key: s.api_key, api_secret: s.api_secret, ...(withOwnerToken ? owner : {}) } });
  return env;
}

const run = (args: string[], env: Record<string, string | undefined>, o: RunOptions = {}) =>
  runCli(args, { ...o, env: { ...env, ...(o.env ?? {}) } });
const json = (s: string) => JSON.parse(s) as Record<string, unknown> & Array<Record<string, unknown>>;

async function loginVia(env: Record<string, string | undefined>, screenName: string, extra: string[] = []) {
  const cli = spawnCli(xctl`auth login --no-browser --json ${extra}`, env);
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

    const me = await run(xctl`request /1.1/account/verify_credentials.json`, env);
    expect(me.code, me.stderr).toBe(0);
    expect(json(me.stdout).screen_name).toBe('sandbox_alice');

    const st = await run(xctl`auth status --json`, env);
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
    const oldToken = (await run(xctl`auth token`, env)).stdout.trim();
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
    const set = await run(xctl`config set account_id ${t.sb.seed.account_id}`, env);
    expect(set.code, set.stderr).toBe(0);
    const { r } = await loginVia(env, 'sandbox_alice');
    expect(r.stderr).toContain(
      `warning: the profile's account_id ${t.sb.seed.account_id} is not one of @sandbox_alice's ads accounts: ads calls would fail with ACCOUNT_NOT_FOUND; `,
    );
    const listed = await run(xctl`ads accounts list --jq .[].id`, env);
    for (const id of listed.stdout.trim().split('\n').filter(Boolean)) expect(r.stderr).toContain(id);
    // the same user again: no ads lookup, no warning
    const again = await loginVia(env, 'sandbox_alice');
    expect(again.r.stderr).not.toContain('ads accounts');
  });

  it('--access-level read, --force-login, --screen-name and --callback-port reach the service; a stale callback is refused', async () => {
    const env = await freshProfile();
    const port = await freePort();
    const cli = spawnCli(
      xctl`auth login --no-browser --access-level read --force-login --screen-name @sandbox_bob --callback-port
        ${String(port)}`,
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
    const me = await run(xctl`request /1.1/account/verify_credentials.json -i`, env);
    expect(me.stdout + me.stderr).toMatch(/x-access-level: read\b/);
    expect(me.stdout).toMatch(/"screen_name": ?"sandbox_bob"/);
  });

  it('deny: exit 3, the browser is told, nothing is stored', async () => {
    const env = await freshProfile();
    const cli = spawnCli(xctl`auth login --no-browser`, env);
    const [, url] = await cli.waitStderr(AUTHORIZE_URL);
    const page = await decideOnPage(url!, 'deny');
    expect(new URL(page.location!).searchParams.get('denied')).toBeTruthy();
    const back = await fetch(page.location!);
    expect(await back.text()).toMatch(/Authorization cancelled/);
    const r = await cli.done;
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/error: authorization was denied/);
    const tok = await run(xctl`auth token`, env);
    expect(tok.code).toBe(3);
  });

  it('timeout: a clear error (exit 1) and the callback port is released; Ctrl-C exits 130', async () => {
    const env = await freshProfile();
    const port = await freePort();
    const r = await run(xctl`auth login --no-browser --timeout 1s --callback-port ${String(port)}`, env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: no authorization arrived within 1s: login cancelled/);
    expect(r.stderr).toMatch(/hint: .*--timeout/);
    const again = http.createServer();
    await new Promise<void>((res, rej) => again.once('error', rej).listen(port, '127.0.0.1', res));
    again.close();
    // Ctrl-C while waiting: exit 130, nothing stored.
    const cli = spawnCli(xctl`auth login --no-browser`, env);
    await cli.waitStderr(/Waiting for the browser/);
    cli.child.kill('SIGINT');
    const stopped = await cli.done;
    expect(stopped.code).toBe(130);
    expect((await run(xctl`auth token`, env)).code).toBe(3);
  });
});

describe('auth login --pin (oob)', () => {
  it('reads the PIN from stdin', async () => {
    const env = await freshProfile();
    const cli = spawnCli(xctl`auth login --pin --no-browser`, env);
    const [, url] = await cli.waitStderr(AUTHORIZE_URL);
    await cli.waitStderr(/pipe the PIN/);
    const page = await decideOnPage(url!, 'allow', { screenName: 'sandbox_bob' });
    expect(page.pin).toMatch(/^\d{7}$/);
    cli.child.stdin.end(`${page.pin}\n`);
    const r = await cli.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Logged in as @sandbox_bob/);
    const me = await run(xctl`request /1.1/account/verify_credentials.json`, env);
    expect(json(me.stdout).screen_name).toBe('sandbox_bob');
  });

  it('never prompts without a terminal: nothing piped is exit 2 with a hint; a wrong PIN fails', async () => {
    const env = await freshProfile();
    const empty = await run(xctl`auth login --pin --no-browser`, env, { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--pin: stdin is not a terminal/);
    expect(empty.stderr).toMatch(/hint: pipe the PIN/);

    const cli = spawnCli(xctl`auth login --pin --no-browser`, env);
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
    const token = (await run(xctl`auth token`, env)).stdout.trim();
    const secret = (await run(xctl`auth token --secret`, env)).stdout.trim();
    const out = await run(xctl`auth logout`, env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/revoked the token of @sandbox_alice/);
    expect(out.stderr).toMatch(/removed the user token from profile "default"/);
    const old = await run(xctl`request /1.1/account/verify_credentials.json`, env, {
      env: { XCTL_ACCESS_TOKEN: token, XCTL_ACCESS_TOKEN_SECRET: secret },
    });
    expect(old.code).toBe(3);
    expect(old.stderr).toMatch(/code 89/);
    const gone = await run(xctl`auth token`, env);
    expect(gone.code).toBe(3);
    const again = await run(xctl`auth logout`, env);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/nothing to log out/);
  });

  it('--local-only leaves the token valid at the service; a failed revocation still forgets it and says so', async () => {
    const env = await freshProfile();
    await loginVia(env, 'sandbox_bob');
    const token = (await run(xctl`auth token`, env)).stdout.trim();
    const secret = (await run(xctl`auth token --secret`, env)).stdout.trim();
    const local = await run(xctl`auth logout --local-only`, env);
    expect(local.code).toBe(0);
    expect(local.stderr).toMatch(/not revoked at the service/);
    const still = await run(xctl`request /1.1/account/verify_credentials.json`, env, {
      env: { XCTL_ACCESS_TOKEN: token, XCTL_ACCESS_TOKEN_SECRET: secret },
    });
    expect(still.code).toBe(0);

    await loginVia(env, 'sandbox_bob');
    await t.admin('POST', '/_sandbox/faults', { error_rate: 1, status: 503, match: 'invalidate_token', count: 1 });
    const failed = await run(xctl`auth logout`, env);
    await t.admin('DELETE', '/_sandbox/faults');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/error: the token was removed locally, but revoking it at the service failed/);
    expect((await run(xctl`auth token`, env)).code).toBe(3);
  });
});

describe('auth app-token', () => {
  it('obtains once, caches, revokes as the owner, and a new one differs; the old one fails with exit 3', async () => {
    await t.admin('POST', '/_sandbox/clock', { advance: '61s' });
    const env = await freshProfile(true);
    const first = await run(xctl`auth app-token`, env);
    expect(first.code, first.stderr).toBe(0);
    // shown masked: `auth token` is the one command that prints a secret
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(
      /obtained the app's bearer token and cached it in profile "default" \(AAAA…\(\d+\); print it with `xctl auth token --type app`\)/,
    );
    const bearer = (await run(xctl`auth token --type app`, env)).stdout.trim();
    expect(bearer).toMatch(/^AAAA/);
    expect(first.stderr).not.toContain(bearer);
    const again = await run(xctl`auth app-token`, env);
    expect(again.stderr).toMatch(/bearer cached in profile "default"/);
    expect((await run(xctl`auth token --type app`, env)).stdout.trim()).toBe(bearer);
    const st = json((await run(xctl`auth status --json`, env)).stdout)[0]!;
    expect(st.bearer).toBe('cached');
    expect(JSON.stringify(st)).not.toContain(bearer);
    const use = await run(xctl`request /1.1/application/rate_limit_status.json --auth app`, env);
    expect(use.code, use.stderr).toBe(0);

    const inv = await run(xctl`auth app-token --invalidate`, env);
    expect(inv.code, inv.stderr).toBe(0);
    expect(inv.stderr).toMatch(/revoked the app's bearer token and forgot it/);
    const old = await run(xctl`request /1.1/application/rate_limit_status.json --auth app`, env, {
      env: { XCTL_BEARER_TOKEN: bearer },
    });
    expect(old.code).toBe(3);
    expect(old.stderr).toMatch(/code 89/);
    const next = await run(xctl`auth app-token`, env);
    expect(next.code).toBe(0);
    expect((await run(xctl`auth token --type app`, env)).stdout.trim()).not.toBe(bearer);
  });

  it('--invalidate signed by a user who is not the owner: exit 3 with a hint; 403 code 99 is explained', async () => {
    await t.admin('POST', '/_sandbox/clock', { advance: '61s' });
    const env = await freshProfile();
    await loginVia(env, 'sandbox_alice');
    const r = await run(xctl`auth app-token --invalidate`, env);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/hint: .*application owner/);

    // (A fresh store: the profile above now caches the outstanding bearer, which would be printed.)
    const bare = { ...env, XCTL_CONFIG_DIR: tempDir() };
    t.dirs.push(bare.XCTL_CONFIG_DIR);
    const bad = await run(xctl`auth app-token`, bare, {
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
        await run(xctl`auth app-token`, fresh, {
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
    const r = await run(xctl`auth import --twurlrc ${file} --json`, env);
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

    const me = await run(xctl`request /1.1/account/verify_credentials.json`, env);
    expect(json(me.stdout).screen_name).toBe('xctl_dev');
    const app = await run(xctl`request /1.1/application/rate_limit_status.json --auth app`, env);
    expect(app.code, app.stderr).toBe(0);
    const cached = await run(xctl`auth app-token`, env);
    expect(cached.stderr).toMatch(/bearer cached/);
    const st = json((await run(xctl`auth status --json`, env)).stdout);
    expect(st.find((x) => x.profile === 'sandbox_alice.OtherApp')).toMatchObject({
      user_token: '@sandbox_alice (783214)',
    });

    // Again: same credentials are updated; other credentials under the same name are kept unless --overwrite.
    const again = await run(xctl`auth import --twurlrc ${file} --json`, env);
    expect(json(again.stdout).every((x) => x.status === 'updated')).toBe(true);
    await run(['--profile', 'xctl_dev', 'auth', 'set', '--access-token', 'another-token'], env);
    const clash = await run(xctl`auth import --twurlrc ${file} --json`, env);
    expect(json(clash.stdout).find((x) => x.profile === 'xctl_dev')!.status).toMatch(/skipped/);
    expect(clash.stderr).toMatch(/--overwrite/);
    const forced = await run(xctl`auth import --twurlrc ${file} --overwrite --json`, env);
    expect(json(forced.stdout).find((x) => x.profile === 'xctl_dev')!.status).toBe('replaced');
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

// ---- auth-check ----
// Issue 20 item 19: `auth status --check` asks the service about each credential of the selected
// profile (OAuth 1.0a user token, app-only bearer, OAuth 2.0 user token) and exits 1 on any
// failure. Also item 16: `auth login --oauth2` over a stored token says whose it replaces.
describe('auth-check', () => {
  const t = useTestSandbox();

  /** The sandbox's owner credentials stored in a fresh profile (none from the environment). */
  async function storedProfile(): Promise<Record<string, string | undefined>> {
    const dir = tempDir();
    t.dirs.push(dir);
    const s = t.sb.seed;
    const env = { XCTL_CONFIG_DIR: dir, XCTL_BASE_URL: s.base_url, XCTL_RETRY_BASE_MS: '20' };
    const keys = [
      'api_key',
      'api_secret',
      'access_token',
      'access_token_secret',
      'client_id',
      'client_secret',
    ] as const;
    const profile: Record<string, string> = { user_id: s.user_id, screen_name: s.screen_name };
    for (const k of keys) profile[k] = s[k];
    writeProfiles(dir, { default: profile });
    return env;
  }

  const check = (env: Record<string, string | undefined>, extra: string[] = []) =>
    runCli(xctl`auth status --check -o json ${extra}`, { env });
  /** The --json error object (the last line of stderr). */
  const errorOf = (stderr: string) =>
    (JSON.parse(stderr.trim().split('\n').pop()!) as { error: Record<string, unknown> }).error;
  const rows = (stdout: string) => JSON.parse(stdout) as Array<{ credential: string; status: string; detail: string }>;

  async function loginOAuth2(env: Record<string, string | undefined>, user: string) {
    const cli = spawnCli(xctl`auth login --oauth2 --no-browser --callback-port 0 --json`, env);
    const [, url] = await cli.waitStderr(OAUTH2_AUTHORIZE_URL);
    const page = await decideOnOAuth2Page(url!, 'allow', user);
    expect(page.status).toBe(302);
    await fetch(page.location!);
    const r = await cli.done;
    expect(r.code, r.stderr).toBe(0);
    return r;
  }

  describe('auth status --check', () => {
    it('the user token works: ok with the user it belongs to; then the cached bearer and the OAuth 2.0 token too', async () => {
      const env = await storedProfile();
      const first = await check(env);
      expect(first.code, first.stderr).toBe(0);
      expect(rows(first.stdout)).toEqual([
        { credential: 'oauth1 user', status: 'ok', detail: '@xctl_dev (2244994945), read-write-directmessages' },
      ]);
      expect(first.stderr).toMatch(/the credential of profile "default" works/);

      expect((await runCli(xctl`auth app-token`, { env })).code).toBe(0);
      const login = await loginOAuth2(env, 'sandbox_bob');
      expect(login.stderr).not.toMatch(/replacing/);
      const all = await check(env);
      expect(all.code, all.stderr).toBe(0);
      expect(all.stderr).toMatch(/all 3 credentials of profile "default" work/);
      expect(rows(all.stdout)).toEqual([
        { credential: 'oauth1 user', status: 'ok', detail: expect.stringMatching(/^@xctl_dev \(2244994945\)/) },
        { credential: 'bearer (cached)', status: 'ok', detail: 'accepted (app-only)' },
        { credential: 'oauth2 user', status: 'ok', detail: '@sandbox_bob (6253282)' },
      ]);
      // a table on a terminal is the same rows; piped it is tsv
      const tsv = await runCli(xctl`auth status --check`, { env });
      expect(tsv.stdout).toMatch(/^oauth1 user\tok\t@xctl_dev/m);

      // logging in again over the OAuth 2.0 token says whose it replaces (item 16)
      const again = await loginOAuth2(env, 'sandbox_alice');
      expect(again.stderr).toMatch(/replacing the OAuth 2\.0 token of @sandbox_bob \(6253282\) in profile "default"/);
    });

    it('a bad credential is "failed" with the service\'s answer, and exit 1; the others are still checked', async () => {
      const env = await storedProfile();
      const badUser = await check({ ...env, XCTL_ACCESS_TOKEN: '2244994945-not-a-token' });
      expect(badUser.code).toBe(1);
      expect(rows(badUser.stdout)).toEqual([
        { credential: 'oauth1 user (from env)', status: 'failed', detail: expect.stringMatching(/HTTP 401, code 89/) },
      ]);
      expect(errorOf(badUser.stderr)).toMatchObject({
        type: 'CheckFailed',
        message: '1 of 1 credential of profile "default" failed the check: oauth1 user (from env)',
        exit_code: 1,
      });

      const badBearer = await check({ ...env, XCTL_BEARER_TOKEN: 'AAAAnot-a-bearer' });
      expect(badBearer.code).toBe(1);
      expect(rows(badBearer.stdout)).toEqual([
        { credential: 'oauth1 user', status: 'ok', detail: expect.stringMatching(/^@xctl_dev/) },
        { credential: 'bearer (from env)', status: 'failed', detail: expect.stringMatching(/HTTP 401, code 89/) },
      ]);
      expect(badBearer.stderr).toMatch(/bearer \(from env\): XCTL_BEARER_TOKEN is not a valid bearer token/);
      expect(badBearer.stdout + badBearer.stderr).not.toContain(t.sb.seed.access_token);
    });

    it('an app key alone is checked by obtaining the bearer; nothing at all is exit 1 with a hint', async () => {
      const dir = tempDir();
      t.dirs.push(dir);
      const s = t.sb.seed;
      const env = { XCTL_CONFIG_DIR: dir, XCTL_BASE_URL: s.base_url };
      const fresh = () => {
        const d = tempDir();
        t.dirs.push(d);
        return d;
      };
      await t.admin('POST', '/_sandbox/clock', { advance: '61s' });
      const app = await check({ ...env, XCTL_API_KEY: s.api_key, XCTL_API_SECRET: s.api_secret });
      expect(app.code, app.stderr).toBe(0);
      expect(rows(app.stdout)).toEqual([
        { credential: 'app key (from env)', status: 'ok', detail: 'bearer obtained and cached' },
      ]);
      const wrong = await check({
        ...env,
        XCTL_CONFIG_DIR: fresh(),
        XCTL_API_KEY: s.api_key,
        XCTL_API_SECRET: 'wrong-secret',
      });
      expect(wrong.code).toBe(1);
      expect(rows(wrong.stdout)[0]).toMatchObject({ credential: 'app key (from env)', status: 'failed' });
      const none = await check({ ...env, XCTL_CONFIG_DIR: fresh() });
      expect(none.code).toBe(1);
      expect(errorOf(none.stderr)).toMatchObject({
        message: 'profile "default" has no credentials to check',
        hint: expect.stringMatching(/^run `xctl auth set/),
      });
    });
  });
});

// ---- auth-oauth2-cli ----
// OAuth 2.0 user context through the real CLI against a real sandbox: login (callback and
// --paste), a v2 call, expiry on the manual clock and a silent refresh with rotation, two
// processes refreshing at once, a missing scope named in the hint, logout revoking, and no
// secret in any output.
describe('auth-oauth2-cli', () => {
  let t: TestSandbox;
  const log: string[] = [];
  const dirs: string[] = [];
  /** Every output of every command run here, for the secrets scan at the end. */
  const outputs: Array<{ args: string[]; text: string }> = [];
  /** Every secret seen: client secret, access and refresh tokens, authorization codes. */
  const secrets = new Set<string>();

  beforeAll(async () => {
    t = await startTestSandbox({ clock: 'manual', log: (l: string) => log.push(l) });
    secrets.add(t.sb.seed.client_secret);
  });
  afterAll(async () => {
    await t.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A fresh config dir; the OAuth 2.0 client from the environment, no OAuth 1.0a user token. */
  function freshEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    const dir = tempDir();
    dirs.push(dir);
    const s = t.sb.seed;
    return {
      ...t.env,
      XCTL_CONFIG_DIR: dir,
      XCTL_ACCESS_TOKEN: undefined,
      XCTL_ACCESS_TOKEN_SECRET: undefined,
      XCTL_CLIENT_ID: s.client_id,
      XCTL_CLIENT_SECRET: s.client_secret,
      ...extra,
    };
  }

  async function run(args: string[], env: Record<string, string | undefined>, o: RunOptions = {}): Promise<RunResult> {
    const r = await runCli(args, { ...o, env: { ...env, ...(o.env ?? {}) } });
    outputs.push({ args, text: r.stdout + r.stderr });
    return r;
  }

  function profile(env: Record<string, string | undefined>): Record<string, string> {
    const p = (
      JSON.parse(fs.readFileSync(path.join(env.XCTL_CONFIG_DIR!, 'config.json'), 'utf8')) as {
        profiles: Record<string, Record<string, string>>;
      }
    ).profiles.default!;
    for (const k of ['oauth2_access_token', 'oauth2_refresh_token']) if (p[k]) secrets.add(p[k]!);
    return p;
  }

  const SCOPES = 'tweet.read users.read dm.read offline.access';

  /** Logs in through the callback; the test is the browser. */
  async function login(
    env: Record<string, string | undefined>,
    o: { scopes?: string; user?: string; decision?: 'allow' | 'deny' } = {},
  ) {
    const args = [
      'auth',
      'login',
      '--oauth2',
      '--no-browser',
      '--callback-port',
      '0',
      '--json',
      '--scopes',
      o.scopes ?? SCOPES,
    ];
    const cli = spawnCli(args, env);
    const [, url] = await cli.waitStderr(OAUTH2_AUTHORIZE_URL);
    const page = await decideOnOAuth2Page(url!, o.decision ?? 'allow', o.user ?? 'sandbox_bob');
    expect(page.status, page.html).toBe(302);
    const code = new URL(page.location!).searchParams.get('code');
    if (code) secrets.add(code);
    const back = await fetch(page.location!);
    const r = await cli.done;
    outputs.push({ args, text: r.stdout + r.stderr });
    return { r, url: url!, location: page.location!, back: { status: back.status, text: await back.text() } };
  }

  const json = (s: string) => JSON.parse(s) as Record<string, unknown>;

  async function refreshDirectly(refreshToken: string) {
    const res = await fetch(`${t.sb.seed.base_url}/2/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: clientBasic(t.sb.seed.client_id, t.sb.seed.client_secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const meWith = (token: string) =>
    fetch(`${t.sb.seed.base_url}/2/users/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

  describe('auth login --oauth2', () => {
    it('callback: PKCE S256 with state, the token stored with scopes and expiry, the user learnt from /2/users/me', async () => {
      const env = freshEnv();
      const { r, url, location, back } = await login(env);
      expect(r.code, r.stderr).toBe(0);
      const q = new URL(url).searchParams;
      expect(q.get('response_type')).toBe('code');
      expect(q.get('client_id')).toBe(t.sb.seed.client_id);
      expect(q.get('code_challenge_method')).toBe('S256');
      expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(q.get('state')!.length).toBeGreaterThanOrEqual(32);
      expect(q.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect(url).toContain('scope=tweet.read%20users.read%20dm.read%20offline.access');
      expect(new URL(location).searchParams.get('state')).toBe(q.get('state'));
      expect(back.status).toBe(200);
      expect(back.text).toMatch(/signed in to xctl/);
      expect(json(r.stdout)).toMatchObject({
        profile: 'default',
        user_id: '6253282',
        screen_name: 'sandbox_bob',
        scopes: SCOPES,
        refresh: 'automatic',
      });
      expect(r.stderr).toMatch(/Logged in with OAuth 2.0 as @sandbox_bob \(6253282\)/);
      const p = profile(env);
      expect(p).toMatchObject({
        oauth2_user_id: '6253282',
        oauth2_screen_name: 'sandbox_bob',
        oauth2_scopes: SCOPES,
        oauth2_client_id: t.sb.seed.client_id,
      });
      expect(Date.parse(p.oauth2_expires_at!) - Date.now()).toBeGreaterThan(7_100_000);
      expect(fs.statSync(path.join(env.XCTL_CONFIG_DIR!, 'config.json')).mode & 0o777).toBe(0o600);

      // A v2 call with it, and a subscription the dm.read scope allows.
      const me = await run(xctl`request /2/users/me --auth oauth2`, env);
      expect(me.code, me.stderr).toBe(0);
      expect(json(me.stdout)).toEqual({ data: { id: '6253282', name: 'Bob Sandbox', username: 'sandbox_bob' } });
      const sub = await run(
        xctl`activity subscriptions create --event dm.received --user-id 6253282 --auth oauth2 --json`,
        env,
      );
      expect(sub.code, sub.stderr).toBe(0);

      const st = await run(xctl`auth status --json`, env);
      expect(st.code, st.stderr).toBe(0);
      const row = (JSON.parse(st.stdout) as Array<Record<string, string>>)[0]!;
      expect(row).toMatchObject({
        oauth2_screen_name: 'sandbox_bob',
        oauth2_scopes: SCOPES,
        oauth2_refresh: 'automatic',
        client_secret: 'set',
      });
      expect(row.oauth2).toMatch(/^@sandbox_bob \(until \d\d:\d\dZ\), 4 scopes$/);
      expect(row.client_id).not.toBe(t.sb.seed.client_id);

      const tok = await runCli(xctl`auth token --type oauth2`, { env });
      expect(tok.stdout.trim()).toBe(p.oauth2_access_token);
    });

    it('--paste: the redirected URL read back from stdin; a URL of another login is refused', async () => {
      const env = freshEnv();
      const args = xctl`auth login --oauth2 --paste --json --scopes ${'tweet.read users.read'}`;
      const cli = spawnCli(args, env);
      const [, url] = await cli.waitStderr(OAUTH2_AUTHORIZE_URL);
      expect(new URL(url!).searchParams.get('redirect_uri')).toBe('http://127.0.0.1:8080/callback');
      const page = await decideOnOAuth2Page(url!, 'allow', 'sandbox_alice');
      secrets.add(new URL(page.location!).searchParams.get('code')!);
      cli.child.stdin.end(page.location + '\n');
      const r = await cli.done;
      outputs.push({ args, text: r.stdout + r.stderr });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/Paste|Pipe/);
      expect(r.stderr).toMatch(/without offline\.access there is no refresh token/);
      expect(json(r.stdout)).toMatchObject({ screen_name: 'sandbox_alice', refresh: 'none (no offline.access)' });
      expect(profile(env).oauth2_refresh_token).toBeUndefined();

      // The code of this login pasted into another one: its state differs, so it is refused.
      const env2 = freshEnv();
      const again = await run(args, env2, { input: page.location + '\n' });
      expect(again.code).toBe(3);
      expect(again.stderr).toMatch(/state is not the one this login sent/);
      expect(
        fs.existsSync(path.join(env2.XCTL_CONFIG_DIR!, 'config.json')) ? profile(env2).oauth2_access_token : undefined,
      ).toBeUndefined();
    });

    it('Deny stores nothing and exits 3', async () => {
      const env = freshEnv();
      const { r, back } = await login(env, { decision: 'deny' });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/authorization was denied on the consent page: nothing was stored/);
      expect(back.text).toMatch(/Authorization cancelled/);
      expect(fs.existsSync(path.join(env.XCTL_CONFIG_DIR!, 'config.json'))).toBe(false);
    });
  });

  describe('refresh', () => {
    it('expiry on the sandbox clock: a silent refresh with rotation; the old refresh token is refused afterwards', async () => {
      const env = freshEnv();
      expect((await login(env)).r.code).toBe(0);
      const first = profile(env);
      await t.admin('POST', '/_sandbox/clock', { advance: '121m' });
      expect(await meWith(first.oauth2_access_token!)).toBe(401);
      const me = await run(xctl`request /2/users/me --auth oauth2`, env);
      expect(me.code, me.stderr).toBe(0);
      expect(me.stderr).toBe('');
      expect(json(me.stdout)).toMatchObject({ data: { username: 'sandbox_bob' } });
      const second = profile(env);
      expect(second.oauth2_access_token).not.toBe(first.oauth2_access_token);
      expect(second.oauth2_refresh_token).not.toBe(first.oauth2_refresh_token);
      expect(second.oauth2_scopes).toBe(SCOPES);
      const old = await refreshDirectly(first.oauth2_refresh_token!);
      expect([old.status, old.body]).toEqual([
        400,
        { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' },
      ]);

      // A token that is due by the local clock is refreshed before the request is sent.
      const cfg = path.join(env.XCTL_CONFIG_DIR!, 'config.json');
      const data = JSON.parse(fs.readFileSync(cfg, 'utf8'));
      data.profiles.default.oauth2_expires_at = new Date(Date.now() + 30_000).toISOString();
      fs.writeFileSync(cfg, JSON.stringify(data));
      const mark = log.length;
      expect((await run(xctl`request /2/users/me --auth oauth2`, env)).code).toBe(0);
      expect(log.slice(mark).map((l) => l.replace(/ \d+ms$/, ''))).toEqual([
        'POST /2/oauth2/token 200',
        'GET /2/users/me 200',
      ]);
      expect(profile(env).oauth2_refresh_token).not.toBe(second.oauth2_refresh_token);
    });

    it('two xctl processes refreshing at once spend the refresh token once (lock), and both succeed', async () => {
      const env = freshEnv();
      expect((await login(env)).r.code).toBe(0);
      const before = profile(env);
      await t.admin('POST', '/_sandbox/clock', { advance: '121m' });
      // Slow answers make the two processes overlap: both send the dead token, both get 401, both want to refresh.
      await t.admin('POST', '/_sandbox/faults', { latency_ms: 600, match: '^/2/(users/me|oauth2/token)$' });
      const mark = log.length;
      try {
        const [a, b] = await Promise.all([
          run(xctl`request /2/users/me --auth oauth2`, env),
          run(xctl`request /2/users/me --auth oauth2`, env),
        ]);
        expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
      } finally {
        await t.admin('DELETE', '/_sandbox/faults');
      }
      const lines = log.slice(mark).map((l) => l.replace(/ \d+ms$/, ''));
      expect(lines.filter((l) => l === 'GET /2/users/me 401')).toHaveLength(2);
      expect(lines.filter((l) => l.startsWith('POST /2/oauth2/token'))).toEqual(['POST /2/oauth2/token 200']);
      const after = profile(env);
      expect(after.oauth2_refresh_token).not.toBe(before.oauth2_refresh_token);
      expect(fs.existsSync(path.join(env.XCTL_CONFIG_DIR!, 'config.json.oauth2-refresh.lock'))).toBe(false);
      // The stored pair is the live one.
      expect(await meWith(after.oauth2_access_token!)).toBe(200);
    }, 30_000);

    it('a refused refresh says to log in again (exit 3)', async () => {
      const env = freshEnv();
      expect((await login(env)).r.code).toBe(0);
      const p = profile(env);
      expect((await refreshDirectly(p.oauth2_refresh_token!)).status).toBe(200); // spent elsewhere
      await t.admin('POST', '/_sandbox/clock', { advance: '121m' });
      const r = await run(xctl`request /2/users/me --auth oauth2`, env);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/Value passed for the token was invalid\./);
      expect(r.stderr).toMatch(/log in again with `xctl auth login --oauth2`/);
    });
  });

  describe('scopes', () => {
    it('a missing scope is refused by the service and the hint names it; an endpoint without user context says so', async () => {
      const env = freshEnv();
      expect((await login(env, { scopes: 'tweet.read users.read offline.access' })).r.code).toBe(0);
      const like = await run(
        xctl`activity subscriptions create --event dm.received --user-id 6253282 --auth oauth2`,
        env,
      );
      expect(like.code).toBe(3);
      expect(like.stderr).toMatch(/^error: Forbidden \(HTTP 403\)$/m);
      expect(like.stderr).toContain('needs the scope dm.read');
      expect(like.stderr).toContain('--scopes "dm.read offline.access"');
      const list = await run(xctl`activity subscriptions list --auth oauth2`, env);
      expect(list.code).toBe(3);
      expect(list.stderr).toContain('needs the scopes tweet.read like.read');
      const raw = await run(xctl`request /2/webhooks --auth oauth2`, env);
      expect(raw.code).toBe(3);
      expect(raw.stderr).toMatch(/takes OAuth 2\.0 Application-Only: pass --auth app/);
      expect(
        (await run(xctl`activity subscriptions create --event profile.update.bio --user-id 783214 --auth oauth2`, env))
          .code,
      ).toBe(0);
    });
  });

  describe('auth set, logout, sandbox', () => {
    it('auth set --client-id --client-secret - stores the client; logout --oauth2 revokes both tokens and forgets them', async () => {
      const env = freshEnv({ XCTL_CLIENT_ID: undefined, XCTL_CLIENT_SECRET: undefined });
      const set = await run(xctl`auth set --client-id ${t.sb.seed.client_id} --client-secret -`, env, {
        input: t.sb.seed.client_secret + '\n',
      });
      expect(set.code, set.stderr).toBe(0);
      expect(set.stderr).toMatch(/saved client_secret, client_id/);
      expect(profile(env)).toMatchObject({ client_id: t.sb.seed.client_id, client_secret: t.sb.seed.client_secret });
      expect((await run(xctl`auth set --client-secret ${t.sb.seed.client_secret}`, env)).code).toBe(2);

      expect((await login(env)).r.code).toBe(0);
      const p = profile(env);
      const out = await run(xctl`auth logout --oauth2`, env);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stderr).toMatch(/revoked the OAuth 2\.0 tokens of @sandbox_bob/);
      expect(await meWith(p.oauth2_access_token!)).toBe(401);
      expect((await refreshDirectly(p.oauth2_refresh_token!)).status).toBe(400);
      const after = profile(env);
      expect(Object.keys(after).filter((k) => k.startsWith('oauth2_'))).toEqual([]);
      expect(after.client_id).toBe(t.sb.seed.client_id);
      const again = await run(xctl`request /2/users/me --auth oauth2`, env);
      expect(again.code).toBe(3);
      expect(again.stderr).toMatch(/holds no OAuth 2\.0 user token/);
      expect((await run(xctl`auth logout --oauth2`, env)).stderr).toMatch(/nothing to log out/);
    });

    it('sandbox start --json gives the OAuth 2.0 client; --configure stores it', async () => {
      const env = freshEnv({ XCTL_CLIENT_ID: undefined, XCTL_CLIENT_SECRET: undefined, XCTL_BASE_URL: undefined });
      const cli = spawnCli(xctl`sandbox start --json --configure --no-log`, env);
      const started = Date.now();
      while (!fs.existsSync(path.join(env.XCTL_CONFIG_DIR!, 'config.json')) && Date.now() - started < 10_000)
        await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 100));
      cli.child.kill('SIGINT');
      const r = await cli.done;
      const line = json(r.stdout.trim().split('\n')[0]!);
      expect(line.client_id).toMatch(/^[A-Za-z0-9]{34}$/);
      expect(line.client_secret).toMatch(/^[A-Za-z0-9]{50}$/);
      // without --profile, --configure writes profile "sandbox" (never the default one)
      const store = JSON.parse(fs.readFileSync(path.join(env.XCTL_CONFIG_DIR!, 'config.json'), 'utf8')) as {
        profiles: Record<string, Record<string, string>>;
      };
      expect(Object.keys(store.profiles)).toEqual(['sandbox']);
      expect(store.profiles.sandbox).toMatchObject({ client_id: line.client_id, client_secret: line.client_secret });
    });
  });

  describe('secrets', () => {
    it('no output of any command above holds a token, a refresh token, a code or the client secret', () => {
      expect(outputs.length).toBeGreaterThan(20);
      expect(secrets.size).toBeGreaterThan(10);
      for (const o of outputs)
        for (const s of secrets) expect(o.text.includes(s), `${o.args.join(' ')} printed a secret`).toBe(false);
    });

    it('--verbose traces redact the Authorization header, the code, the verifier and the tokens', async () => {
      const env = freshEnv();
      const args = xctl`auth login --oauth2 --no-browser --callback-port 0 --scopes ${SCOPES} --verbose`;
      const cli = spawnCli(args, env);
      const [, url] = await cli.waitStderr(OAUTH2_AUTHORIZE_URL);
      const page = await decideOnOAuth2Page(url!, 'allow');
      const code = new URL(page.location!).searchParams.get('code')!;
      await fetch(page.location!);
      const r = await cli.done;
      expect(r.code, r.stderr).toBe(0);
      const p = profile(env);
      expect(r.stderr).toMatch(/> POST .*\/2\/oauth2\/token/);
      expect(r.stderr).toContain('code=[redacted]');
      expect(r.stderr).toContain('code_verifier=[redacted]');
      for (const s of [code, p.oauth2_access_token!, p.oauth2_refresh_token!, t.sb.seed.client_secret])
        expect(r.stderr).not.toContain(s);
      await t.admin('POST', '/_sandbox/clock', { advance: '121m' });
      const v = await run(xctl`request /2/users/me --auth oauth2 --verbose`, env);
      expect(v.code, v.stderr).toBe(0);
      expect(v.stderr).toMatch(/refresh_token=\[redacted\]/);
      const now = profile(env);
      for (const s of [
        p.oauth2_access_token!,
        p.oauth2_refresh_token!,
        now.oauth2_access_token!,
        now.oauth2_refresh_token!,
        t.sb.seed.client_secret,
      ])
        expect(v.stderr).not.toContain(s);
    });
  });
});

// ---- sandbox-oauth2 ----
// The sandbox's OAuth 2.0 user context (docs/contract.md, notes-2 sections 1 and 2) checked with plain
// HTTP: the consent page, the token endpoint's every rule and error body, rotation, expiry on the
// manual clock, revoke, /2/users/me, scope enforcement and OAuth 1.0a permissions over scopes.
describe('sandbox-oauth2', () => {
  let t: TestSandbox;
  let base: string;
  let clientId: string;
  let secret: string;
  let publicId: string;
  const REDIRECT = 'http://127.0.0.1:9/callback';

  beforeAll(async () => {
    t = await startTestSandbox({ clock: 'manual' });
    ({ base_url: base, client_id: clientId, client_secret: secret, public_client_id: publicId } = t.sb.seed);
  });
  afterAll(() => t.close());

  interface Ans {
    status: number;
    body: Record<string, unknown>;
    text: string;
    type: string;
    location?: string;
  }

  async function ans(res: Response): Promise<Ans> {
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    let body: Record<string, unknown> = {};
    if (type.includes('json')) body = JSON.parse(text);
    return { status: res.status, body, text, type, location: res.headers.get('location') ?? undefined };
  }

  function authorizeQuery(o: Record<string, string | undefined>): string {
    const q = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'tweet.read users.read offline.access',
      state: 'st-1',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'S256',
      ...o,
    };
    return Object.entries(q)
      .filter((e): e is [string, string] => e[1] !== undefined)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('&');
  }

  /** Reads the consent page like a browser and submits its form with a decision. */
  async function consent(query: string, decision: 'allow' | 'deny', screenName = 'sandbox_alice'): Promise<Ans> {
    const r = await decideOnOAuth2Page(`${base}/i/oauth2/authorize?${query}`, decision, screenName);
    return { status: r.status, body: {}, text: r.html, type: '', location: r.location };
  }

  /** A form POSTed to /2/oauth2/{token,revoke}, as the confidential client unless `auth` says otherwise. */
  const oauth2Form =
    (endpoint: 'token' | 'revoke') =>
    async (form: Record<string, string>, auth: string | null = clientBasic(clientId, secret)): Promise<Ans> =>
      ans(
        await fetch(`${base}/2/oauth2/${endpoint}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
          body: new URLSearchParams(form),
        }),
      );
  const token = oauth2Form('token');
  const revoke = oauth2Form('revoke');

  const bearer = (tok: string, path: string, init: RequestInit = {}) =>
    fetch(base + path, {
      ...init,
      headers: { authorization: `Bearer ${tok}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    }).then(ans);

  /** A code for `scope` through the consent page, with a fresh S256 verifier. */
  async function codeFor(
    scope: string,
    o: { method?: string; client?: string; user?: string } = {},
  ): Promise<{ code: string; verifier: string }> {
    const verifier = newVerifier();
    const method = o.method ?? 'S256';
    const challenge = method.toLowerCase() === 'plain' ? verifier : codeChallenge(verifier);
    const r = await consent(
      authorizeQuery({
        scope,
        code_challenge: challenge,
        code_challenge_method: method,
        client_id: o.client ?? clientId,
      }),
      'allow',
      o.user,
    );
    expect(r.status, r.text).toBe(302);
    const u = new URL(r.location!);
    expect(u.searchParams.get('state')).toBe('st-1');
    return { code: u.searchParams.get('code')!, verifier };
  }

  async function login(scope = 'tweet.read users.read offline.access', user?: string): Promise<Record<string, string>> {
    const { code, verifier } = await codeFor(scope, { user });
    const r = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(r.status, r.text).toBe(200);
    return r.body as Record<string, string>;
  }

  const TOKEN_ERR = (d: string) => ({ error: 'invalid_request', error_description: d });

  describe('consent page', () => {
    it('shows the app and the scopes asked, with the request in hidden inputs', async () => {
      const r = await ans(await fetch(`${base}/i/oauth2/authorize?${authorizeQuery({ scope: 'tweet.read dm.read' })}`));
      expect(r.status).toBe(200);
      expect(r.type).toContain('text/html');
      expect(r.text).toContain('id="app-name"');
      expect([...r.text.matchAll(/data-scope="([^"]+)"/g)].map((m) => m[1])).toEqual(['tweet.read', 'dm.read']);
      expect(r.text).toContain(`name="client_id" value="${clientId}"`);
      expect(r.text).toContain('name="state" value="st-1"');
      expect(r.text).toMatch(/id="allow"[^>]*name="decision" value="allow"/);
      expect(r.text).toMatch(/id="deny"[^>]*name="decision" value="deny"/);
    });

    it('redirects with code and state on Allow, error=access_denied on Deny', async () => {
      const allow = await consent(authorizeQuery({}), 'allow');
      expect(allow.status).toBe(302);
      const u = new URL(allow.location!);
      expect(u.origin + u.pathname).toBe(REDIRECT);
      expect(u.searchParams.get('state')).toBe('st-1');
      expect(u.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      const deny = await consent(authorizeQuery({ state: 'st-2' }), 'deny');
      expect(deny.status).toBe(302);
      const d = new URL(deny.location!);
      expect([d.searchParams.get('error'), d.searchParams.get('state'), d.searchParams.has('code')]).toEqual([
        'access_denied',
        'st-2',
        false,
      ]);
    });

    it('answers an unknown client or an unregistered redirect_uri with a plain 400, never a redirect', async () => {
      for (const q of [
        authorizeQuery({ client_id: 'nope' }),
        authorizeQuery({ redirect_uri: 'https://evil.example/cb' }),
      ]) {
        const r = await ans(await fetch(`${base}/i/oauth2/authorize?${q}`, { redirect: 'manual' }));
        expect(r.status).toBe(400);
        expect(r.type).toContain('text/plain');
        expect(r.location).toBeUndefined();
      }
    });

    it('redirects the other request errors back with state', async () => {
      const cases: Array<[Record<string, string | undefined>, string]> = [
        [{ scope: 'tweet.read follow.read' }, 'invalid_scope'],
        [{ scope: undefined }, 'invalid_request'],
        [{ code_challenge: undefined }, 'invalid_request'],
        [{ code_challenge_method: 'S512' }, 'invalid_request'],
        [{ response_type: 'token' }, 'unsupported_response_type'],
      ];
      for (const [o, error] of cases) {
        const r = await ans(await fetch(`${base}/i/oauth2/authorize?${authorizeQuery(o)}`, { redirect: 'manual' }));
        expect(r.status, JSON.stringify(o)).toBe(302);
        const u = new URL(r.location!);
        expect([u.searchParams.get('error'), u.searchParams.get('state')]).toEqual([error, 'st-1']);
      }
    });
  });

  describe('token endpoint', () => {
    it('exchanges a code for the documented body (confidential client, S256)', async () => {
      const b = await login();
      expect(Object.keys(b).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
      expect(b.token_type).toBe('bearer');
      expect(b.expires_in).toBe(7200);
      expect(b.scope).toBe('tweet.read users.read offline.access');
    });

    it('issues no refresh token without offline.access', async () => {
      const b = await login('tweet.read users.read');
      expect(b.refresh_token).toBeUndefined();
    });

    it('accepts plain and lowercase s256 challenges, and public clients with client_id in the body', async () => {
      for (const method of ['plain', 's256']) {
        const { code, verifier } = await codeFor('tweet.read', { method });
        expect(
          (await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }))
            .status,
        ).toBe(200);
      }
      const { code, verifier } = await codeFor('tweet.read', { client: publicId });
      const pub = await token(
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          client_id: publicId,
        },
        null,
      );
      expect(pub.status, pub.text).toBe(200);
    });

    it("answers each bad request with the platform's body", async () => {
      const { code, verifier } = await codeFor('tweet.read');
      const base = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
      for (const k of ['code', 'redirect_uri', 'code_verifier', 'grant_type']) {
        const f = { ...base } as Record<string, string>;
        delete f[k];
        const r = await token(f);
        expect([r.status, r.body], k).toEqual([400, TOKEN_ERR(`Missing required parameter [${k}].`)]);
      }
      expect((await token({ ...base, grant_type: 'client_credentials' })).body.error).toBe('unsupported_grant_type');
      // Confidential client without its header, with a wrong secret, or posting the secret: 401.
      const noAuth = await token({ ...base, client_id: clientId }, null);
      expect([noAuth.status, noAuth.body]).toEqual([
        401,
        { error: 'unauthorized_client', error_description: 'Missing valid authorization header' },
      ]);
      expect((await token(base, clientBasic(clientId, 'wrong'))).status).toBe(401);
      expect((await token({ ...base, client_id: clientId, client_secret: secret }, null)).status).toBe(401);
      // The code is still good after those (none reached it); a wrong verifier spends it.
      const wrongVerifier = await token({ ...base, code_verifier: newVerifier() });
      expect([wrongVerifier.status, wrongVerifier.body]).toEqual([
        400,
        TOKEN_ERR('Value passed for the code verifier did not match the code challenge.'),
      ]);
      expect((await token(base)).body).toEqual(TOKEN_ERR('Value passed for the authorization code was invalid.'));
    });

    it('refuses a reused, expired, other-client or wrong-redirect code', async () => {
      const a = await codeFor('tweet.read');
      const ok = { grant_type: 'authorization_code', code: a.code, redirect_uri: REDIRECT, code_verifier: a.verifier };
      expect((await token(ok)).status).toBe(200);
      expect((await token(ok)).body).toEqual(TOKEN_ERR('Value passed for the authorization code was invalid.'));

      const b = await codeFor('tweet.read');
      await t.admin('POST', '/_sandbox/clock', { advance: '31s' });
      expect((await token({ ...ok, code: b.code, code_verifier: b.verifier })).body).toEqual(
        TOKEN_ERR('Value passed for the authorization code was invalid.'),
      );

      const c = await codeFor('tweet.read', { client: publicId });
      expect((await token({ ...ok, code: c.code, code_verifier: c.verifier })).body).toEqual(
        TOKEN_ERR('Value passed for the authorization code was invalid.'),
      );

      const d = await codeFor('tweet.read');
      expect(
        (await token({ ...ok, code: d.code, code_verifier: d.verifier, redirect_uri: 'http://127.0.0.1:10/callback' }))
          .body,
      ).toEqual(TOKEN_ERR('Value passed for the redirect uri did not match the uri of the authorization code.'));
    });

    it('rotates refresh tokens: the new pair works, the old refresh token and the old access token do not', async () => {
      const first = await login();
      const r1 = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token! });
      expect(r1.status, r1.text).toBe(200);
      expect(r1.body.refresh_token).not.toBe(first.refresh_token);
      expect(r1.body.access_token).not.toBe(first.access_token);
      expect(r1.body.scope).toBe(first.scope);
      expect((await bearer(r1.body.access_token as string, '/2/users/me')).status).toBe(200);
      const again = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token! });
      expect([again.status, again.body]).toEqual([400, TOKEN_ERR('Value passed for the token was invalid.')]);
      const old = await bearer(first.access_token!, '/2/users/me');
      expect([old.status, old.body]).toEqual([
        401,
        { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' },
      ]);
      expect(old.type).toContain('application/problem+json');
      expect(
        (await token({ grant_type: 'refresh_token', refresh_token: r1.body.refresh_token as string })).status,
      ).toBe(200);
      expect((await token({ grant_type: 'refresh_token' })).body).toEqual(
        TOKEN_ERR('Missing required parameter [refresh_token].'),
      );
    });

    it('expires access tokens after 2 hours on the sandbox clock; refresh still works', async () => {
      const b = await login();
      await t.admin('POST', '/_sandbox/clock', { advance: '119m' });
      expect((await bearer(b.access_token!, '/2/users/me')).status).toBe(200);
      await t.admin('POST', '/_sandbox/clock', { advance: '2m' });
      expect((await bearer(b.access_token!, '/2/users/me')).status).toBe(401);
      const r = await token({ grant_type: 'refresh_token', refresh_token: b.refresh_token! });
      expect((await bearer(r.body.access_token as string, '/2/users/me')).status).toBe(200);
    });
  });

  describe('revoke', () => {
    it('kills only the named token, needs token_type_hint, and answers revoked for unknown tokens', async () => {
      const b = await login();
      expect((await revoke({ token: b.access_token! })).body).toEqual(
        TOKEN_ERR('Missing required parameter [token_type_hint].'),
      );
      expect((await revoke({ token_type_hint: 'access_token' })).body).toEqual(
        TOKEN_ERR('Missing required parameter [token].'),
      );
      expect((await revoke({ token: b.access_token!, token_type_hint: 'access_token' }, null)).status).toBe(401);
      const r = await revoke({ token: b.access_token!, token_type_hint: 'access_token' });
      expect([r.status, r.body]).toEqual([200, { revoked: true }]);
      expect((await bearer(b.access_token!, '/2/users/me')).status).toBe(401);
      // The refresh token of the pair lives on until revoked itself.
      const fresh = await token({ grant_type: 'refresh_token', refresh_token: b.refresh_token! });
      expect(fresh.status).toBe(200);
      await revoke({ token: fresh.body.refresh_token as string, token_type_hint: 'refresh_token' });
      expect(
        (await token({ grant_type: 'refresh_token', refresh_token: fresh.body.refresh_token as string })).status,
      ).toBe(400);
      expect((await revoke({ token: 'never-issued', token_type_hint: 'access_token' })).body).toEqual({
        revoked: true,
      });
    });
  });

  describe('user tokens on v2 endpoints', () => {
    const FORBIDDEN = { title: 'Forbidden', type: 'about:blank', status: 403, detail: 'Forbidden' };

    it("GET /2/users/me: the token's user with tweet.read and users.read; users.read alone is 403", async () => {
      const b = await login('tweet.read users.read', 'sandbox_bob');
      const me = await bearer(b.access_token!, '/2/users/me');
      expect(me.body).toEqual({ data: { id: '6253282', name: 'Bob Sandbox', username: 'sandbox_bob' } });
      const narrow = await login('users.read');
      const r = await bearer(narrow.access_token!, '/2/users/me');
      expect([r.status, r.body]).toEqual([403, FORBIDDEN]);
    });

    it('endpoints without OAuth 2.0 user context answer unsupported-authentication naming the allowed kinds', async () => {
      const b = await login();
      const r = await bearer(b.access_token!, '/2/webhooks');
      expect(r.status).toBe(403);
      expect(r.body.title).toBe('Unsupported Authentication');
      expect(r.body.detail).toBe(
        'Authenticating with OAuth 2.0 User Context is forbidden for this endpoint.  Supported authentication types are [OAuth 2.0 Application-Only].',
      );
      const bearerToken = (await fetch(`${base}/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: 'Basic ' + Buffer.from(`${t.sb.seed.api_key}:${t.sb.seed.api_secret}`).toString('base64'),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      }).then((x) => x.json())) as { access_token: string };
      const app = await bearer(bearerToken.access_token, '/2/users/me');
      expect(app.status).toBe(403);
      expect(app.body.detail).toContain(
        'Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].',
      );
    });

    it('activity subscriptions: each event type needs its scope', async () => {
      const b = await login('tweet.read users.read');
      const sub = (tok: string, event_type: string) =>
        bearer(tok, '/2/activity/subscriptions', {
          method: 'POST',
          body: JSON.stringify({ event_type, filter: { user_id: '783214' } }),
        });
      expect((await sub(b.access_token!, 'profile.update.bio')).status).toBe(200);
      const dm = await sub(b.access_token!, 'dm.received');
      expect([dm.status, dm.body]).toEqual([403, FORBIDDEN]);
      const withDm = await login('dm.read tweet.read');
      expect((await sub(withDm.access_token!, 'dm.received')).status).toBe(200);
      // Listing needs tweet.read and like.read (OpenAPI security of GET /2/activity/subscriptions).
      expect((await bearer(b.access_token!, '/2/activity/subscriptions')).status).toBe(403);
      expect(
        (await bearer((await login('tweet.read like.read')).access_token!, '/2/activity/subscriptions')).status,
      ).toBe(200);
    });

    it('OAuth 1.0a permissions override scopes: DM events need a direct-message token', async () => {
      const s = t.sb.seed;
      const keys = { consumerKey: s.api_key, consumerSecret: s.api_secret };
      const body = (event_type: string) => JSON.stringify({ event_type, filter: { user_id: '783214' } });
      const post = async (level: 'read' | 'read-write' | 'read-write-directmessages', event: string) => {
        const tok = t.sb.app.state.issueUserToken(s.api_key, '783214', level);
        const url = `${base}/2/activity/subscriptions`;
        const { oauth1Header } = await import('../../src/core/oauth1.js');
        const authorization = oauth1Header(
          { ...keys, token: tok.token, tokenSecret: tok.secret },
          { method: 'POST', url },
        );
        return ans(
          await fetch(url, {
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json' },
            body: body(event),
          }),
        );
      };
      const rw = await post('read-write', 'dm.received');
      expect(rw.status).toBe(403);
      expect(rw.body).toEqual({
        title: 'Forbidden',
        status: 403,
        detail: 'Your client app is not configured with the appropriate oauth1 app permissions for this endpoint.',
        type: 'https://api.x.com/2/problems/oauth1-permissions',
      });
      expect((await post('read-write-directmessages', 'dm.received')).status).toBe(200);
      expect((await post('read-write', 'profile.update.bio')).status).toBe(200);
      // Signed requests still count: the seeded owner's token (DM level) works as before.
      const owner = await signedFetch(
        { ...keys, token: s.access_token, tokenSecret: s.access_token_secret },
        'GET',
        `${base}/2/users/me`,
      );
      expect(owner.data).toEqual({ data: { id: s.user_id, name: 'xctl Developer', username: s.screen_name } });
    });
  });
});

// ---- bearer-cache ----
describe('bearer-cache', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ tokenRequestsPerMinute: 1 });
  });
  afterAll(() => t.close());

  it('a bearer obtained with keys from the environment is cached, so a CI job asks once', async () => {
    // The sandbox allows one /oauth2/token per minute here: a second request would be 403 code 99.
    const first = await t.run(xctl`webhooks list`);
    expect(first.code, first.stderr).toBe(0);
    const store = JSON.parse(fs.readFileSync(path.join(t.configDir, 'config.json'), 'utf8'));
    expect(store.profiles.default.bearer_key).toBe(t.sb.seed.api_key);
    for (let i = 0; i < 2; i++) {
      const r = await t.run(xctl`webhooks list`);
      expect(r.code, r.stderr).toBe(0);
    }
    // another key in the environment does not reuse this app's bearer
    const other = await t.run(xctl`auth token --type app`, {
      env: { XCTL_API_KEY: 'another-key', XCTL_API_SECRET: 'another-secret' },
    });
    expect(other.code).toBe(3);
  });
});

// ---- profile-safety ----
// Issue 20, what used to lose or misplace credentials: `sandbox start --configure` over real
// credentials (item 1), a bad XCTL_BEARER_TOKEN dropping the cached bearer (item 2), a mistyped
// --profile silently acting on a new empty profile (item 8).
describe('profile-safety', () => {
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
    const real = { access_token: '1-real-token', access_token_secret: 'real-token-secret' };
    writeProfiles(dir, { default: { api_key: 'REALKEY123', api_secret: 'real-secret', ...real } });
  }

  describe('sandbox start --configure (issue 20 item 1)', () => {
    it('without --profile writes profile "sandbox", leaves the default alone, and says how to use it', async () => {
      const dir = fresh();
      await realDefault(dir);
      const sb = spawnCliReceiver(xctl`sandbox start --configure --no-log`, { XCTL_CONFIG_DIR: dir });
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
        const me = await runCli(xctl`request /1.1/account/verify_credentials.json`, {
          env: { XCTL_CONFIG_DIR: dir, XCTL_PROFILE: 'sandbox' },
        });
        expect(me.code, me.stderr).toBe(0);
        expect(JSON.parse(me.stdout).screen_name).toBe('xctl_dev');
      } finally {
        expect(await sb.stop()).toBe(0);
      }
      // a second sandbox (new port, new keys) replaces the sandbox profile without asking
      const again = spawnCliReceiver(xctl`sandbox start --configure --no-log --json`, {
        XCTL_CONFIG_DIR: dir,
      });
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
          ? xctl`sandbox start --configure`
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
      const forced = spawnCliReceiver(
        ['--profile', 'default', 'sandbox', 'start', '--configure', '--overwrite', '--no-log'],
        {
          XCTL_CONFIG_DIR: dir,
        },
      );
      await forced.waitStdout(/Ctrl-C stops it/);
      try {
        expect(forced.stdout()).toContain('credentials stored in profile "default" (the default profile)');
        expect(store(dir).profiles!.default!.base_url).toMatch(/^http:\/\/127\.0\.0\.1:/);
      } finally {
        expect(await forced.stop()).toBe(0);
      }
      expect((await runCli(xctl`sandbox start --overwrite`, { env: { XCTL_CONFIG_DIR: dir } })).code).toBe(2);
    });
  });

  describe('a rejected XCTL_BEARER_TOKEN (issue 20 item 2)', () => {
    it('says the variable is wrong and keeps the cached bearer', async () => {
      const dir = fresh();
      const env = { XCTL_CONFIG_DIR: dir };
      const cached = await t.run(xctl`auth app-token`, { env });
      expect(cached.code, cached.stderr).toBe(0);
      const bearer = store(dir).profiles!.default!.bearer_token;
      expect(bearer).toBeTruthy();
      const bad = await t.run(xctl`request /1.1/application/rate_limit_status.json --auth app`, {
        env: { ...env, XCTL_BEARER_TOKEN: 'AAAAnot-a-valid-bearer' },
      });
      expect(bad.code).toBe(3);
      expect(bad.stderr).toMatch(/code 89/);
      expect(bad.stderr).toMatch(/hint: XCTL_BEARER_TOKEN is not a valid bearer token.*unset it/);
      expect(bad.stderr).not.toMatch(/dropped/);
      expect(store(dir).profiles!.default!.bearer_token).toBe(bearer);
      // and the cached one still works once the variable is gone
      const good = await t.run(xctl`request /1.1/application/rate_limit_status.json --auth app`, { env });
      expect(good.code, good.stderr).toBe(0);
    });

    it('a cached bearer the service refuses is dropped, and the next run obtains a new one', async () => {
      const dir = fresh();
      const env = { XCTL_CONFIG_DIR: dir };
      await t.admin('POST', '/_sandbox/clock', { advance: '61s' }); // the token endpoint's per-app limit
      const r = await t.run(xctl`auth set --bearer-token -`, { env, input: 'AAAAcached-but-revoked\n' });
      expect(r.code, r.stderr).toBe(0);
      const bad = await t.run(xctl`request /1.1/application/rate_limit_status.json --auth app`, { env });
      expect(bad.code).toBe(3);
      expect(bad.stderr).toMatch(/hint: the cached bearer token of profile "default" was rejected .* dropped/);
      expect(store(dir).profiles!.default!.bearer_token).toBeUndefined();
      const next = await t.run(xctl`request /1.1/application/rate_limit_status.json --auth app`, { env });
      expect(next.code, next.stderr).toBe(0);
      expect(store(dir).profiles!.default!.bearer_token).toMatch(/^AAAA/);
    });
  });
});

// ---- lock-race ----
// The store's lock between real processes (issue 25 item 3): several processes finding one stale
// lock never hold it together, and parallel writers never lose an update. Runs the built modules
// (dist/) in separate node processes started together.
describe('lock-race', () => {
  const dir = tempDir('xctl-lockrace-');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const DIST = path.join(ROOT, 'dist/core');

  /** Runs `code` (an ES module body) in `n` node processes that all start at the same instant. */
  async function together(n: number, code: string, args: (i: number) => string[]): Promise<void> {
    const go = Date.now() + 400;
    const body = `const go = ${go}; while (Date.now() < go); ${code}`;
    const runs = Array.from(
      { length: n },
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', body, ...args(i)], {
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let err = '';
          child.stderr.on('data', (d) => (err += d));
          child.on('error', reject);
          child.on('close', (c) => (c === 0 ? resolve() : reject(new Error(`child ${i} exited ${c}: ${err}`))));
        }),
    );
    await Promise.all(runs);
  }

  const DEAD = JSON.stringify({ pid: 4_194_999, at: Date.now() - 1000 });

  describe('one stale lock, five processes', () => {
    it('gives the lock to one process at a time in every round', async () => {
      const lock = path.join(dir, 'config.json.lock');
      const log = path.join(dir, 'holders.log');
      const code = `
        import fs from 'node:fs';
        const { withFileLockSync } = await import(${JSON.stringify(path.join(DIST, 'file-lock.js'))});
        const [lock, log] = process.argv.slice(1);
        withFileLockSync(lock, () => {
          fs.appendFileSync(log, '+' + process.pid + '\\n');
          const until = Date.now() + 15; while (Date.now() < until);
          fs.appendFileSync(log, '-' + process.pid + '\\n');
        }, { timeoutMs: 20000 });`;
      for (let round = 0; round < 4; round++) {
        fs.writeFileSync(lock, DEAD);
        fs.writeFileSync(log, '');
        await together(5, code, () => [lock, log]);
        const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
        expect(lines).toHaveLength(10);
        for (let i = 0; i < lines.length; i += 2) {
          expect(lines[i], `round ${round}: ${lines.join(' ')}`).toMatch(/^\+\d+$/);
          expect(lines[i + 1], `round ${round}: ${lines.join(' ')}`).toBe(`-${lines[i]!.slice(1)}`);
        }
        expect(fs.existsSync(lock)).toBe(false);
        expect(fs.readdirSync(dir).filter((f) => f.includes('takeover') || f.endsWith('.new'))).toEqual([]);
      }
    }, 60_000);
  });

  describe('parallel writers of the profile store', () => {
    it('keep every update, starting from a lock a crashed writer left behind', async () => {
      const cfg = path.join(dir, 'store');
      fs.mkdirSync(cfg, { mode: 0o700 });
      fs.writeFileSync(path.join(cfg, 'config.json.lock'), DEAD);
      const code = `
        const { Store } = await import(${JSON.stringify(path.join(DIST, 'config.js'))});
        const [cfg, i] = process.argv.slice(1);
        const store = await Store.open({ XCTL_CONFIG_DIR: cfg });
        for (let k = 0; k < 5; k++) store.updateProfile('p' + i, { ['api_key']: 'key-' + i + '-' + k, account_id: 'a' + k });`;
      await together(12, code, (i) => [cfg, String(i)]);
      const profiles = (
        JSON.parse(fs.readFileSync(path.join(cfg, 'config.json'), 'utf8')) as {
          profiles: Record<string, { api_key: string }>;
        }
      ).profiles;
      expect(Object.keys(profiles).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `p${i}`).sort());
      for (let i = 0; i < 12; i++) expect(profiles[`p${i}`]!.api_key).toBe(`key-${i}-4`);
    }, 60_000);
  });
});
