// Hostile local inputs (issue 14): files that point at each other, inputs that change under a
// resumed upload, bytes that are not UTF-8, a full disk, a browser that would inherit secrets.
// Each case runs the real CLI against a real sandbox and failed on the code before the fix.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { BIN, startTestSandbox, tempDir, type TestSandbox } from '../helpers/cli.js';
import { spawnCli, waitFor } from '../helpers/receiver.js';

let t: TestSandbox;
let dir: string;

beforeAll(async () => {
  t = await startTestSandbox();
  dir = tempDir('xctl-hostile-input-');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const p = (n: string) => path.join(dir, n);
let n = 0;

/** A fresh custom audience in sandbox state. */
function audience(): string {
  const id = `hi${++n}${Date.now().toString(36)}`;
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
const size = (id: string) => t.sb.app.state.collection('custom_audiences').get(id)!.audience_size as number;
const _requests = async () =>
  (await t.admin<{ counts: Record<string, number> }>('GET', '/_sandbox/state')).counts.audience_users ?? 0;
function emails(count: number, name: string): string {
  const f = p(name);
  fs.writeFileSync(
    f,
    Array.from({ length: count }, (_, i) => `user${String(i).padStart(7, '0')}@example.com`).join('\n') + '\n',
  );
  return f;
}
const summary = (stdout: string) => JSON.parse(stdout) as Record<string, number>;

describe('auth login', () => {
  it('the browser it opens does not inherit the XCTL_* secrets', async () => {
    const dump = p('browser-env.txt');
    const browser = p('browser.sh');
    fs.writeFileSync(browser, `#!/bin/sh\nenv > ${dump}.tmp && mv ${dump}.tmp ${dump}\n`, { mode: 0o755 });
    const env = { ...t.env, XCTL_CONFIG_DIR: tempDir(), BROWSER: browser, DISPLAY: '', XDG_CURRENT_DESKTOP: '' };
    const r = await t.run(['auth', 'login', '--timeout', '2s'], { env });
    expect(r.stderr).toMatch(/Open this URL/);
    expect(fs.existsSync(dump), r.stderr).toBe(true);
    const seen = fs.readFileSync(dump, 'utf8');
    expect(seen).toMatch(/^PATH=/m);
    expect(seen).not.toMatch(/^XCTL_/m);
    for (const s of [t.sb.seed.api_secret, t.sb.seed.access_token_secret]) expect(seen).not.toContain(s);
  });
});

describe('output files that are the input', () => {
  it('--rejects, --out or --journal naming the input (or a hard link to it) is refused before anything is read or sent', async () => {
    const id = audience();
    const input = emails(50, 'self.txt');
    const before = fs.readFileSync(input, 'utf8');
    fs.linkSync(input, p('self-link.txt'));
    const cases = [
      ['--rejects', input],
      ['--rejects', p('self-link.txt')],
      ['--journal', input],
      ['--dry-run', '--out', path.join(dir, '.', 'self.txt')],
    ];
    for (const c of cases) {
      const r = await t.run(['audiences', 'upload', id, input, '--type', 'email', ...c]);
      expect([r.code, r.stderr], c.join(' ')).toEqual([2, expect.stringMatching(/is the input file/)]);
    }
    const j = p('self.journal');
    fs.writeFileSync(j, '');
    const rj = await t.run(['audiences', 'upload', id, input, '--type', 'email', '--journal', j, '--rejects', j]);
    expect([rj.code, rj.stderr]).toEqual([2, expect.stringMatching(/--rejects .* is the journal/)]);
    expect(fs.readFileSync(input, 'utf8')).toBe(before);
    expect(size(id)).toBe(0);
  });

  it('--out and --rejects in a folder that does not exist: exit 2 before anything is sent', async () => {
    const id = audience();
    const input = emails(20, 'nofolder.txt');
    for (const c of [
      ['--rejects', p('missing/r.csv')],
      ['--dry-run', '--out', p('missing/o.jsonl')],
    ]) {
      const r = await t.run(['audiences', 'upload', id, input, '--type', 'email', ...c]);
      expect([r.code, r.stderr], c.join(' ')).toEqual([
        2,
        expect.stringMatching(/the folder .*missing does not exist/),
      ]);
      expect(r.stderr).not.toMatch(/Unhandled|\n\s+at /);
    }
    expect(size(id)).toBe(0);
  });

  it('an input cut short while it is read fails the run instead of reporting success', async () => {
    const id = audience();
    // far larger than what the reader holds ahead of the senders, so it is mid-file when cut
    const input = emails(400_000, 'shrinks.txt');
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 300 });
    try {
      const s = spawnCli(
        ['audiences', 'upload', id, input, '--type', 'email', '--concurrency', '2', '--batch-size', '5000'],
        t.env,
      );
      await waitFor(() => size(id) > 0, 'the first batch', 400);
      fs.truncateSync(input, 1_000_000);
      const code = await new Promise<number | null>((r) => s.child.on('close', r));
      expect([code, s.stderr()]).toEqual([
        1,
        expect.stringMatching(/shrank while it was read: \d+ of its 9600000 bytes arrived/),
      ]);
    } finally {
      await t.admin('POST', '/_sandbox/faults', { latency_ms: 0 });
    }
  });
});

describe('a resumed upload and a changed input', () => {
  it('a record changed in the middle of a batch is sent again on resume, and the summary says so', async () => {
    const id = audience();
    const input = emails(20_000, 'resume.txt');
    const journal = p('resume.journal');
    const args = [
      'audiences',
      'upload',
      id,
      input,
      '--type',
      'email',
      '--batch-size',
      '1000',
      '--journal',
      journal,
      '-o',
      'json',
    ];
    const first = await t.run(args);
    expect(first.code, first.stderr).toBe(0);
    expect(size(id)).toBe(20_000);
    // same size, same first and last 64 KiB, same first user of every batch: only the digest sees it
    fs.writeFileSync(input, fs.readFileSync(input, 'utf8').replace('user0010055@', 'userX010055@'));
    const again = await t.run(args);
    expect(again.code, again.stderr).toBe(0);
    expect(summary(again.stdout)).toMatchObject({
      resumed_batches: 19,
      changed_batches: 1,
      sent: 1000,
      acknowledged: 20_000,
    });
    expect(again.stderr).toMatch(/1 batch acknowledged before had changed in the input and was sent again/);
    expect(size(id)).toBe(20_001);
  });

  it('stdin: a changed batch is sent again too (its fingerprint is only "stdin")', async () => {
    const id = audience();
    const text = Array.from({ length: 30 }, (_, i) => `s${i}@example.com`).join('\n') + '\n';
    const journal = p('stdin.journal');
    const args = [
      'audiences',
      'upload',
      id,
      '-',
      '--type',
      'email',
      '--batch-size',
      '10',
      '--journal',
      journal,
      '-o',
      'json',
    ];
    expect((await t.run(args, { input: text })).code).toBe(0);
    const again = await t.run(args, { input: text.replace('s15@', 'sX5@') });
    expect(again.code, again.stderr).toBe(0);
    expect(summary(again.stdout)).toMatchObject({ resumed_batches: 2, changed_batches: 1, sent: 10 });
    expect(size(id)).toBe(31);
  });

  it('two uploads of the same input: the second is refused while the first holds the journal', async () => {
    const id = audience();
    const input = emails(20_000, 'locked.txt');
    const journal = p('locked.journal');
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 300 });
    try {
      const a = spawnCli(
        [
          'audiences',
          'upload',
          id,
          input,
          '--type',
          'email',
          '--concurrency',
          '1',
          '--batch-size',
          '1000',
          '--journal',
          journal,
        ],
        t.env,
      );
      await waitFor(() => fs.existsSync(journal + '.lock'), 'the lock', 400);
      const b = await t.run(['audiences', 'upload', id, input, '--type', 'email', '--journal', journal]);
      expect([b.code, b.stderr]).toEqual([
        75,
        expect.stringMatching(/another upload \(pid \d+\) is using the journal/),
      ]);
      expect(await a.stop()).toBe(130);
    } finally {
      await t.admin('POST', '/_sandbox/faults', { latency_ms: 0 });
    }
    expect(fs.existsSync(journal + '.lock')).toBe(false);
    // a lock left by a killed run (its process is gone) is taken over
    fs.writeFileSync(journal + '.lock', '999999999');
    const c = await t.run([
      'audiences',
      'upload',
      id,
      input,
      '--type',
      'email',
      '--concurrency',
      '1',
      '--batch-size',
      '1000',
      '--journal',
      journal,
    ]);
    expect(c.code, c.stderr).toBe(0);
    expect(size(id)).toBe(20_000);
  });

  it('a full disk while journaling stops with exit 4 and the resume hint, no stack trace', async () => {
    const id = audience();
    const input = emails(400, 'full.txt');
    const journal = p('full.journal');
    // a file size limit of 2 KiB: the journal header and a few acknowledgements fit, then writes
    // fail (EFBIG; SIGXFSZ is ignored, and an ignored signal stays ignored across exec)
    const env = { ...process.env, ...t.env, NO_COLOR: '1' } as Record<string, string>;
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const c = spawn(
        'sh',
        [
          '-c',
          `trap '' XFSZ; ulimit -f 2; exec "${process.execPath}" "${BIN}" "$@"`,
          'sh',
          'audiences',
          'upload',
          id,
          input,
          '--type',
          'email',
          '--batch-size',
          '2',
          '--concurrency',
          '1',
          '--journal',
          journal,
        ],
        { env },
      );
      let stderr = '';
      c.stderr.on('data', (d) => (stderr += d));
      c.on('close', (code) => resolve({ code, stderr }));
    });
    expect([r.code, r.stderr]).toEqual([
      4,
      expect.stringMatching(/cannot write the journal .*full\.journal \((EFBIG|ENOSPC)/),
    ]);
    expect(r.stderr).toMatch(/re-run the same command to resume from the journal/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const resumed = await t.run([
      'audiences',
      'upload',
      id,
      input,
      '--type',
      'email',
      '--batch-size',
      '2',
      '--concurrency',
      '1',
      '--journal',
      journal,
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(size(id)).toBe(400);
  });
  it('a corrupted journal, or one that is a folder, names the file and how to fix it', async () => {
    const id = audience();
    const input = emails(10, 'corrupt.txt');
    const bad = p('corrupt.journal');
    fs.writeFileSync(bad, '\u0000\u0001garbage{');
    const r = await t.run(['audiences', 'upload', id, input, '--type', 'email', '--journal', bad]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(`${bad} is not an upload journal`)]);
    expect(r.stderr).toMatch(/hint: pass --restart/);
    const folder = p('folder.journal');
    fs.mkdirSync(folder);
    const f = await t.run(['audiences', 'upload', id, input, '--type', 'email', '--journal', folder]);
    expect([f.code, f.stderr]).toEqual([2, expect.stringContaining(folder)]);
    expect(f.stderr).not.toMatch(/\n\s+at |looks like a bug/);
    expect(size(id)).toBe(0);
  });
});

