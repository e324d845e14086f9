// `xctl audiences sync` and `audiences hash` through the real CLI against the sandbox, whose
// audiences keep their exact members: after any sequence of syncs the audience equals the last
// file (checked digest by digest against node:crypto), only the difference is sent (counted
// in the sandbox), --plan answers by exit code, and a SIGKILLed sync resumes losing nothing.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, startTestSandbox, tempDir, type TestSandbox } from '../helpers/cli.js';

let t: TestSandbox;
let dir: string;
let n = 0;

beforeAll(async () => {
  t = await startTestSandbox();
  dir = tempDir('xctl-sync-');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function audience(): string {
  const id = `cs${++n}${Date.now().toString(36)}`;
  const now = new Date().toISOString();
  t.sb.app.state.collection('custom_audiences').set(id, {
    id,
    account_id: t.sb.seed.account_id,
    name: id,
    description: '',
    audience_size: 0,
    deleted: false,
    created_at: now,
    updated_at: now,
  });
  return id;
}

interface Members {
  size: number;
  requests: number;
  updated: number;
  deleted: number;
  members: Record<string, string[]>;
}
const members = async (id: string) =>
  (await t.admin<{ data: Members }>('GET', `/_sandbox/audience-members/custom_audiences/${id}`)).data;
const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** Writes emails (indices) as lines; `dupes` adds case/space variants of some. Returns the expected digests. */
function emailFile(ids: number[], dupes: number[] = [], name = `f${++n}.txt`): { file: string; digests: string[] } {
  const lines = ids.map((i) => `user${i}@example.com`);
  for (const i of dupes) lines.push(` USER${i}@Example.COM `);
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return { file, digests: [...new Set(ids.map((i) => sha(`user${i}@example.com`)))].sort() };
}
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
const json = (stdout: string) => JSON.parse(stdout) as Record<string, number | string | boolean>;

describe('audiences sync', () => {
  it('audiences hash: a value is not a file (exit 2, --value hint); --value and stdin hash single values (issue 29)', async () => {
    const env = { XCTL_CONFIG_DIR: dir };
    const miss = await runCli(['audiences', 'hash', 'Ada@x.com'], { env });
    expect([miss.code, miss.stderr]).toEqual([
      2,
      'error: <file>: Ada@x.com does not exist\nhint: to hash a value, give it with --value: xctl audiences hash --value Ada@x.com\n',
    ]);
    const v = await runCli(['audiences', 'hash', '--value', 'Ada@x.com'], { env });
    expect([v.code, v.stdout]).toEqual([0, `${sha('ada@x.com')}\n`]);
    const piped = await runCli(['audiences', 'hash', '--type', 'email'], { env, input: 'Ada@x.com\n' });
    expect([piped.code, piped.stdout]).toEqual([0, `${sha('ada@x.com')}\n`]);
  });
  it('--plan sends nothing and draws no progress (issue 29 item 8); a real sync does', async () => {
    const id = audience();
    const a = emailFile(range(0, 30_000));
    const env = { XCTL_PROGRESS_INTERVAL_MS: '1' };
    const plan = await t.run(['audiences', 'sync', id, a.file, '--type', 'email', '--plan', '-o', 'json'], { env });
    expect(plan.code, plan.stderr).toBe(10);
    expect(plan.stderr).not.toContain('"progress"');
    const real = await t.run(['audiences', 'sync', id, a.file, '--type', 'email', '-o', 'json'], {
      env,
      timeoutMs: 60_000,
    });
    expect(real.code, real.stderr).toBe(0);
    expect(real.stderr).toContain('"progress"');
  });
  it('200,000 rows, then 5% added and 5% removed: only those are sent, and the audience equals the file', async () => {
    const id = audience();
    const a = emailFile(range(0, 198_000), range(100_000, 102_000)); // 200,000 rows, 198,000 members
    let r = await t.run(['audiences', 'sync', id, a.file, '--type', 'email', '--plan', '-o', 'json']);
    expect(r.code, r.stderr).toBe(10);
    const plan = json(r.stdout);
    expect(plan).toMatchObject({
      first_sync: true,
      read: 200_000,
      members: 198_000,
      adds: 198_000,
      removes: 0,
      requests: 80,
      acknowledged: 0,
    });
    expect(plan.snapshot).toBe(
      path.join(t.configDir, 'audiences', 'default', t.sb.seed.account_id, `${id}.email.snapshot`),
    );
    expect(r.stderr).toContain('the first sync uploads all 198000 members');
    expect((await members(id)).requests).toBe(0);

    r = await t.run(['audiences', 'sync', id, a.file, '--type', 'email', '-o', 'json'], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({
      first_sync: true,
      adds: 198_000,
      removes: 0,
      requests: 80,
      acknowledged: 198_000,
    });
    let m = await members(id);
    expect(m).toMatchObject({ size: 198_000, requests: 80, updated: 198_000, deleted: 0 });
    expect(m.members.email).toEqual(a.digests);

    const b = emailFile([...range(9_900, 198_000), ...range(198_000, 207_900)], range(100_000, 102_000));
    r = await t.run(['audiences', 'sync', id, b.file, '--type', 'email', '--plan', '-o', 'json']);
    expect(r.code).toBe(10);
    expect(json(r.stdout)).toMatchObject({
      first_sync: false,
      members_before: 198_000,
      members: 198_000,
      adds: 9_900,
      removes: 9_900,
      requests: 8,
    });

    r = await t.run(['audiences', 'sync', id, b.file, '--type', 'email', '-o', 'json'], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ adds: 9_900, removes: 9_900, requests: 8, acknowledged: 19_800 });
    m = await members(id);
    // 4 Delete requests and 4 Update requests: nothing else reached the service
    expect(m).toMatchObject({ size: 198_000, requests: 88, updated: 198_000 + 9_900, deleted: 9_900 });
    expect(m.members.email).toEqual(b.digests);
    expect(t.sb.app.state.collection('custom_audiences').get(id)!.audience_size).toBe(198_000);

    r = await t.run(['audiences', 'sync', id, b.file, '--type', 'email', '--plan', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toMatchObject({ adds: 0, removes: 0, requests: 0 });
    r = await t.run(['audiences', 'sync', id, b.file, '--type', 'email', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('in sync: 198000 members, nothing to send');
    expect((await members(id)).requests).toBe(88);
  }, 240_000);

  it('a sync killed with SIGKILL mid-way resumes its plan and loses nothing; later syncs stay exact', async () => {
    const id = audience();
    await t.run(['audiences', 'sync', id, emailFile(range(0, 20_000)).file, '--type', 'email'], { timeoutMs: 60_000 });
    const next = emailFile([...range(10_000, 20_000), ...range(50_000, 80_000)]); // 10,000 removes, 30,000 adds
    const args = [
      'audiences',
      'sync',
      id,
      next.file,
      '--type',
      'email',
      '--batch-size',
      '250',
      '--concurrency',
      '2',
      '--max-removes',
      '100%',
      '-o',
      'json',
    ];
    const journal = path.join(
      t.configDir,
      'audiences',
      'default',
      t.sb.seed.account_id,
      `${id}.email.pending`,
      'journal.jsonl',
    );
    // drop_if_gone: requests in flight at the kill are not applied, as a real server may do.
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 120, match: '/users$', drop_if_gone: true });
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...t.env }, stdio: 'ignore' });
    for (let i = 0; i < 2400; i++) {
      await new Promise((r) => setTimeout(r, 25));
      if (fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').split('\n').length > 60) break; // into the adds
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    await t.admin('DELETE', '/_sandbox/faults');
    // Acknowledged = whole journal records after the header. A record the kill tore in half is
    // not one: the resume drops it and sends that batch again, as it must.
    const acked = fs
      .readFileSync(journal, 'utf8')
      .split('\n')
      .slice(1, -1)
      .filter((l) => {
        try {
          JSON.parse(l);
          return true;
        } catch {
          return false;
        }
      }).length;
    expect(acked).toBeGreaterThan(40);
    expect(acked).toBeLessThan(160);
    const before = await members(id);

    let r = await t.run(['audiences', 'sync', id, next.file, '--type', 'email', '--plan', '-o', 'json']);
    expect(r.code).toBe(10);
    expect(r.stderr).toContain('an interrupted sync is pending (10000 removes, 30000 adds)');
    expect(json(r.stdout)).toMatchObject({ adds: 0, removes: 0 }); // once it is finished, the file is matched

    r = await t.run(args, { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('finishing an interrupted sync first (10000 removes, 30000 adds)');
    expect(json(r.stdout)).toMatchObject({ adds: 0, removes: 0 });
    const after = await members(id);
    expect(after.members.email).toEqual(next.digests);
    // Only the batches the journal did not hold went again: those in flight at the kill (2), and
    // those acknowledged but still waiting for the journal's group commit (at most 2 more).
    // (Within two either way: a request the sandbox was still serving at the kill may be counted
    // after `before` was read. Sending everything again would be 160, far outside.)
    expect(after.requests - before.requests).toBeGreaterThanOrEqual(160 - acked - 2);
    expect(after.requests - before.requests).toBeLessThanOrEqual(160 - acked + 2);
    expect(before.requests - 8).toBeGreaterThanOrEqual(acked);
    expect(before.requests - 8).toBeLessThanOrEqual(acked + 4);
    expect(fs.existsSync(path.dirname(journal))).toBe(false);

    // Any sequence after that stays exact.
    for (const ids of [range(70_000, 75_000), [...range(0, 100), ...range(70_000, 76_000)], range(1, 2)]) {
      const f = emailFile(ids);
      r = await t.run(['audiences', 'sync', id, f.file, '--type', 'email', '--max-removes', '100%', '-o', 'json'], {
        timeoutMs: 60_000,
      });
      expect(r.code, r.stderr).toBe(0);
      expect((await members(id)).members.email).toEqual(f.digests);
    }
  }, 240_000);

  it('Ctrl-C drains the batches in flight, keeps the plan and exits 130; the next sync finishes it', async () => {
    const id = audience();
    const f = emailFile(range(0, 20_000));
    const args = ['audiences', 'sync', id, f.file, '--type', 'email', '--batch-size', '250', '--concurrency', '2'];
    const journal = path.join(
      t.configDir,
      'audiences',
      'default',
      t.sb.seed.account_id,
      `${id}.email.pending`,
      'journal.jsonl',
    );
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 20, match: '/users$' });
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...t.env, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    for (
      let i = 0;
      i < 2400 && !(fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').split('\n').length > 5);
      i++
    )
      await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('close', r));
    await t.admin('DELETE', '/_sandbox/faults');
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(
      /stopped after draining the batches in flight: \d+ of 20000 valid records acknowledged; run the sync again: it finishes this plan first/,
    );
    expect(stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    // What a run killed at a bad moment leaves behind is swept by the next one.
    const stem = path.join(path.dirname(path.dirname(journal)), `${id}.email`);
    for (const leftover of [`${stem}.sort-999999-x`, `${stem}.pending.tmp-x`]) fs.mkdirSync(leftover);
    const r = await t.run([...args, '-o', 'json'], { timeoutMs: 60_000 });
    expect(fs.readdirSync(path.dirname(stem)).filter((f) => f.startsWith(`${id}.`))).toEqual([`${id}.email.snapshot`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('finishing an interrupted sync first');
    expect((await members(id)).members.email).toEqual(f.digests);
  }, 120_000);

  it('--plan needs no credentials and no network; exit 0 in sync, 10 with changes', async () => {
    const env = {
      XCTL_API_KEY: undefined,
      XCTL_API_SECRET: undefined,
      XCTL_ACCESS_TOKEN: undefined,
      XCTL_ACCESS_TOKEN_SECRET: undefined,
      XCTL_BASE_URL: 'http://127.0.0.1:9',
    };
    const id = audience();
    const f = emailFile(range(0, 10));
    let r = await t.run(['audiences', 'sync', id, f.file, '--type', 'email', '--plan'], { env });
    expect(r.code, r.stderr).toBe(10);
    expect(r.stderr).not.toMatch(/error/);
    r = await t.run(['audiences', 'sync', id, f.file, '--type', 'email', '--verbose']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/POST .*\/users/); // the --verbose trace, with every secret redacted
    for (const secret of [t.env.XCTL_API_SECRET, t.env.XCTL_ACCESS_TOKEN_SECRET, t.env.XCTL_ACCESS_TOKEN])
      expect(r.stdout + r.stderr).not.toContain(secret);
    r = await t.run(['audiences', 'sync', id, f.file, '--type', 'email', '--plan'], { env });
    expect(r.code, r.stderr).toBe(0);
    r = await t.run(
      ['audiences', 'sync', id, emailFile(range(0, 11)).file, '--type', 'email', '--plan', '-o', 'json'],
      { env },
    );
    expect(r.code).toBe(10);
    expect(json(r.stdout)).toMatchObject({ adds: 1, removes: 0, members_before: 10 });
  });

  it('--from-upload seeds the snapshot from a finished upload (nothing sent); --rebuild uploads everything again', async () => {
    const id = audience();
    const f = emailFile(range(0, 3000));
    const journal = path.join(dir, `up${n}.journal`);
    let r = await t.run(['audiences', 'upload', id, f.file, '--type', 'email', '--journal', journal]);
    expect(r.code, r.stderr).toBe(0);
    expect((await members(id)).requests).toBe(2);
    r = await t.run(['audiences', 'sync', id, f.file, '--type', 'email', '--from-upload', journal, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`snapshot seeded from the upload journal ${journal}: 3000 members`);
    expect(json(r.stdout)).toMatchObject({ first_sync: false, members_before: 3000, adds: 0, removes: 0, requests: 0 });
    expect((await members(id)).requests).toBe(2);
    const g = emailFile(range(100, 3100));
    r = await t.run(['audiences', 'sync', id, g.file, '--type', 'email', '-o', 'json']);
    expect(json(r.stdout)).toMatchObject({ adds: 100, removes: 100, requests: 2 });
    expect((await members(id)).members.email).toEqual(g.digests);
    r = await t.run(['audiences', 'sync', id, g.file, '--type', 'email', '--rebuild', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ first_sync: true, adds: 3000, removes: 0, requests: 2 });
    expect((await members(id)).members.email).toEqual(g.digests);

    // An unfinished or foreign journal is refused.
    r = await t.run(['audiences', 'sync', audience(), f.file, '--type', 'email', '--from-upload', journal]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is of an upload to audience .* not /);
    fs.appendFileSync(f.file, 'changed@example.com\n');
    r = await t.run(['audiences', 'sync', id, f.file, '--type', 'email', '--from-upload', journal]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is gone or has changed since/);
  }, 120_000);

  it('warns a year after members were sent (the service expires them at 13 months); --refresh sends them all again', async () => {
    const id = audience();
    const f = emailFile(range(0, 300));
    expect((await t.run(['audiences', 'sync', id, f.file, '--type', 'email'])).code).toBe(0);
    const snap = path.join(t.configDir, 'audiences', 'default', t.sb.seed.account_id, `${id}.email.snapshot`);
    const header = () =>
      JSON.parse(fs.readFileSync(snap).subarray(0, 512).toString().slice('xctl-audience-snapshot 1\n'.length)) as {
        oldest_sent_at: string;
      };
    // Age the snapshot: its header is fixed-size text, so a date of the same length drops in.
    const year = Number(header().oldest_sent_at.slice(0, 4));
    const aged = fs.readFileSync(snap);
    aged.write(`"oldest_sent_at":"${year - 2}`, aged.indexOf(`"oldest_sent_at":"${year}`), 'latin1');
    fs.writeFileSync(snap, aged);
    let r = await t.run(['audiences', 'sync', id, f.file, '--type', 'email', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`members first sent on ${year - 2}-.* expire 13 months after: pass --refresh`));
    const before = (await members(id)).requests;
    r = await t.run([
      'audiences',
      'sync',
      id,
      emailFile(range(1, 300)).file,
      '--type',
      'email',
      '--refresh',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ adds: 299, removes: 1, requests: 2 });
    expect((await members(id)).requests - before).toBe(2);
    expect(Number(header().oldest_sent_at.slice(0, 4))).toBe(year);
    r = await t.run(['audiences', 'sync', id, emailFile(range(1, 300)).file, '--type', 'email']);
    expect(r.stderr).not.toMatch(/--refresh/);
  });

  it('refuses what it cannot keep exactly, sending nothing (exit 2)', async () => {
    const id = audience();
    const csv = path.join(dir, 'two.csv');
    fs.writeFileSync(csv, 'email,phone_number\na@example.com,+14155552671\n');
    const cases: Array<[string[], RegExp]> = [
      [['audiences', 'sync', id, csv], /one identifier type, and this input names 2/],
      [['audiences', 'sync', id, emailFile([1]).file, '--type', 'partner_user_id'], /partner_user_id is sent as it is/],
      [
        ['audiences', 'sync', id, path.join(dir, 'empty.txt'), '--type', 'email'],
        /is empty: a sync to it would remove every member/,
      ],
      [['audiences', 'sync', id, path.join(dir, 'bad.txt'), '--type', 'email'], /none of the 2 records could be used/],
      [
        ['audiences', 'sync', id, emailFile([1]).file, '--type', 'email', '--rebuild', '--from-upload', 'x'],
        /exclusive/,
      ],
      [
        ['audiences', 'sync', id, emailFile([1]).file, '--type', 'email', '--plan', '--from-upload', 'x'],
        /without --plan/,
      ],
      [['audiences', 'sync', 'bad-id!', emailFile([1]).file, '--type', 'email'], /<audience-id> must be/],
      [['audiences', 'sync', id, emailFile([1]).file, '--type', 'fax'], /--type must be one of/],
    ];
    fs.writeFileSync(path.join(dir, 'empty.txt'), '');
    fs.writeFileSync(path.join(dir, 'bad.txt'), 'nope\nstill nope\n');
    for (const [args, msg] of cases) {
      const r = await t.run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
    expect((await members(id)).requests).toBe(0);
  });
});

describe('audiences hash', () => {
  it('prints exactly the digests upload --dry-run --out would send, in order, with no credentials', async () => {
    const csv = path.join(dir, 'people.csv');
    fs.writeFileSync(
      csv,
      'Email,Phone\n A@Example.com ,(415) 555-2671\nnot-an-email,\nb@example.com,\n,+44 20 7946 0958\n',
    );
    const out = path.join(dir, 'bodies.jsonl');
    const up = await runCli(['audiences', 'upload', 'ca1', csv, '--default-country', 'US', '--dry-run', '--out', out]);
    expect(up.code, up.stderr).toBe(0);
    const users = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .flatMap((l) =>
        (JSON.parse(l) as Array<{ params: { users: Array<Record<string, string[]>> } }>).flatMap(
          (op) => op.params.users,
        ),
      );
    const r = await runCli(['audiences', 'hash', csv, '--default-country', 'US']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      'email,phone_number\n' + users.map((u) => `${u.email?.[0] ?? ''},${u.phone_number?.[0] ?? ''}`).join('\n') + '\n',
    );
    expect(r.stderr).toContain('line 3 (Email): not an email address');
    expect(r.stdout).toContain(`${sha('a@example.com')},${sha('14155552671')}`);

    const lines = path.join(dir, 'many.txt');
    fs.writeFileSync(
      lines,
      range(0, 30_000)
        .map((i) => (i % 7 ? `u${i}@x.com` : ` U${i}@X.COM`))
        .join('\n') + '\n',
    );
    const out2 = path.join(dir, 'bodies2.jsonl');
    await runCli(['audiences', 'upload', 'ca1', lines, '--type', 'email', '--dry-run', '--out', out2]);
    const sent = fs
      .readFileSync(out2, 'utf8')
      .trim()
      .split('\n')
      .flatMap((l) =>
        (JSON.parse(l) as Array<{ params: { users: Array<{ email: string[] }> } }>).flatMap((op) =>
          op.params.users.map((u) => u.email[0]!),
        ),
      );
    const h = await runCli(['audiences', 'hash', '--type', 'email'], { input: fs.readFileSync(lines) });
    expect(h.code).toBe(0);
    expect(h.stdout.trim().split('\n')).toEqual(sent);
    expect(sent[0]).toBe(sha('u0@x.com'));
  });

  it('--explain shows each value, its normalized form and digest, or why it is rejected', async () => {
    const r = await runCli(['audiences', 'hash', '--type', 'phone_number', '--default-country', 'US', '--explain'], {
      input: '(415) 555-2671\n12\n+44 20 7946 0958\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'line\tcolumn\ttype\tinput\tnormalized\tsent',
      `1\tphone_number\tphone_number\t(415) 555-2671\t14155552671\t${sha('14155552671')}`,
      '2\tphone_number\tphone_number\t12\t\trejected: not a valid phone number',
      `3\tphone_number\tphone_number\t+44 20 7946 0958\t442079460958\t${sha('442079460958')}`,
      '',
    ]);
    const bad = await runCli(['audiences', 'hash', '--type', 'email'], { input: 'nope\n' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/none of the 1 records could be used/);
  });
});
