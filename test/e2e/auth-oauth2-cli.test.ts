// OAuth 2.0 user context through the real CLI against a real sandbox: login (callback and
// --paste), a v2 call, expiry on the manual clock and a silent refresh with rotation, two
// processes refreshing at once, a missing scope named in the hint, logout revoking, and no
// secret in any output.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runCli,
  startTestSandbox,
  tempDir,
  type RunOptions,
  type RunResult,
  type TestSandbox,
} from '../helpers/cli.js';
import { OAUTH2_AUTHORIZE_URL, spawnCli } from '../helpers/live-cli.js';
import { decideOnOAuth2Page } from '../helpers/oauth-client.js';
import { clientBasic } from '../../src/core/oauth2.js';

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
    const me = await run(['request', '/2/users/me', '--auth', 'oauth2'], env);
    expect(me.code, me.stderr).toBe(0);
    expect(json(me.stdout)).toEqual({ data: { id: '6253282', name: 'Bob Sandbox', username: 'sandbox_bob' } });
    const sub = await run(
      [
        'activity',
        'subscriptions',
        'create',
        '--event',
        'dm.received',
        '--user-id',
        '6253282',
        '--auth',
        'oauth2',
        '--json',
      ],
      env,
    );
    expect(sub.code, sub.stderr).toBe(0);

    const st = await run(['auth', 'status', '--json'], env);
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

    const tok = await runCli(['auth', 'token', '--type', 'oauth2'], { env });
    expect(tok.stdout.trim()).toBe(p.oauth2_access_token);
  });

  it('--paste: the redirected URL read back from stdin; a URL of another login is refused', async () => {
    const env = freshEnv();
    const args = ['auth', 'login', '--oauth2', '--paste', '--json', '--scopes', 'tweet.read users.read'];
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

  it('Deny stores nothing and exits 3; bad flags exit 2 before anything is sent', async () => {
    const env = freshEnv();
    const { r, back } = await login(env, { decision: 'deny' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/authorization was denied on the consent page: nothing was stored/);
    expect(back.text).toMatch(/Authorization cancelled/);
    expect(fs.existsSync(path.join(env.XCTL_CONFIG_DIR!, 'config.json'))).toBe(false);

    const before = log.length;
    const cases: Array<[string[], RegExp, Record<string, string | undefined>?]> = [
      [['--scopes', 'tweet.read follow.read'], /unknown scope "follow\.read"/],
      [['--pin'], /--pin belongs to the OAuth 1\.0a login/],
      [['--paste', '--callback-port', '9000'], /exclude each other/],
      [['--callback-port', '70000'], /0 for a free one/],
      [['--client-id', 'a:b'], /--client-id must be printable ASCII without spaces or ':'/],
      [[], /needs the app's OAuth 2\.0 Client ID/, { XCTL_CLIENT_ID: undefined, XCTL_CLIENT_SECRET: undefined }],
    ];
    for (const [extra, re, envPatch] of cases) {
      const r2 = await run(['auth', 'login', '--oauth2', '--no-browser', ...extra], { ...env, ...(envPatch ?? {}) });
      expect([r2.code, extra]).toEqual([2, extra]);
      expect(r2.stderr).toMatch(re);
    }
    const scopesWithoutOAuth2 = await run(['auth', 'login', '--no-browser', '--scopes', 'tweet.read'], env);
    expect(scopesWithoutOAuth2.code).toBe(2);
    expect(scopesWithoutOAuth2.stderr).toMatch(/--scopes goes with --oauth2/);
    expect(log.slice(before).filter((l) => !/^GET \/i\/oauth2\/authorize/.test(l))).toEqual([]);
  }, 30_000);
});

describe('refresh', () => {
  it('expiry on the sandbox clock: a silent refresh with rotation; the old refresh token is refused afterwards', async () => {
    const env = freshEnv();
    expect((await login(env)).r.code).toBe(0);
    const first = profile(env);
    await t.admin('POST', '/_sandbox/clock', { advance: '121m' });
    expect(await meWith(first.oauth2_access_token!)).toBe(401);
    const me = await run(['request', '/2/users/me', '--auth', 'oauth2'], env);
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
    expect((await run(['request', '/2/users/me', '--auth', 'oauth2'], env)).code).toBe(0);
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
        run(['request', '/2/users/me', '--auth', 'oauth2'], env),
        run(['request', '/2/users/me', '--auth', 'oauth2'], env),
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
    const r = await run(['request', '/2/users/me', '--auth', 'oauth2'], env);
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
      ['activity', 'subscriptions', 'create', '--event', 'dm.received', '--user-id', '6253282', '--auth', 'oauth2'],
      env,
    );
    expect(like.code).toBe(3);
    expect(like.stderr).toMatch(/^error: Forbidden \(HTTP 403\)$/m);
    expect(like.stderr).toContain('needs the scope dm.read');
    expect(like.stderr).toContain('--scopes "dm.read offline.access"');
    const list = await run(['activity', 'subscriptions', 'list', '--auth', 'oauth2'], env);
    expect(list.code).toBe(3);
    expect(list.stderr).toContain('needs the scopes tweet.read like.read');
    const raw = await run(['request', '/2/webhooks', '--auth', 'oauth2'], env);
    expect(raw.code).toBe(3);
    expect(raw.stderr).toMatch(/takes OAuth 2\.0 Application-Only: pass --auth app/);
    expect(
      (
        await run(
          [
            'activity',
            'subscriptions',
            'create',
            '--event',
            'profile.update.bio',
            '--user-id',
            '783214',
            '--auth',
            'oauth2',
          ],
          env,
        )
      ).code,
    ).toBe(0);
  });
});

describe('auth set, logout, sandbox', () => {
  it('auth set --client-id --client-secret - stores the client; logout --oauth2 revokes both tokens and forgets them', async () => {
    const env = freshEnv({ XCTL_CLIENT_ID: undefined, XCTL_CLIENT_SECRET: undefined });
    const set = await run(['auth', 'set', '--client-id', t.sb.seed.client_id, '--client-secret', '-'], env, {
      input: t.sb.seed.client_secret + '\n',
    });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toMatch(/saved client_secret, client_id/);
    expect(profile(env)).toMatchObject({ client_id: t.sb.seed.client_id, client_secret: t.sb.seed.client_secret });
    expect((await run(['auth', 'set', '--client-secret', t.sb.seed.client_secret], env)).code).toBe(2);

    expect((await login(env)).r.code).toBe(0);
    const p = profile(env);
    const out = await run(['auth', 'logout', '--oauth2'], env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/revoked the OAuth 2\.0 tokens of @sandbox_bob/);
    expect(await meWith(p.oauth2_access_token!)).toBe(401);
    expect((await refreshDirectly(p.oauth2_refresh_token!)).status).toBe(400);
    const after = profile(env);
    expect(Object.keys(after).filter((k) => k.startsWith('oauth2_'))).toEqual([]);
    expect(after.client_id).toBe(t.sb.seed.client_id);
    const again = await run(['request', '/2/users/me', '--auth', 'oauth2'], env);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/holds no OAuth 2\.0 user token/);
    expect((await run(['auth', 'logout', '--oauth2'], env)).stderr).toMatch(/nothing to log out/);
  });

  it('sandbox start --json gives the OAuth 2.0 client; --configure stores it', async () => {
    const env = freshEnv({ XCTL_CLIENT_ID: undefined, XCTL_CLIENT_SECRET: undefined, XCTL_BASE_URL: undefined });
    const cli = spawnCli(['sandbox', 'start', '--json', '--configure', '--no-log'], env);
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
    const args = ['auth', 'login', '--oauth2', '--no-browser', '--callback-port', '0', '--scopes', SCOPES, '--verbose'];
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
    const v = await run(['request', '/2/users/me', '--auth', 'oauth2', '--verbose'], env);
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
