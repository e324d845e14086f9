// `xctl audiences upload` and `audiences do-not-reach upload` through the real CLI against the
// sandbox: every record arrives (audience_size equals the distinct count) through 5xx, 429s,
// dropped connections and short counts; a SIGKILLed run resumes from its journal; every rule
// is checked before anything is sent.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../../src/audiences/normalize.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startTestSandbox, tempDir, type TestSandbox } from '../helpers/cli.js';

let t: TestSandbox;
let dir: string;
let n = 0;

beforeAll(async () => {
  t = await startTestSandbox();
  dir = tempDir('xctl-upload-');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh custom audience in sandbox state (the audiences CRUD commands live elsewhere). */
function audience(kind: 'custom_audiences' | 'do_not_reach_lists' = 'custom_audiences'): string {
  const id = `ca${++n}${Date.now().toString(36)}`;
  const now = new Date().toISOString();
  t.sb.app.state.collection(kind).set(id, {
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
const size = (id: string, kind: 'custom_audiences' | 'do_not_reach_lists' = 'custom_audiences') =>
  t.sb.app.state.collection(kind).get(id)!.audience_size;

/** n emails with some duplicates (differing only in case and spaces): returns file and distinct count. */
function emails(count: number, name = `e${++n}.txt`): { file: string; distinct: number } {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(i % 10 === 9 ? ` USER${i - 1}@Example.com ` : `user${i}@example.com`);
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return { file, distinct: count - Math.floor(count / 10) };
}
const summary = (stdout: string) => JSON.parse(stdout) as Record<string, number>;

describe('audiences upload', () => {
  it('uploads, dedupes, reports rejects and prints a summary', async () => {
    const id = audience();
    const file = path.join(dir, 'mixed.csv');
    fs.writeFileSync(
      file,
      'Email,Phone\na@example.com,+1 415 555 2671\nA@EXAMPLE.COM ,\nnot-an-email,\n,(415) 555-2672\n,,\n',
    );
    const rejects = path.join(dir, 'rejects.csv');
    const r = await t.run([
      'audiences',
      'upload',
      id,
      file,
      '--default-country',
      'US',
      '--rejects',
      rejects,
      '-o',
      'json',
    ]);
    expect(r.stderr).toContain('header: Email -> email, Phone -> phone_number');
    expect(r.code).toBe(0);
    // ",," (every cell empty) is a blank line, reported as such, as it is in a quoted file
    expect(summary(r.stdout)).toMatchObject({
      lines: 5,
      read: 4,
      blank: 1,
      valid: 3,
      rejected: 1,
      sent: 3,
      acknowledged: 3,
      batches: 1,
      retries: 0,
    });
    // the phone-only user, the email+phone user, and the email-only user (same email, other user object)
    expect(size(id)).toBe(3);
    expect(fs.readFileSync(rejects, 'utf8')).toBe('line,column,reason\n4,Email,not an email address\n');
  });

  it('delivers every record through 5xx, 429s, dropped connections and short counts', async () => {
    const id = audience();
    const { file, distinct } = emails(6000);
    await t.admin('POST', '/_sandbox/faults', {
      error_rate: 0.15,
      status: 503,
      drop_rate: 0.1,
      short_count_rate: 0.15,
      match: '/users$',
    });
    const r = await t.run(
      ['audiences', 'upload', id, file, '--type', 'email', '--batch-size', '100', '--concurrency', '6', '-o', 'json'],
      { timeoutMs: 60_000 },
    );
    const injected = (await t.admin<{ injected: number }>('GET', '/_sandbox/faults')).injected;
    await t.admin('DELETE', '/_sandbox/faults');
    expect(r.code, r.stderr).toBe(0);
    const s = summary(r.stdout);
    expect(s).toMatchObject({ read: 6000, valid: 6000, acknowledged: 6000, batches: 60 });
    expect(injected).toBeGreaterThan(0);
    expect(s.retries).toBeGreaterThan(0);
    expect(size(id)).toBe(distinct);

    // 429s answered while the window still has room are retried like any overload
    const id2 = audience();
    await t.admin('POST', '/_sandbox/faults', { error_rate: 0.3, status: 429, match: '/users$' });
    const r2 = await t.run(['audiences', 'upload', id2, file, '--type', 'email', '--batch-size', '500', '-o', 'json']);
    await t.admin('DELETE', '/_sandbox/faults');
    expect(r2.code, r2.stderr).toBe(0);
    expect(size(id2)).toBe(distinct);
  });

  it('gives up when the rate-limit window is spent (exit 4, says how to resume), then resumes', async () => {
    const id = audience();
    const { file, distinct } = emails(3000);
    await t.admin('POST', '/_sandbox/faults', { rate_limit: 3 });
    const r = await t.run([
      '--max-wait',
      '0',
      'audiences',
      'upload',
      id,
      file,
      '--type',
      'email',
      '--batch-size',
      '500',
      '--concurrency',
      '1',
    ]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/gave up on batch 4: .*Rate limit exceeded.*1500 of \d+ valid records acknowledged/);
    expect(r.stderr).toMatch(/hint: re-run the same command to resume from the journal .*upload-[0-9a-f]+\.jsonl/);
    await t.admin('DELETE', '/_sandbox/faults');
    const again = await t.run([
      '--max-wait',
      '0',
      'audiences',
      'upload',
      id,
      file,
      '--type',
      'email',
      '--batch-size',
      '500',
      '--concurrency',
      '1',
      '-o',
      'json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming from journal .*: 3 batches \(1500 records\) already acknowledged/);
    expect(summary(again.stdout)).toMatchObject({ resumed_batches: 3, batches: 3, acknowledged: 3000 });
    expect(size(id)).toBe(distinct);
    // a completed upload leaves no default journal behind
    expect(fs.readdirSync(path.join(t.configDir, 'journals'))).toEqual([]);
  });

  it('resumes a run killed with SIGKILL mid-upload without losing a record', async () => {
    const id = audience();
    const { file, distinct } = emails(40_000);
    const journal = path.join(dir, 'kill.journal');
    const args = [
      'audiences',
      'upload',
      id,
      file,
      '--type',
      'email',
      '--batch-size',
      '250',
      '--concurrency',
      '2',
      '--journal',
      journal,
      '-o',
      'json',
    ];
    // drop_if_gone: the requests in flight when the client dies are not applied (as a real server
    // may), so a batch journaled before its acknowledgement would be lost and this test fail.
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 60, match: '/users$', drop_if_gone: true });
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...t.env }, stdio: 'ignore' });
    // kill it once a few batches are journaled
    for (let i = 0; i < 400; i++) {
      await new Promise((r) => setTimeout(r, 25));
      if (fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').split('\n').length > 8) break;
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    await t.admin('DELETE', '/_sandbox/faults');
    const acked = fs.readFileSync(journal, 'utf8').trim().split('\n').length - 1;
    expect(acked).toBeGreaterThan(0);
    expect(acked).toBeLessThan(160);
    const r = await t.run(args, { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`resuming from journal ${journal}`);
    const s = summary(r.stdout);
    expect(s.resumed_batches).toBeGreaterThanOrEqual(acked);
    expect(s.resumed_batches + s.batches).toBe(160);
    expect(size(id)).toBe(distinct);
    // digest by digest: the members are exactly the file's normalized, hashed addresses
    const got = (
      await t.admin<{ data: { members: Record<string, string[]> } }>(
        'GET',
        `/_sandbox/audience-members/custom_audiences/${id}`,
      )
    ).data.members.email!;
    const want = [
      ...new Set(
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => sha256Hex(l.trim().toLowerCase())),
      ),
    ].sort();
    expect([...got].sort()).toEqual(want);
  });

  it('Ctrl-C drains the batches in flight, saves the journal and exits 130; the same command resumes', async () => {
    const id = audience();
    const { file, distinct } = emails(20_000);
    const args = ['audiences', 'upload', id, file, '--type', 'email', '--batch-size', '250'];
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 30, match: '/users$' });
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...t.env, XCTL_PROGRESS_INTERVAL_MS: '50' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    for (let i = 0; i < 400 && !/"acknowledged":[1-9]/.test(stderr); i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('close', r));
    await t.admin('DELETE', '/_sandbox/faults');
    expect(code).toBe(130);
    expect(stderr).toMatch(
      /\{"progress":\{"read":\d+,"acknowledged":\d+,"records_per_s":\d+,"percent":[\d.]+,"eta_s":/,
    );
    expect(stderr).toMatch(
      /stopped after draining the batches in flight: \d+ of \d+ valid records acknowledged; re-run the same command to resume/,
    );
    const r = await t.run([...args, '-o', 'json'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(summary(r.stdout).resumed_batches).toBeGreaterThan(0);
    expect(size(id)).toBe(distinct);
  });

  it('reads stdin (resumable with --journal), passes --hashed digests, and --delete removes users', async () => {
    const id = audience();
    const { sha256Hex } = await import('../../src/audiences/normalize.js');
    const digests = ['a@example.com', 'b@example.com', 'c@example.com'].map((e) => sha256Hex(e).toUpperCase());
    const journal = path.join(dir, 'stdin.journal');
    const r = await t.run(
      ['audiences', 'upload', id, '-', '--type', 'email', '--hashed', '--journal', journal, '-o', 'json'],
      { input: digests.join('\n') + '\n' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(size(id)).toBe(3);
    expect(fs.readFileSync(journal, 'utf8')).toMatch(/"done":true/);
    const d = await t.run(['audiences', 'upload', id, '-', '--type', 'email', '--delete', '-o', 'json'], {
      input: 'B@example.com\n',
    });
    expect(d.code, d.stderr).toBe(0);
    expect(d.stderr).toContain('cannot be resumed');
    expect(size(id)).toBe(2);
  });

  it('--dry-run --out writes each request body as one JSON line and sends nothing', async () => {
    const id = audience();
    const { file, distinct } = emails(1200);
    const out = path.join(dir, 'bodies.jsonl');
    const r = await t.run([
      'audiences',
      'upload',
      id,
      file,
      '--type',
      'email',
      '--batch-size',
      '500',
      '--expires-at',
      new Date(Date.now() + 86400_000).toISOString(),
      '--dry-run',
      '--out',
      out,
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(summary(r.stdout)).toMatchObject({ read: 1200, valid: 1200, sent: 1200, acknowledged: 0, batches: 3 });
    const bodies = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(bodies.map((b) => b[0].params.users.length)).toEqual([500, 500, 200]);
    expect(bodies[0][0].operation_type).toBe('Update');
    expect(bodies[0][0].params.expires_at).toBeDefined();
    expect(new Set(bodies.flatMap((b) => b[0].params.users.map((u: { email: string[] }) => u.email[0]))).size).toBe(
      distinct,
    );
    expect(size(id)).toBe(0);
  });

  it('refuses bad input and flags before sending anything (exit 2)', async () => {
    const id = audience();
    const hashed = path.join(dir, 'hashed.txt');
    const { sha256Hex } = await import('../../src/audiences/normalize.js');
    fs.writeFileSync(hashed, `${sha256Hex('a@example.com')}\n`);
    const cases: Array<[string[], RegExp]> = [
      [
        ['audiences', 'upload', id, hashed, '--type', 'email'],
        /line 1 \(email\) looks like a SHA-256 digest[\s\S]*--hashed/,
      ],
      [['audiences', 'upload', id, hashed], /needs --type/],
      [['audiences', 'upload', id, hashed, '--type', 'fax'], /--type must be one of/],
      [['audiences', 'upload', id, hashed, '--type', 'email', '--column', 'email=E'], /exclusive/],
      [['audiences', 'upload', id, hashed, '--type', 'email', '--out', 'x.jsonl'], /--out .* --dry-run/],
      [
        ['audiences', 'upload', id, hashed, '--type', 'email', '--batch-size', '0'],
        /--batch-size must be a whole number/,
      ],
      [
        [
          'audiences',
          'upload',
          id,
          hashed,
          '--type',
          'email',
          '--expires-at',
          new Date(Date.now() + 400 * 86400_000).toISOString(),
        ],
        /at most 13 months/,
      ],
      [
        [
          'audiences',
          'upload',
          id,
          hashed,
          '--type',
          'email',
          '--effective-at',
          '2030-01-02T00:00:00Z',
          '--expires-at',
          '2030-01-01T00:00:00Z',
        ],
        /--expires-at must be after effective_at/,
      ],
      [['audiences', 'upload', id, hashed, '--type', 'phone_number', '--default-country', 'XX'], /--default-country/],
      [['audiences', 'upload', id, path.join(dir, 'missing.txt'), '--type', 'email'], /no such file/],
      [['audiences', 'do-not-reach', 'upload', id, hashed, '--type', 'handle'], /only email and phone_number/],
      [
        [
          'audiences',
          'do-not-reach',
          'upload',
          id,
          hashed,
          '--type',
          'email',
          '--effective-at',
          '2030-01-01T00:00:00Z',
        ],
        /unknown option '--effective-at'/,
      ],
      [
        [
          'audiences',
          'do-not-reach',
          'upload',
          id,
          hashed,
          '--type',
          'email',
          '--expires-at',
          new Date(Date.now() + 396 * 86400_000).toISOString(),
        ],
        /less than 13 months/,
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => t.run(args)));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]![0].join(' ')}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(cases[i]![1]);
    });
    expect(size(id)).toBe(0);
  });

  it('reports a missing audience as the API error (nothing acknowledged, no journal kept)', async () => {
    const { file } = emails(10);
    const r = await t.run(['audiences', 'upload', 'nosuch', file, '--type', 'email']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Custom audience nosuch was not found \(HTTP 404, code NOT_FOUND/);
  });
});

describe('audiences do-not-reach upload', () => {
  it('uploads emails and phone numbers built from named columns', async () => {
    const id = audience('do_not_reach_lists');
    const file = path.join(dir, 'dnr.tsv');
    fs.writeFileSync(
      file,
      'name\tmail\tmobile\nAda\tada@example.com\t+44 20 7946 0958\nBob\tbob@example.com\t\nCy\t\t+1 415 555 2671\n',
    );
    const r = await t.run([
      'audiences',
      'do-not-reach',
      'upload',
      id,
      file,
      '--column',
      'email=mail',
      '--column',
      'phone_number=mobile',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(summary(r.stdout)).toMatchObject({ read: 3, valid: 3, acknowledged: 3 });
    expect(size(id, 'do_not_reach_lists')).toBe(3);
  });
});
