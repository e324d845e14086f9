// Secrets (issue 10): every verb family runs with --verbose against the sandbox, including the
// long-running receiver and stream, and stdout, stderr and every file written outside the store
// (--out, --rejects, journals, the receiver's log) are scanned for the secrets in use: the API
// secret, the access token and its secret, the bearer token. The store stays 0600; `auth status`
// masks; only `auth token` prints a secret.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, tempDir, type RunResult, type TestSandbox } from '../helpers/cli.js';
import { appBearer, spawnCli } from '../helpers/receiver.js';

let t: TestSandbox;
let dir: string;
let secrets: string[];
let env: Record<string, string>;
const seen: Array<{ what: string; text: string }> = [];

beforeAll(async () => {
  t = await startTestSandbox();
  dir = tempDir('xctl-secrets-');
  const s = t.sb.seed;
  const bearer = await appBearer(s.base_url, s.api_key, s.api_secret);
  secrets = [s.api_secret, s.access_token, s.access_token_secret, bearer];
  env = { XCTL_BEARER_TOKEN: bearer };
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function v(args: string[], input?: string): Promise<RunResult> {
  const r = await t.run([...args, '--verbose'], { env, ...(input !== undefined ? { input } : {}) });
  seen.push(
    { what: `xctl ${args.join(' ')} (stdout)`, text: r.stdout },
    { what: `xctl ${args.join(' ')} (stderr)`, text: r.stderr },
  );
  return r;
}

function ok(r: RunResult, args = ''): RunResult {
  expect(r.code, `${args}\n${r.stderr}`).toBe(0);
  return r;
}

describe('no secret in any output or file', () => {
  it('every verb family with --verbose', async () => {
    const p = (n: string) => path.join(dir, n);
    // auth, config, request, changelog, completion
    ok(await v(['auth', 'status']));
    ok(await v(['auth', 'profiles', 'list']));
    ok(await v(['auth', 'app-token'])); // shows the bearer masked
    ok(await v(['config', 'list']));
    ok(await v(['request', '/2/webhooks', '--auth', 'app']));
    // The one raw call that asks the service for the bearer: its answer (stdout) is the data the
    // user asked for, like `auth token`; its --verbose trace on stderr is scanned.
    const tokenCall = ok(
      await v([
        'request',
        '-X',
        'POST',
        '/oauth2/token',
        '--auth',
        'basic',
        '-d',
        'grant_type=client_credentials',
        '--raw',
      ]),
    );
    expect(tokenCall.stdout).toContain(secrets[3]);
    seen.splice(
      seen.findIndex((x) => x.text === tokenCall.stdout),
      1,
    );
    await v(['request', '/1.1/nope.json']);
    expect((await v(['request', '/2/webhooks'], undefined)).code).not.toBe(0); // user auth on an app endpoint: refused, traced
    ok(await v(['changelog', '--grep', 'replay']));
    ok(await v(['completion', 'bash']));

    // webhooks with a live receiver (its log is scanned too), activity, stream, sandbox trigger
    const l = spawnCli(['webhooks', 'listen', '--register', '--yes', '--verbose'], { ...t.env, ...env });
    const stream = spawnCli(['activity', 'stream', '--verbose'], { ...t.env, ...env });
    try {
      const id = (await l.waitStderr(/registered webhook (\d+)/))[1]!;
      await stream.waitStderr(/connected to the activity stream/);
      ok(await v(['webhooks', 'list']));
      ok(await v(['webhooks', 'validate', id]));
      ok(await v(['webhooks', 'crc', 'abc-123']));
      const sub = JSON.parse(
        ok(
          await v([
            'activity',
            'subscriptions',
            'create',
            '--event',
            'profile.update.bio',
            '--user-id',
            '783214',
            '--webhook',
            id,
            '-o',
            'json',
          ]),
        ).stdout,
      );
      ok(await v(['activity', 'subscriptions', 'list']));
      ok(
        await v([
          'sandbox',
          'trigger',
          'profile.update.bio',
          '--user-id',
          '783214',
          '--data',
          '{"before":"a","after":"b"}',
        ]),
      );
      await l.waitStdout(/profile\.update\.bio/);
      ok(await v(['activity', 'subscriptions', 'delete', sub.subscription_id, '--yes']));
      ok(await v(['stream', 'rules', 'add', 'secret scan', '--tag', 's']));
      ok(await v(['stream', 'rules', 'list']));
      ok(await v(['stream', 'webhooks', 'link', id]));
      ok(await v(['stream', 'webhooks', 'list']));
      ok(await v(['stream', 'webhooks', 'unlink', id]));
    } finally {
      expect(await stream.stop()).toBe(0);
      expect(await l.stop()).toBe(0);
      seen.push(
        { what: 'webhooks listen', text: l.stdout() + l.stderr() },
        { what: 'activity stream', text: stream.stdout() + stream.stderr() },
      );
    }

    // ads and audiences, with every file an upload writes
    ok(await v(['ads', 'accounts', 'list']));
    ok(await v(['ads', 'campaigns', 'list']));
    ok(await v(['ads', 'funding-instruments', 'list']));
    const aud = JSON.parse(ok(await v(['audiences', 'create', '--name', 'secret scan', '-o', 'json'])).stdout);
    ok(await v(['audiences', 'list']));
    fs.writeFileSync(p('users.csv'), 'email\nuser1@example.com\nnot-an-email\nuser2@example.com\n');
    ok(
      await v([
        'audiences',
        'upload',
        aud.id,
        p('users.csv'),
        '--type',
        'email',
        '--dry-run',
        '--out',
        p('bodies.jsonl'),
        '--rejects',
        p('rejects1.csv'),
      ]),
    );
    ok(
      await v([
        'audiences',
        'upload',
        aud.id,
        p('users.csv'),
        '--type',
        'email',
        '--journal',
        p('upload.journal'),
        '--rejects',
        p('rejects2.csv'),
      ]),
    );
    ok(await v(['audiences', 'upload', aud.id, '-', '--type', 'email', '--restart'], 'user3@example.com\n'));
    fs.writeFileSync(
      p('targeting.json'),
      JSON.stringify({ targeting_criteria: [{ targeting_type: 'LOCATION', targeting_value: '96683cc9126741d1' }] }),
    );
    await v(['audiences', 'estimate', '--targeting', p('targeting.json')]);
    ok(await v(['audiences', 'delete', aud.id, '--yes']));

    // a wrong secret in a failing call is not echoed either
    const wrong = await t.run(['request', '/1.1/account/verify_credentials.json', '--verbose'], {
      env: { XCTL_API_SECRET: 'wrong-secret-0123456789' },
    });
    expect(wrong.code).toBe(3);
    expect(wrong.stdout + wrong.stderr).not.toContain('wrong-secret-0123456789');

    // every file written outside the store: the upload files above and the config folder's others
    const files = [
      ...fs.readdirSync(dir).map((n) => p(n)),
      ...walk(t.configDir).filter((f) => path.basename(f) !== 'config.json'),
    ];
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const f of files) seen.push({ what: f, text: fs.readFileSync(f, 'utf8') });

    for (const { what, text } of seen)
      for (const s of secrets) expect(text.includes(s), `${what} contains a secret`).toBe(false);
    // the scan saw the traces it meant to see
    expect(seen.some((x) => /HTTP GET .*\/2\/webhooks|GET .*\/2\/webhooks/.test(x.text))).toBe(true);
    // About fifty CLI processes, one after another: on a loaded two-core machine that can take
    // longer than the default 30 s budget.
  }, 120_000);

  it('the store is 0600; auth status masks what it stores; auth token is the one that prints', async () => {
    const cfg = tempDir();
    const s = t.sb.seed;
    const base = { XCTL_CONFIG_DIR: cfg, XCTL_BASE_URL: s.base_url };
    const set = await t.run(['auth', 'set', '--api-key', s.api_key, '--api-secret', '-'], {
      env: { ...base, XCTL_API_SECRET: undefined },
      input: s.api_secret + '\n',
    });
    expect(set.code, set.stderr).toBe(0);
    const tok = await t.run(['auth', 'set', '--access-token', s.access_token, '--access-token-secret', '-'], {
      env: { ...base, XCTL_ACCESS_TOKEN_SECRET: undefined, XCTL_ACCESS_TOKEN: undefined },
      input: s.access_token_secret + '\n',
    });
    expect(tok.code, tok.stderr).toBe(0);
    const store = path.join(cfg, 'config.json');
    expect(fs.statSync(store).mode & 0o777).toBe(0o600);
    const clean = {
      ...base,
      XCTL_API_KEY: undefined,
      XCTL_API_SECRET: undefined,
      XCTL_ACCESS_TOKEN: undefined,
      XCTL_ACCESS_TOKEN_SECRET: undefined,
    };
    const st = await t.run(['auth', 'status', '--verbose'], { env: clean });
    expect(st.code, st.stderr).toBe(0);
    for (const sec of [s.api_secret, s.access_token, s.access_token_secret])
      expect(st.stdout + st.stderr).not.toContain(sec);
    expect(st.stdout + st.stderr).toMatch(/\*{3}|…|\.\.\./); // masked values are shown
    const printed = await t.run(['auth', 'token'], { env: clean });
    expect([printed.code, printed.stdout.trim()]).toEqual([0, s.access_token]);
    expect(fs.statSync(store).mode & 0o777).toBe(0o600);
    fs.rmSync(cfg, { recursive: true, force: true });
  });
});

function walk(d: string): string[] {
  if (!fs.existsSync(d)) return [];
  return fs
    .readdirSync(d, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
}
