// Secrets in the OS keychain, for real: a private D-Bus session with Debian's gnome-keyring
// (test/helpers/keyring.ts) and the real CLI. A profile round-trips with no secret in the file,
// the file is the fallback without a keychain (no prompt, no delay), migration is all or nothing
// even when killed, the OAuth 2.0 refresh stays exactly-once across processes, a locked keychain
// is a clear message, and --version/--help never load the native module.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, startTestSandbox, tempDir, type RunResult, type TestSandbox } from '../helpers/cli.js';
import { secretServiceMissing, startSecretService, xctlAccounts, type SecretService } from '../helpers/keyring.js';
import { OAUTH2_AUTHORIZE_URL, spawnCli } from '../helpers/live-cli.js';
import { decideOnOAuth2Page } from '../helpers/oauth-client.js';

const missing = secretServiceMissing();
const SECRET = 'keyring-test-api-secret-0123456789';
const dirs: string[] = [];
let ss: SecretService | undefined;
let t: TestSandbox;
const log: string[] = [];

beforeAll(async () => {
  t = await startTestSandbox({ clock: 'manual', log: (l: string) => log.push(l) });
  if (!missing) ss = await startSecretService();
}, 30_000);
afterAll(async () => {
  await ss?.stop();
  await t.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A clean environment (no XCTL_* credentials, no D-Bus unless given), a fresh store. */
function envWith(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const dir = tempDir();
  dirs.push(dir);
  return {
    XCTL_CONFIG_DIR: dir,
    XCTL_BASE_URL: t.sb.baseUrl,
    DBUS_SESSION_BUS_ADDRESS: undefined,
    ...extra,
  };
}

function storeText(env: Record<string, string | undefined>): string {
  return fs.readFileSync(path.join(env.XCTL_CONFIG_DIR!, 'config.json'), 'utf8');
}

function crcOf(secret: string, token: string): string {
  return JSON.stringify({
    response_token: 'sha256=' + crypto.createHmac('sha256', secret).update(token).digest('base64'),
  });
}

async function status(env: Record<string, string | undefined>): Promise<Record<string, unknown>> {
  const r = await runCli(['auth', 'status', '-o', 'json'], { env });
  return (JSON.parse(r.stdout) as Array<Record<string, unknown>>)[0]!;
}

const setSecret = (env: Record<string, string | undefined>, secret = SECRET): Promise<RunResult> =>
  runCli(['auth', 'set', '--api-key', 'keyring-test-key', '--api-secret', '-'], {
    env,
    input: secret + '\n',
  });

describe('without a keychain (headless CI)', () => {
  it('keeps secrets in the 0600 file at once, says so, and never prompts', async () => {
    const env = envWith();
    const started = Date.now();
    const r = await setSecret(env);
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(storeText(env)).toContain(SECRET);
    expect(await status(env)).toMatchObject({ secrets: 'file' });
    const s = await runCli(['auth', 'status'], { env });
    expect(s.stderr).toMatch(/secrets: new secrets go to the 0600 file; no OS keychain\n {2}\(no D-Bus session bus/);
    expect(s.stdout + s.stderr).not.toContain(SECRET);
  });

  it('XCTL_SECRET_STORAGE=keyring without a keychain is an error naming the fallback; nothing is written', async () => {
    const env = envWith({ XCTL_SECRET_STORAGE: 'keyring' });
    const r = await setSecret(env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/secret_storage is keyring but the OS keychain cannot be used/);
    expect(r.stderr).toMatch(/XCTL_SECRET_STORAGE=file/);
    expect(fs.existsSync(path.join(env.XCTL_CONFIG_DIR!, 'config.json')) ? storeText(env) : '').not.toContain(SECRET);
  });

  it('--version and --help do not load the native keychain module', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const hook = path.join(dir, 'hook.cjs');
    const seen = path.join(dir, 'seen.txt');
    fs.writeFileSync(
      hook,
      `const M=require('module');const o=M._load;M._load=function(r,...a){if(/keyring/.test(r))require('fs').appendFileSync(${JSON.stringify(seen)},r+'\\n');return o.call(this,r,...a)};`,
    );
    for (const args of [['--version'], ['--help'], ['auth', '--help'], ['auth', 'status']]) {
      const r = await runCli(args, { env: { ...envWith(), NODE_OPTIONS: `--require ${hook}` } });
      expect([0, 1], args.join(' ')).toContain(r.code);
    }
    expect(fs.existsSync(seen) ? fs.readFileSync(seen, 'utf8') : '').toBe('');
  });
});

describe.skipIf(!!missing)('with a Secret Service (gnome-keyring on a private D-Bus)', () => {
  const kenv = (extra: Record<string, string | undefined> = {}) => envWith({ ...ss!.env, ...extra });

  it('a profile round-trips through the keychain and the file holds no secret', async () => {
    const env = kenv();
    expect((await setSecret(env)).code).toBe(0);
    const text = storeText(env);
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text).profiles.default).toEqual({
      api_key: 'keyring-test-key',
      secrets_in: 'keyring',
    });
    expect(await status(env)).toMatchObject({ secrets: 'keyring', api_secret: 'set' });
    const crc = await runCli(['webhooks', 'crc', 'abc-123'], { env });
    expect(crc.stdout.trim()).toBe(crcOf(SECRET, 'abc-123'));
    // -v traces and every output: the secret never appears.
    const v = await runCli(['-v', 'webhooks', 'crc', 'abc-123'], { env });
    expect(v.stdout + v.stderr).not.toContain(SECRET);
    // Replaced in place; a new field joins the same entry.
    expect((await setSecret(env, 'second-secret-value-xyz')).code).toBe(0);
    expect((await runCli(['webhooks', 'crc', 'abc-123'], { env })).stdout.trim()).toBe(
      crcOf('second-secret-value-xyz', 'abc-123'),
    );
    expect(storeText(env)).not.toContain('second-secret-value-xyz');
    // Removing the profile removes its keychain entry.
    const account = `default@${path.join(env.XCTL_CONFIG_DIR!, 'config.json')}`;
    expect(xctlAccounts(ss!.env)).toContain(account);
    const rm = await runCli(['auth', 'profiles', 'remove', 'default', '--yes'], { env });
    expect(rm.code).toBe(0);
    expect(xctlAccounts(ss!.env)).not.toContain(account);
  });

  it('XCTL_SECRET_STORAGE=file and `config set secret_storage file` choose the file', async () => {
    const env = kenv({ XCTL_SECRET_STORAGE: 'file' });
    expect((await setSecret(env)).code).toBe(0);
    expect(storeText(env)).toContain(SECRET);
    const env2 = kenv();
    expect((await runCli(['config', 'set', 'secret_storage', 'file'], { env: env2 })).code).toBe(0);
    expect((await setSecret(env2)).code).toBe(0);
    expect(storeText(env2)).toContain(SECRET);
    expect(await status(env2)).toMatchObject({ secrets: 'file' });
  });

  it('the sandbox configures its profile in the keychain; the bearer is cached there', async () => {
    const env = kenv();
    const sb = spawn(process.execPath, [BIN, 'sandbox', 'start', '--configure', '--port', '0'], {
      env: { ...cleanEnv(), ...(env as Record<string, string>) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        sb.stdout!.on('data', (d) => {
          out += d;
          if (/Ctrl-C stops it/.test(out)) resolve();
        });
        sb.once('exit', (c) => reject(new Error(`sandbox exited ${c}`)));
      });
      const penv = { ...env, XCTL_BASE_URL: undefined, XCTL_PROFILE: 'sandbox' };
      const p = JSON.parse(storeText(env)).profiles.sandbox as Record<string, string>;
      expect(p.secrets_in).toBe('keyring');
      for (const k of ['api_secret', 'access_token', 'access_token_secret', 'client_secret'])
        expect(p[k], k).toBeUndefined();
      expect((await runCli(['webhooks', 'list'], { env: penv })).code).toBe(0);
      expect(JSON.parse(storeText(env)).profiles.sandbox.bearer_token).toBeUndefined();
      expect(await status(penv)).toMatchObject({ secrets: 'keyring', bearer: 'cached' });
    } finally {
      sb.kill('SIGINT');
    }
  }, 30_000);

  it('auth migrate moves a profile both ways, and a kill at any moment leaves it whole in one place', async () => {
    const env = kenv({ XCTL_SECRET_STORAGE: 'file' });
    expect((await setSecret(env)).code).toBe(0);
    const expected = crcOf(SECRET, 'tok');
    const whole = async () => {
      const text = storeText(env);
      const p = JSON.parse(text).profiles.default as Record<string, string>;
      // Exactly one place holds the secret, and the profile works.
      expect(p.secrets_in === 'keyring', text).toBe(!text.includes(SECRET));
      expect((await runCli(['webhooks', 'crc', 'tok'], { env })).stdout.trim()).toBe(expected);
      return p.secrets_in === 'keyring' ? 'keyring' : 'file';
    };
    let took = 0;
    const migrate = async (to: string) => {
      const t0 = Date.now();
      const m = await runCli(['auth', 'migrate', '--to', to], { env });
      took = Math.max(took, Date.now() - t0);
      expect(m.code, m.stderr).toBe(0);
      return m;
    };
    expect((await migrate('keyring')).stderr).toMatch(/secrets moved to the OS keychain/);
    expect(await whole()).toBe('keyring');
    await migrate('file');
    expect(await whole()).toBe('file');
    // Kills spread over a whole run's duration, in both directions: each leaves one whole place.
    const N = 14;
    const moved = { keyring: 0, file: 0 };
    for (let i = 0; i < N; i++) {
      const to = i % 2 === 0 ? 'keyring' : 'file';
      if ((await whole()) === to) await migrate(to === 'file' ? 'keyring' : 'file');
      const child = spawn(process.execPath, [BIN, 'auth', 'migrate', '--to', to], {
        env: { ...cleanEnv(), ...(env as Record<string, string>) },
        stdio: 'ignore',
      });
      const closed = new Promise((r) => child.once('close', r));
      await new Promise((r) => setTimeout(r, Math.round(took * (0.3 + (0.9 * Math.floor(i / 2)) / (N / 2 - 1)))));
      child.kill('SIGKILL');
      await closed;
      if ((await whole()) === to) moved[to]++;
    }
    // The later kills came after the move, the earlier ones before it finished.
    expect(moved.keyring + moved.file, JSON.stringify(moved)).toBeGreaterThan(0);
    expect(moved.keyring + moved.file, JSON.stringify(moved)).toBeLessThan(N);
  }, 120_000);

  it('the OAuth 2.0 refresh stays exactly-once across two processes with the keychain', async () => {
    const s = t.sb.seed;
    const env = kenv({ XCTL_CLIENT_ID: s.client_id, XCTL_CLIENT_SECRET: s.client_secret });
    // Logged in through the callback (the test is the browser): the pair goes to the keychain.
    const cli = spawnCli(
      [
        'auth',
        'login',
        '--oauth2',
        '--no-browser',
        '--callback-port',
        '0',
        '--scopes',
        'tweet.read users.read offline.access',
      ],
      env,
    );
    const [, url] = await cli.waitStderr(OAUTH2_AUTHORIZE_URL);
    const page = await decideOnOAuth2Page(url!, 'allow', 'sandbox_bob');
    await fetch(page.location!);
    expect((await cli.done).code).toBe(0);
    const stored = JSON.parse(storeText(env)).profiles.default as Record<string, string>;
    expect(stored.secrets_in).toBe('keyring');
    expect(stored.oauth2_access_token).toBeUndefined();
    expect(stored.oauth2_refresh_token).toBeUndefined();
    await t.admin('POST', '/_sandbox/clock', { advance: '121m' });
    // Slow answers make the two processes overlap: both want to refresh; one may.
    await t.admin('POST', '/_sandbox/faults', {
      latency_ms: 600,
      match: '^/2/(users/me|oauth2/token)$',
    });
    const mark = log.length;
    try {
      const me = ['request', '/2/users/me', '--auth', 'oauth2'];
      const [a, b] = await Promise.all([runCli(me, { env }), runCli(me, { env })]);
      expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
      expect(a.stdout + a.stderr + b.stdout + b.stderr).not.toMatch(/refresh_token|access_token/);
    } finally {
      await t.admin('DELETE', '/_sandbox/faults');
    }
    const lines = log.slice(mark).map((l) => l.replace(/ \d+ms$/, ''));
    expect(lines.filter((l) => l.startsWith('POST /2/oauth2/token'))).toEqual(['POST /2/oauth2/token 200']);
    expect(JSON.parse(storeText(env)).profiles.default.oauth2_refresh_token).toBeUndefined();
    expect((await runCli(['request', '/2/users/me', '--auth', 'oauth2'], { env })).code).toBe(0);
  }, 40_000);

  it('a locked keychain is a clear message within the bound, never a hang', async () => {
    const env = kenv();
    expect((await setSecret(env)).code).toBe(0);
    await ss!.lock();
    const started = Date.now();
    const r = await runCli(['webhooks', 'crc', 'abc'], { env, timeoutMs: 15_000 });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/profile "default" keeps its secrets in the OS keychain, which cannot be used now/);
    const st = await runCli(['auth', 'status', '-o', 'json'], { env });
    expect(JSON.parse(st.stdout)[0]).toMatchObject({ secrets: 'keyring (unreachable)' });
  }, 30_000);
});

function cleanEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('XCTL_')) out[k] = v;
  delete out.DBUS_SESSION_BUS_ADDRESS;
  return out;
}

if (missing) {
  describe('Secret Service tests', () => {
    it.skip(`skipped: ${missing}`, () => {});
  });
}
