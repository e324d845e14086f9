// Issue 20 item 19: `auth status --check` asks the service about each credential of the selected
// profile (OAuth 1.0a user token, app-only bearer, OAuth 2.0 user token) and exits 1 on any
// failure. Also item 16: `auth login --oauth2` over a stored token says whose it replaces.
import { describe, expect, it } from 'vitest';
import { useTestSandbox, runCli, tempDir } from '../helpers/cli.js';
import { OAUTH2_AUTHORIZE_URL, spawnCli } from '../helpers/live-cli.js';
import { decideOnOAuth2Page } from '../helpers/oauth-client.js';

const t = useTestSandbox();

/** The sandbox's owner credentials stored in a fresh profile (none from the environment). */
async function storedProfile(): Promise<Record<string, string | undefined>> {
  const dir = tempDir();
  t.dirs.push(dir);
  const s = t.sb.seed;
  const env = { XCTL_CONFIG_DIR: dir, XCTL_BASE_URL: s.base_url, XCTL_RETRY_BASE_MS: '20' };
  const set = await runCli(
    [
      'auth',
      'set',
      '--api-key',
      s.api_key,
      '--api-secret',
      '-',
      '--access-token',
      '-',
      '--access-token-secret',
      '-',
      '--client-id',
      s.client_id,
      '--client-secret',
      '-',
      '--user-id',
      s.user_id,
      '--screen-name',
      s.screen_name,
    ],
    {
      env,
      input: `${s.api_secret}\n${s.access_token}\n${s.access_token_secret}\n${s.client_secret}\n`,
    },
  );
  expect(set.code, set.stderr).toBe(0);
  return env;
}

const check = (env: Record<string, string | undefined>, extra: string[] = []) =>
  runCli(['auth', 'status', '--check', '-o', 'json', ...extra], { env });
/** The --json error object (the last line of stderr). */
const errorOf = (stderr: string) =>
  (JSON.parse(stderr.trim().split('\n').pop()!) as { error: Record<string, unknown> }).error;
const rows = (stdout: string) => JSON.parse(stdout) as Array<{ credential: string; status: string; detail: string }>;

async function loginOAuth2(env: Record<string, string | undefined>, user: string) {
  const cli = spawnCli(['auth', 'login', '--oauth2', '--no-browser', '--callback-port', '0', '--json'], env);
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

    expect((await runCli(['auth', 'app-token'], { env })).code).toBe(0);
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
    const tsv = await runCli(['auth', 'status', '--check'], { env });
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