describe('records that are not what they seem', () => {
  it('values that are not valid UTF-8 are rejected with their line, not hashed as U+FFFD', async () => {
    const input = p('latin1.txt');
    fs.writeFileSync(
      input,
      Buffer.concat([
        Buffer.from('ok@example.com\n'),
        Buffer.from('caf\xe9@example.com\n', 'latin1'),
        Buffer.from('caf\xe8@example.com\n', 'latin1'),
      ]),
    );
    const rejects = p('latin1-rejects.csv');
    const r = await t.run([
      'audiences',
      'upload',
      'x1',
      input,
      '--type',
      'email',
      '--dry-run',
      '--rejects',
      rejects,
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(summary(r.stdout)).toMatchObject({ read: 3, valid: 1, rejected: 2 });
    expect(fs.readFileSync(rejects, 'utf8')).toBe(
      'line,column,reason\n2,email,not valid UTF-8\n3,email,not valid UTF-8\n',
    );
    const csv = p('latin1.csv');
    fs.writeFileSync(
      csv,
      Buffer.concat([
        Buffer.from('email,handle\n'),
        Buffer.from('caf\xe9@example.com,', 'latin1'),
        Buffer.from('good\n'),
      ]),
    );
    const c = await t.run([
      'audiences',
      'upload',
      'x1',
      csv,
      '--dry-run',
      '--rejects',
      rejects,
      '--out',
      p('latin1.jsonl'),
      '-o',
      'json',
    ]);
    expect(c.code, c.stderr).toBe(0);
    expect(fs.readFileSync(rejects, 'utf8')).toBe('line,column,reason\n2,email,not valid UTF-8\n');
  });

  it('a row with one bad identifier keeps its good ones; --strict-rows rejects the row', async () => {
    const input = p('multi.csv');
    fs.writeFileSync(input, 'email,twitter_id,phone_number\nok@example.com,12a,+14155552671\nonly@example.com,,\n');
    const out = p('multi.jsonl');
    const rejects = p('multi-rejects.csv');
    const r = await t.run([
      'audiences',
      'upload',
      'x1',
      input,
      '--dry-run',
      '--out',
      out,
      '--rejects',
      rejects,
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const users = JSON.parse(fs.readFileSync(out, 'utf8').trim())[0].params.users;
    expect(users).toHaveLength(2);
    expect(Object.keys(users[0]).sort()).toEqual(['email', 'phone_number']);
    expect(fs.readFileSync(rejects, 'utf8')).toBe('line,column,reason\n2,twitter_id,not a numeric user id\n');
    const strict = await t.run([
      'audiences',
      'upload',
      'x1',
      input,
      '--dry-run',
      '--out',
      out,
      '--rejects',
      rejects,
      '--strict-rows',
      '-o',
      'json',
    ]);
    expect(strict.code, strict.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(out, 'utf8').trim())[0].params.users).toHaveLength(1);
    expect(summary(strict.stdout)).toMatchObject({ read: 2, valid: 1, rejected: 1 });
  });

  it('stdin sniffs a header line as a file does', async () => {
    const r = await t.run(['audiences', 'upload', 'x1', '-', '--type', 'email', '--dry-run', '-o', 'json'], {
      input: 'email\na@example.com\nb@example.com\n',
    });
    expect(r.code, r.stderr).toBe(0);
    // the header is skipped; --type already says what it holds, so no "header: email -> email"
    expect(r.stderr).not.toMatch(/header:/);
    expect(summary(r.stdout)).toMatchObject({ read: 2, valid: 2, rejected: 0 });
    const bare = await t.run(['audiences', 'upload', 'x1', '-', '--dry-run', '-o', 'json'], {
      input: 'Email\na@example.com\n',
    });
    expect(bare.code, bare.stderr).toBe(0);
    expect(summary(bare.stdout)).toMatchObject({ read: 1, valid: 1 });
  });
});

describe('the profile store', () => {
  const set = (cfg: string, profile: string, secret = 'the-secret-value') =>
    t.run(['auth', 'set', '--api-key', `key-${profile}`, '--api-secret', '-', '--profile', profile], {
      env: { XCTL_CONFIG_DIR: cfg, XCTL_API_KEY: undefined, XCTL_API_SECRET: undefined },
      input: secret + '\n',
    });

  it("a folder others can write to, another user's folder or a symlinked store file is refused", async () => {
    const open = tempDir('xctl-store-');
    fs.chmodSync(open, 0o777);
    const r = await set(open, 'a');
    expect([r.code, r.stderr]).toEqual([
      1,
      expect.stringMatching(/refusing to use the config folder .*others can write to it \(mode 777\)/),
    ]);
    expect(r.stderr).toContain(`chmod 700 ${open}`);
    expect(fs.existsSync(path.join(open, 'config.json'))).toBe(false);

    const linked = tempDir('xctl-store-');
    const elsewhere = p('planted.json');
    fs.writeFileSync(elsewhere, JSON.stringify({ profiles: { default: { base_url: 'http://127.0.0.1:1' } } }), {
      mode: 0o600,
    });
    fs.symlinkSync(elsewhere, path.join(linked, 'config.json'));
    const l = await t.run(['config', 'list'], { env: { XCTL_CONFIG_DIR: linked } });
    expect([l.code, l.stderr]).toEqual([
      1,
      expect.stringMatching(/profile store .*config\.json: it is a symbolic link/),
    ]);

    if (process.getuid?.() === 0) {
      const theirs = tempDir('xctl-store-');
      fs.chownSync(theirs, 65534, 65534);
      const o = await set(theirs, 'a');
      expect([o.code, o.stderr]).toEqual([1, expect.stringMatching(/belongs to another user \(uid 65534\)/)]);
    }
  });

  it('concurrent auth set into different profiles loses none', async () => {
    const cfg = tempDir('xctl-store-');
    const names = Array.from({ length: 8 }, (_, i) => `p${i}`);
    const results = await Promise.all(names.map((n) => set(cfg, n)));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const stored = JSON.parse(fs.readFileSync(path.join(cfg, 'config.json'), 'utf8')) as {
      profiles: Record<string, { api_key: string }>;
    };
    expect(Object.keys(stored.profiles).sort()).toEqual(names);
    for (const n of names) expect(stored.profiles[n]!.api_key).toBe(`key-${n}`);
    expect(fs.statSync(path.join(cfg, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('a corrupted store names the file and how to fix it', async () => {
    const cfg = tempDir('xctl-store-');
    fs.writeFileSync(path.join(cfg, 'config.json'), '{"profiles": {', { mode: 0o600 });
    const r = await t.run(['config', 'list'], { env: { XCTL_CONFIG_DIR: cfg } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(path.join(cfg, 'config.json'));
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(r.stderr).toMatch(/hint: .*(fix|remove)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
