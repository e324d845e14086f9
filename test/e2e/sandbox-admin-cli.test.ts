// `xctl sandbox trigger|faults|logs|state` and `sandbox start --state FILE` through the real CLI
// against a real sandbox (issue 20 items 9 and 20).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, startTestSandbox, tempDir, runCli, type TestSandbox } from '../helpers/cli.js';
import { spawnCli } from '../helpers/live-cli.js';

let t: TestSandbox;
let dir: string;
beforeAll(async () => {
  t = await startTestSandbox();
  dir = tempDir('xctl-sbstate-');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('sandbox trigger', () => {
  it('refuses an unknown event type with exit 2, listing the valid ones; sends nothing', async () => {
    const before = t.sb.app.logs.length;
    const r = await t.run(['sandbox', 'trigger', 'nope.event']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/<event-type> must be one of the platform's event types \(got "nope\.event"\)/);
    expect(r.stderr).toMatch(/hint: .*event types: profile\.update\.bio .*block\.unblock/);
    expect(t.sb.app.logs.length).toBe(before);
  });
  it('lists the event types in its help', async () => {
    const r = await t.run(['sandbox', 'trigger', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Event types:\n {2}profile\.update\.bio /);
    for (const ev of ['news.new', 'dm.indicate_typing', 'block.unblock']) expect(r.stdout).toContain(ev);
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });
  it('says when nobody receives the event', async () => {
    const r = await t.run(['sandbox', 'trigger', 'profile.update.bio', '--user-id', '42']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/deliveries 0: no subscription matches; run `xctl webhooks listen --register`/);
  });
  it('says what is missing when a subscription matches but has no webhook and no stream (issue 29 item 3)', async () => {
    const sub = await t.run([
      'activity',
      'subscriptions',
      'create',
      '--event',
      'profile.update.bio',
      '--user-id',
      '4242',
      '--json',
    ]);
    expect(sub.code, sub.stderr).toBe(0);
    const r = await t.run(['sandbox', 'trigger', 'profile.update.bio', '--user-id', '4242']);
    expect(r.code, r.stderr).toBe(0);
    const id = String(
      Object.values(JSON.parse(sub.stdout) as Record<string, unknown>).find((v) => /^\d{10,}$/.test(String(v))),
    );
    expect(r.stderr).toBe(
      `deliveries 0: subscription ${id} matches but has no webhook and no activity stream is connected; connect \`xctl activity stream\` (the event is kept for its backfill), or give the subscription a webhook (\`xctl webhooks listen --register\`)\n`,
    );
  });
});

describe('sandbox start --faults', () => {
  it('refuses an unknown fault name with exit 2, listing the names and the syntax', async () => {
    const r = await runCli(['sandbox', 'start', '--faults', 'bogus=1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /fault "bogus" is unknown; known: error_rate, status, latency_ms, drop_rate, rate_limit, match/,
    );
    expect(r.stderr).toMatch(/hint: --faults NAME=VALUE\[,NAME=VALUE\.\.\.\] or a JSON object/);
    expect(r.stdout).not.toMatch(/listening/);
  });
  it('refuses a bad value', async () => {
    for (const [spec, re] of [
      ['error_rate=2', /error_rate must be a number from 0 to 1/],
      ['{"status":200}', /status must be 400-599/],
      ['match=(', /match is not a valid regular expression/],
    ] as const) {
      const r = await runCli(['sandbox', 'start', '--faults', spec]);
      expect(r.code, spec).toBe(2);
      expect(r.stderr).toMatch(re);
    }
  });
  it('lists the fault names in its help', async () => {
    const r = await runCli(['sandbox', 'start', '--help']);
    expect(r.stdout).toMatch(/Faults \(--faults NAME=VALUE/);
    expect(r.stdout).toMatch(/short_count_rate +0-1: audience uploads/);
  });
});

describe('sandbox faults', () => {
  it('sets, lists and clears the faults of a running sandbox', async () => {
    const s = await t.run(['sandbox', 'faults', 'set', 'error_rate=1', 'status=502', 'match=^/2/webhooks$', 'count=1']);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/faults: error_rate=1,status=502,match=\^\/2\/webhooks\$,count=1/);
    expect(t.sb.app.faults.spec).toMatchObject({ error_rate: 1, status: 502, count: 1 });
    const l = await t.run(['sandbox', 'faults']);
    expect(l.stdout).toMatch(/faults: error_rate=1,.* \(injected 0\)/);
    const c = await t.run(['sandbox', 'faults', 'clear']);
    expect(c.stdout).toMatch(/faults: none/);
    expect(t.sb.app.faults.spec).toEqual({});
  });
  it('refuses an unknown fault before sending anything', async () => {
    const r = await t.run(['sandbox', 'faults', 'set', 'bogus=1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/fault "bogus" is unknown/);
    expect(t.sb.app.faults.spec).toEqual({});
  });
  it('the endpoint refuses unknown faults too', async () => {
    const res = await fetch(t.sb.baseUrl + '/_sandbox/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminKey(t.sb.seed) },
      body: '{"bogus":1}',
    });
    expect(res.status).toBe(400);
  });
});

describe('sandbox logs', () => {
  it('prints requests and deliveries with method, path, status and ms, and never a credential', async () => {
    await t.run(['webhooks', 'list']);
    const r = await t.run(['sandbox', 'logs', '--limit', '500']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} {2}GET {4}\/2\/webhooks {2}200 {2}\d+ms$/m);
    const s = t.sb.seed;
    for (const secret of [s.api_secret, s.access_token, s.access_token_secret, s.client_secret])
      expect(r.stdout).not.toContain(secret);
    expect(r.stdout).not.toMatch(/authorization|oauth_signature/i);
  });
  it('escapes what clients sent', async () => {
    await fetch(t.sb.baseUrl + '/2/%1b]0;pwned%07', { headers: {} }).catch(() => undefined);
    t.sb.app.addLog({
      at: new Date().toISOString(),
      kind: 'request',
      method: 'GET',
      path: '/x\u001b[2Jy',
      status: 404,
      ms: 1,
    });
    const r = await t.run(['sandbox', 'logs', '--limit', '5']);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('/x\\u001b[2Jy');
  });
  it('-o jsonl prints one JSON object per entry', async () => {
    const r = await t.run(['sandbox', 'logs', '--limit', '3', '-o', 'jsonl']);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; kind: string });
    expect(lines.length).toBe(3);
    expect(lines[0]!.seq).toBeLessThan(lines[2]!.seq);
  });
  it('--follow prints new entries as they come; Ctrl-C ends it with exit 0', async () => {
    const live = spawnCli(['sandbox', 'logs', '--follow', '--limit', '1'], t.env);
    await live.waitStderr(/following the sandbox log/);
    await t.run(['sandbox', 'trigger', 'news.new', '--data', '{"headline":"x"}']);
    await new Promise((r) => setTimeout(r, 300));
    live.child.kill('SIGINT');
    const done = await live.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/POST {3}\/_sandbox\/events {2}200/);
  });
  it('the log endpoint takes the sandbox app key', async () => {
    expect((await fetch(t.sb.baseUrl + '/_sandbox/logs')).status).toBe(401);
    const wrong = Buffer.from(`${t.sb.seed.api_key}:nope`).toString('base64');
    expect(
      (await fetch(t.sb.baseUrl + '/_sandbox/logs', { headers: { authorization: `Basic ${wrong}` } })).status,
    ).toBe(401);
    const okAuth = Buffer.from(`${t.sb.seed.api_key}:${t.sb.seed.api_secret}`).toString('base64');
    expect(
      (await fetch(t.sb.baseUrl + '/_sandbox/logs', { headers: { authorization: `Basic ${okAuth}` } })).status,
    ).toBe(200);
  });
});

describe('sandbox state', () => {
  it('prints counts, the clock and the faults', async () => {
    const r = await t.run(['sandbox', 'state', '-o', 'tsv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^clock\t\d{4}-.*\(real\)$/m);
    expect(r.stdout).toMatch(/^faults\tnone$/m);
    expect(r.stdout).toMatch(/^campaigns\t\d+$/m);
  });
  it('--out writes the whole state 0600; the export endpoint refuses callers without the app key', async () => {
    const file = path.join(dir, 'dump.json');
    const r = await t.run(['sandbox', 'state', '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const j = JSON.parse(fs.readFileSync(file, 'utf8')) as { xctl_sandbox_state: number; seed: { api_key: string } };
    expect(j.xctl_sandbox_state).toBe(1);
    expect(j.seed.api_key).toBe(t.sb.seed.api_key);
    expect(r.stdout).toBe('');
    expect((await fetch(t.sb.baseUrl + '/_sandbox/state/export')).status).toBe(401);
    const asUser = await fetch(t.sb.baseUrl + '/_sandbox/state/export', { headers: { authorization: 'Bearer nope' } });
    expect(asUser.status).toBe(401);
  });
});

describe('sandbox start --state FILE', () => {
  const start = (file: string) =>
    spawnCli(['sandbox', 'start', '--json', '--state', file], { XCTL_CONFIG_DIR: tempDir() });
  const envOf = (line: string) => {
    const s = JSON.parse(line) as Record<string, string>;
    return {
      XCTL_CONFIG_DIR: tempDir(),
      XCTL_BASE_URL: s.base_url!,
      XCTL_API_KEY: s.api_key!,
      XCTL_API_SECRET: s.api_secret!,
      XCTL_ACCESS_TOKEN: s.access_token!,
      XCTL_ACCESS_TOKEN_SECRET: s.access_token_secret!,
      XCTL_ACCOUNT_ID: s.account_id!,
    };
  };
  // Called right after spawning, before any output can have gone by.
  const firstLine = (live: ReturnType<typeof spawnCli>) =>
    new Promise<string>((resolve) => {
      let buf = '';
      const on = (d: Buffer) => {
        buf += d;
        if (buf.includes('\n')) {
          live.child.stdout.off('data', on);
          resolve(buf.split('\n')[0]!);
        }
      };
      live.child.stdout.on('data', on);
    });

  it('starts fresh, saves on exit (0600), and a restart has the same keys and data', async () => {
    const file = path.join(dir, 'fixtures.json');
    const a = start(file);
    const lineA = firstLine(a);
    await a.waitStderr(/does not exist yet: starting fresh/);
    const envA = envOf(await lineA);
    const created = await runCli(['audiences', 'create', '--name', 'Fixture audience', '--fields', 'id', '-o', 'tsv'], {
      env: envA,
    });
    expect(created.code, created.stderr).toBe(0);
    const audId = created.stdout.trim();
    a.child.kill('SIGTERM');
    const doneA = await a.done;
    expect(doneA.code).toBe(0);
    expect(doneA.stderr).toMatch(/sandbox state saved to/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const b = start(file);
    const envB = envOf(await firstLine(b));
    expect(envB.XCTL_API_KEY).toBe(envA.XCTL_API_KEY);
    expect(envB.XCTL_ACCESS_TOKEN).toBe(envA.XCTL_ACCESS_TOKEN);
    const got = await runCli(['audiences', 'get', audId, '--fields', 'name', '-o', 'tsv'], { env: envB });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout.trim()).toBe('Fixture audience');
    b.child.kill('SIGINT');
    expect((await b.done).code).toBe(0);
  });
  it('refuses a file that is not a saved state, with exit 2', async () => {
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, '{"x":1}');
    const r = await runCli(['sandbox', 'start', '--state', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a sandbox state file/);
    fs.writeFileSync(bad, '{nope');
    const r2 = await runCli(['sandbox', 'start', '--state', bad]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/is not valid JSON/);
  });
});

describe('sandbox clock and logs: the verbs and the endpoints check one description', () => {
  it('a duration without a unit or a limit out of range: exit 2, nothing sent, the endpoint says the same', async () => {
    const before = t.sb.app.logs.length;
    const clock = await t.run(['sandbox', 'clock', '--advance', '5000']);
    const logs = await t.run(['sandbox', 'logs', '--no-follow', '--limit', '0']);
    expect([clock.code, logs.code]).toEqual([2, 2]);
    expect(t.sb.app.logs.length).toBe(before);
    const said = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(t.sb.baseUrl + p, {
        method,
        headers: { 'content-type': 'application/json', ...adminKey(t.sb.seed) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      return ((await res.json()) as { detail: string }).detail;
    };
    const words = 'must be a duration such as 90s, 30m, 29h or 1d (got "5000")';
    expect(clock.stderr).toContain(`error: --advance ${words}`);
    expect(await said('POST', '/_sandbox/clock', { advance: '5000' })).toBe(`advance ${words}`);
    expect(logs.stderr).toContain('error: --limit must be a whole number 1-5000 (got "0")');
    expect(await said('GET', '/_sandbox/logs?limit=0')).toBe('limit must be a whole number 1-5000 (got "0")');
  });
});
