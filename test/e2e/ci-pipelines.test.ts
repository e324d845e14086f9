// Issue 33's four CI pipelines, run as a CI runner runs them: no TTY (or a PTY nobody reads, via
// `script`), CI=true, secrets from the environment, a read-only HOME, a fresh state folder.
// 1. nightly audience refresh, 2. campaign launch with pause-on-failure, 3. webhook deploy
// check, 4. analytics export. Each step names what today's main did instead.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir, useTestSandbox, type RunResult } from '../helpers/cli.js';

const t = useTestSandbox();
let n = 0;

function audience(): string {
  const id = `ci${++n}${Date.now().toString(36)}`;
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
const members = async (id: string) =>
  (
    await t.admin<{ data: { size: number; requests: number } }>(
      'GET',
      `/_sandbox/audience-members/custom_audiences/${id}`,
    )
  ).data;
const emails = (dir: string, name: string, from: number, to: number, bad = 0): string => {
  const lines = Array.from({ length: to - from }, (_, k) => `user${from + k}@example.com`);
  for (let k = 0; k < bad; k++) lines.push(`broken-row-${k}`);
  const f = path.join(dir, name);
  fs.writeFileSync(f, lines.join('\n') + '\n');
  return f;
};
const json = (r: RunResult) => JSON.parse(r.stdout) as Record<string, unknown>;

/** `unshare -m` with the folder bind-mounted read-only over itself, then the CLI (EROFS on any write). */
function readOnlyHome(home: string, args: string[], env: Record<string, string | undefined>): Promise<RunResult> {
  const script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"';
  return runWith('unshare', ['-m', 'sh', '-c', script, 'sh', home, process.execPath, BIN, ...args], env);
}
const canUnshare =
  spawnSync(
    'unshare',
    [
      '-m',
      'sh',
      '-c',
      'd=$(mktemp -d) && mount --bind "$d" "$d" && mount -o remount,bind,ro "$d" "$d" && ! touch "$d/x" 2>/dev/null',
    ],
    { stdio: 'ignore' },
  ).status === 0;

/** Spawns any program with a clean environment (like runCli); stdin stays open until the end. */
function runWith(
  cmd: string,
  args: string[],
  extra: Record<string, string | undefined>,
  timeoutMs = 20_000,
): Promise<RunResult & { ms: number }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('XCTL_') && k !== 'CI') env[k] = v;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

describe('pipeline 1: nightly audience refresh (no TTY, a fresh state folder per runner)', () => {
  it('refuses a first sync it could not reconcile, adopts on request, guards removals, keeps members of rejected rows', async () => {
    const dir = tempDir('xctl-ci-');
    t.dirs.push(dir);
    const id = audience();
    let r = await t.run(['audiences', 'upload', id, emails(dir, 'seed.txt', 0, 480), '--type', 'email', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const seeded = (await members(id)).requests;
    const state = path.join(dir, 'state'); // the CI cache: empty on a new runner
    const exportA = emails(dir, 'export-a.txt', 0, 430);

    // main: exit 0 with first_sync:true, removes:0 - the audience still held 480.
    r = await t.run(['audiences', 'sync', id, exportA, '--type', 'email', '--state-dir', state, '-o', 'json']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ error: { type: 'UsageError', exit_code: 2 } });
    expect(r.stderr).toContain(`audience ${id} already holds 480 members and this is its first sync from here`);
    expect((await members(id)).requests).toBe(seeded);

    // --adopt: add only; the summary says how many could not be reconciled, even with -q.
    r = await t.run([
      'audiences',
      'sync',
      id,
      exportA,
      '--type',
      'email',
      '--state-dir',
      state,
      '--adopt',
      '-q',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r)).toMatchObject({ first_sync: true, adds: 430, removes: 0, adopted_size: 480, unreconciled: 50 });
    expect(r.stderr).toContain(
      'warning: --adopt: the audience held 480 members before this first sync; at least 50 of them are not in the file and stay',
    );
    const snap = path.join(state, 'audiences', 'default', t.sb.seed.account_id, `${id}.email.snapshot`);
    expect(fs.existsSync(snap)).toBe(true);
    expect(
      fs.existsSync(path.join(t.configDir, 'audiences', 'default', t.sb.seed.account_id, `${id}.email.snapshot`)),
    ).toBe(false);

    // A truncated export (the producer died; pipefail fires only after): main removed 330 of 430.
    const sent = (await members(id)).requests;
    r = await t.run(['audiences', 'sync', id, emails(dir, 'truncated.txt', 0, 100), '--type', 'email', '-o', 'json'], {
      env: { XCTL_STATE_DIR: state },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      "this sync would remove 330 of the audience's 430 members (76.7%), more than --max-removes 10% (43) allows by default when no terminal is attached; nothing was sent",
    );
    expect((await members(id)).requests).toBe(sent);

    // Half the rows malformed: main counted 240 rejected rows as 240 members who left.
    r = await t.run(
      ['audiences', 'sync', id, emails(dir, 'broken.txt', 0, 190, 240), '--type', 'email', '-o', 'json'],
      { env: { XCTL_STATE_DIR: state } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(json(r)).toMatchObject({ rejected: 240, removes: 0, kept_for_rejects: 240, adds: 0 });
    expect(r.stderr).toContain('240 members not in the input are kept, not removed: 240 rows were rejected');
    expect((await members(id)).size).toBe(480);

    // A run that gives up part-way still prints its summary on stdout (main: stdout empty).
    await t.admin('POST', '/_sandbox/faults', { error_rate: 1, status: 503, match: '/users$' });
    r = await t.run(['audiences', 'sync', id, emails(dir, 'more.txt', 0, 440), '--type', 'email', '-o', 'json'], {
      env: { XCTL_STATE_DIR: state },
      timeoutMs: 60_000,
    });
    await t.admin('DELETE', '/_sandbox/faults');
    expect(r.code, r.stderr).toBe(4);
    expect(json(r)).toMatchObject({ status: 'partial', adds: 10, acknowledged: 0 });
    r = await t.run(
      ['audiences', 'sync', id, emails(dir, 'more.txt', 0, 440), '--type', 'email', '--plan', '-o', 'json'],
      { env: { XCTL_STATE_DIR: state } },
    );
    expect(r.code).toBe(10);
    expect(json(r)).toMatchObject({ resumed_batches: 1, requests: 1 });
  }, 120_000);

  it('a plan saved on the pull request is applied on merge exactly, or refused when the input or the snapshot moved', async () => {
    const dir = tempDir('xctl-ci-');
    t.dirs.push(dir);
    const id = audience();
    const env = { XCTL_STATE_DIR: path.join(dir, 'state') };
    let r = await t.run(['audiences', 'sync', id, emails(dir, 'day1.txt', 0, 100), '--type', 'email'], { env });
    expect(r.code, r.stderr).toBe(0);
    const day2 = emails(dir, 'day2.txt', 5, 105);
    const plan = path.join(dir, 'plan.json');
    r = await t.run(['audiences', 'sync', id, day2, '--type', 'email', '--plan', '--out', plan, '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(10);
    expect(json(r)).toMatchObject({ adds: 5, removes: 5 });
    const before = (await members(id)).requests;

    // The export was rewritten between review and merge: refused, nothing sent.
    fs.appendFileSync(day2, 'late@example.com\n');
    r = await t.run(['audiences', 'sync', '--apply', plan, '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('no longer holds the members the plan was made from: nothing was sent');
    expect((await members(id)).requests).toBe(before);

    // The same members again (reordered rows are the same plan): applied.
    fs.writeFileSync(day2, Array.from({ length: 100 }, (_, k) => `user${104 - k}@example.com`).join('\n') + '\n');
    r = await t.run(['audiences', 'sync', '--apply', plan, '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r)).toMatchObject({ adds: 5, removes: 5, acknowledged: 10 });

    // Applied once, the snapshot moved on: the same plan cannot be sent twice.
    r = await t.run(['audiences', 'sync', '--apply', plan], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the snapshot of this audience changed since the plan was saved');
  });

  it('a held lock is "retry later" (exit 75), not a usage error', async () => {
    const dir = tempDir('xctl-ci-');
    t.dirs.push(dir);
    const id = audience();
    const lockDir = path.join(dir, 'audiences', 'default', t.sb.seed.account_id);
    fs.mkdirSync(lockDir, { recursive: true });
    fs.writeFileSync(path.join(lockDir, `${id}.email.lock`), String(process.pid)); // alive: this test
    const r = await t.run(['audiences', 'sync', id, emails(dir, 'a.txt', 0, 10), '--type', 'email', '--json'], {
      env: { XCTL_STATE_DIR: dir },
    });
    expect(r.code).toBe(75);
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ error: { type: 'RetryLaterError', exit_code: 75 } });
  });
});

describe('pipeline 2: campaign launch on a runner with a PTY (script), CI=true', () => {
  it('a delete without --yes fails at once with the --yes hint instead of waiting at [y/N]', async () => {
    const listed = JSON.parse((await t.run(['ads', 'campaigns', 'list', '--json', 'id'])).stdout) as Array<{
      id: string;
    }>;
    const target = listed[0]!.id;
    const cmd = [process.execPath, BIN, 'ads', 'campaigns', 'delete', target].map((a) => `'${a}'`).join(' ');
    // main: sat at the prompt until killed (the timeout below).
    const r = await runWith(
      'script',
      ['-qec', cmd, '/dev/null'],
      { ...t.env, CI: 'true', NO_COLOR: undefined, TERM: 'xterm' },
      10_000,
    );
    expect(r.code, r.stdout).toBe(2);
    expect(r.ms).toBeLessThan(8_000);
    expect(r.stdout).toContain('refusing without confirmation');
    expect(r.stdout).toContain('hint: pass --yes');
    expect(r.stdout).not.toContain('[y/N]'); // no prompt
    expect(r.stdout).not.toContain('\u001b['); // no colour
  });
});

describe('pipeline 2a: an upload in a PTY log (script), CI=true', () => {
  it('progress is periodic JSON lines, never \\r redraws or colour (main: a bar redrawn into the log)', async () => {
    const dir = tempDir('xctl-ci-');
    t.dirs.push(dir);
    const id = audience();
    const input = emails(dir, 'pty.txt', 0, 3000);
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 300, match: '/users$' });
    try {
      const cmd = [
        process.execPath,
        BIN,
        'audiences',
        'upload',
        id,
        input,
        '--type',
        'email',
        '--batch-size',
        '500',
        '--concurrency',
        '1',
      ]
        .map((a) => `'${a}'`)
        .join(' ');
      const r = await runWith(
        'script',
        ['-qec', cmd, '/dev/null'],
        { ...t.env, CI: 'true', NO_COLOR: undefined, TERM: 'xterm', XCTL_PROGRESS_INTERVAL_MS: '200' },
        30_000,
      );
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout.replace(/\r\n/g, '\n')).not.toContain('\r'); // a PTY ends lines with \r\n
      expect(r.stdout).not.toContain('\u001b[');
      expect(r.stdout).toMatch(/^\{"progress":\{"read":\d+,"acknowledged":\d+/m);
    } finally {
      await t.admin('DELETE', '/_sandbox/faults');
    }
  });
});

describe('pipeline 2b: the launch step run twice', () => {
  it('--if-exists return gives back the same campaign (main: a second campaign); a duplicate audience carries existing_id', async () => {
    const fi = (
      JSON.parse((await t.run(['ads', 'funding-instruments', 'list', '--json', 'id'])).stdout) as Array<{ id: string }>
    )[0]!.id;
    const launch = [
      'ads',
      'campaigns',
      'create',
      '--name',
      `ci-launch-${Date.now()}`,
      '--funding-instrument-id',
      fi,
      '--daily-budget-amount-local-micro',
      '5000000',
      '--if-exists',
      'return',
      '--json',
      'id',
    ];
    const a = await t.run(launch);
    expect(a.code, a.stderr).toBe(0);
    const b = await t.run(launch);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual(JSON.parse(a.stdout));
    const dry = await t.run([
      'ads',
      'campaigns',
      'update',
      (JSON.parse(a.stdout) as { id: string }).id,
      '--entity-status',
      'PAUSED',
      '--dry-run',
    ]);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, method: 'PUT', params: { entity_status: 'PAUSED' } });

    const name = `ci-aud-${Date.now()}`;
    const made = JSON.parse((await t.run(['audiences', 'create', '--name', name, '--json', 'id'])).stdout) as {
      id: string;
    };
    const again = await t.run(['audiences', 'create', '--name', name, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr.trim())).toMatchObject({ error: { type: 'DuplicateError', existing_id: made.id } });
  });
});

describe('pipeline 3: webhook deploy check (secrets in the environment, a read-only HOME)', () => {
  it.skipIf(!canUnshare)(
    'webhooks list needs no writable HOME (main: EROFS, "a bug in xctl"); upload says where to put its journal',
    async () => {
      const home = tempDir('xctl-home-');
      t.dirs.push(home);
      const env = {
        ...t.env,
        HOME: home,
        XCTL_CONFIG_DIR: undefined,
        XDG_CONFIG_HOME: undefined,
        XDG_CACHE_HOME: undefined,
        XCTL_BEARER_TOKEN: undefined,
      };
      let r = await readOnlyHome(home, ['webhooks', 'list', '-o', 'json'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
      expect(r.stderr).not.toContain('bug');

      const input = path.join(tempDir('xctl-in-'), 'in.txt');
      t.dirs.push(path.dirname(input));
      fs.writeFileSync(input, 'a@example.com\n');
      const id = audience();
      r = await readOnlyHome(home, ['audiences', 'upload', id, input, '--type', 'email'], env);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `error: cannot create the upload journal in ${path.join(home, '.config', 'xctl', 'journals')}`,
      );
      expect(r.stderr).toContain('hint: pass --journal FILE, or --state-dir DIR (XCTL_STATE_DIR) for every journal');
      const state = path.dirname(input);
      r = await readOnlyHome(home, ['audiences', 'upload', id, input, '--type', 'email', '-o', 'json'], {
        ...env,
        XCTL_STATE_DIR: state,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ acknowledged: 1 });
    },
  );

  it('errors are JSON whenever the output is (XCTL_OUTPUT=json, --jq); an empty XCTL_BASE_URL is named', async () => {
    let r = await t.run(['webhooks', 'delete', 'nope1'], { env: { XCTL_OUTPUT: 'json' } });
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ error: { exit_code: r.code } });
    r = await t.run(['ads', 'campaigns', 'get', 'zz', '--jq', '.id']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ error: { type: 'ApiError', status: 404, exit_code: 1 } });
    r = await t.run(['webhooks', 'list', '--nope'], { env: { XCTL_OUTPUT: 'json' } });
    expect([r.code, JSON.parse(r.stderr)]).toEqual([
      2,
      { error: { type: 'UsageError', message: "unknown option '--nope'", exit_code: 2 } },
    ]);
    // main: fell back to the production host in silence.
    r = await t.run(['webhooks', 'list'], { env: { XCTL_BASE_URL: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: XCTL_BASE_URL is set but empty');
    // main: exit 3, as if the credentials were wrong.
    r = await t.run(['ads', 'campaigns', 'list', '--account', 'nope123']);
    expect(r.code).toBe(1);
  });
});

describe('pipeline 4: analytics export with a whole-command deadline', () => {
  it('--deadline bounds every attempt and wait together: exit 75 on time (main: 5 tries over 10.5 s)', async () => {
    await t.admin('POST', '/_sandbox/faults', { latency_ms: 3000 });
    try {
      const r = await runWith(
        process.execPath,
        [BIN, 'ads', 'campaigns', 'list', '-o', 'csv'],
        { ...t.env, XCTL_TIMEOUT: '1', XCTL_DEADLINE: '3s', XCTL_RETRY_BASE_MS: '500' },
        20_000,
      );
      expect(r.code, r.stderr).toBe(75);
      expect(r.ms).toBeLessThan(5_500);
      expect(r.stderr).toContain('error: the --deadline of 3s passed before the command finished');
      expect(r.stdout).toBe('');
    } finally {
      await t.admin('DELETE', '/_sandbox/faults');
    }
  });

  it('--version --json names the version, the commit and Node for the log', async () => {
    const r = await runCli(['--version', '--json']);
    expect(r.code).toBe(0);
    const v = JSON.parse(r.stdout) as Record<string, string>;
    expect(v).toEqual({
      version: (JSON.parse(fs.readFileSync(path.join(BIN, '../../package.json'), 'utf8')) as { version: string })
        .version,
      commit: expect.stringMatching(/^([0-9a-f]{40}|unknown)$/),
      node: process.versions.node,
    });
  });

  it('every global flag has an environment variable (XCTL_MAX_WAIT, XCTL_QUIET, XCTL_NO_PROGRESS...)', async () => {
    const bad = await runCli(['webhooks', 'list'], { env: { ...t.env, XCTL_MAX_WAIT: 'soon' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-wait must be a whole number of seconds (got "soon")');
    const verbose = await runCli(['webhooks', 'list'], {
      env: { ...t.env, XCTL_VERBOSE: '1', XCTL_BEARER_TOKEN: 'AAAA-bearer-token' },
    });
    expect(verbose.stderr).toContain('> GET ');
    expect(verbose.stderr).not.toContain('AAAA-bearer-token');
  });
});
