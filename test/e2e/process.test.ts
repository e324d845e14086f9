// The CLI as a process: CI pipelines (exit codes, no TTY, PTY logs, deadlines), signals and
// closed pipes, failing fast on a dead host, no HOME. Merged from ci-pipelines, signals,
// fail-fast and no-home; dry-run-cli's dry runs are in-process (test/unit/refusals.test.ts).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, afterAll, beforeAll } from 'vitest';
import {
  BIN,
  runCli,
  tempDir,
  useTestSandbox,
  type RunResult,
  startTestSandbox,
  type TestSandbox,
  sandboxEnv,
  tempDir as makeDir,
  xctl,
} from '../helpers/cli.js';
import { appBearer, spawnCli, type LongRun } from '../helpers/receiver.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { seedAudience } from '../helpers/audiences.js';

// Issue 33's four CI pipelines, run as a CI runner runs them: no TTY (or a PTY nobody reads, via
// `script`), CI=true, secrets from the environment, a read-only HOME, a fresh state folder.
// 1. nightly audience refresh, 2. campaign launch with pause-on-failure, 3. webhook deploy
// check, 4. analytics export. Each step names what today's main did instead.
const t = useTestSandbox();
let n = 0;

/** A fresh custom audience in sandbox state. */
const audience = (): string => seedAudience(t, `ci${++n}${Date.now().toString(36)}`);
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
    let r = await t.run(xctl`audiences upload ${id} ${emails(dir, 'seed.txt', 0, 480)} --type email -o json`);
    expect(r.code, r.stderr).toBe(0);
    const seeded = (await members(id)).requests;
    const state = path.join(dir, 'state'); // the CI cache: empty on a new runner
    const exportA = emails(dir, 'export-a.txt', 0, 430);

    // main: exit 0 with first_sync:true, removes:0 - the audience still held 480.
    r = await t.run(xctl`audiences sync ${id} ${exportA} --type email --state-dir ${state} -o json`);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ error: { type: 'UsageError', exit_code: 2 } });
    expect(r.stderr).toContain(`audience ${id} already holds 480 members and this is its first sync from here`);
    expect((await members(id)).requests).toBe(seeded);

    // --adopt: add only; the summary says exactly how many could not be reconciled, even with -q,
    // and the exit is 5, not 0: the audience does not equal the file (issue 40 item 3).
    r = await t.run(xctl`audiences sync ${id} ${exportA} --type email --state-dir ${state} --adopt -q -o json`);
    expect(r.code, r.stderr).toBe(5);
    expect(json(r)).toMatchObject({
      status: 'diverged',
      first_sync: true,
      adds: 430,
      removes: 0,
      adopted_size: 480,
      unreconciled: 50,
      audience_size: 480,
      snapshot_members: 430,
    });
    expect(r.stderr).toContain(
      'warning: --adopt: the audience held 480 members before this first sync; those not in the file stay',
    );
    const snap = path.join(state, 'audiences', 'default', t.sb.seed.account_id, `${id}.email.snapshot`);
    expect(fs.existsSync(snap)).toBe(true);
    expect(
      fs.existsSync(path.join(t.configDir, 'audiences', 'default', t.sb.seed.account_id, `${id}.email.snapshot`)),
    ).toBe(false);

    // A truncated export (the producer died; pipefail fires only after): main removed 330 of 430.
    const sent = (await members(id)).requests;
    r = await t.run(xctl`audiences sync ${id} ${emails(dir, 'truncated.txt', 0, 100)} --type email -o json`, {
      env: { XCTL_STATE_DIR: state },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      "this sync would remove 330 of the audience's 430 members (76.7%), more than --max-removes 10% (43) allows by default when no terminal is attached; nothing was sent",
    );
    expect((await members(id)).requests).toBe(sent);

    // Half the rows malformed: main counted 240 rejected rows as 240 members who left.
    r = await t.run(xctl`audiences sync ${id} ${emails(dir, 'broken.txt', 0, 190, 240)} --type email -o json`, {
      env: { XCTL_STATE_DIR: state },
    });
    expect(r.code, r.stderr).toBe(5); // not 0: the audience is 240 over its file (issue 40 item 6)
    expect(json(r)).toMatchObject({ rejected: 240, removes: 0, kept_for_rejects: 240, adds: 0 });
    expect(r.stderr).toMatch(/240 members not in the file were kept because 240 rows were rejected \(line 191 /);
    expect(r.stderr).toContain('240 members not in the input are kept, not removed: 240 rows were rejected');
    expect((await members(id)).size).toBe(480);

    // A run that gives up part-way still prints its summary on stdout (main: stdout empty).
    await t.admin('POST', '/_sandbox/faults', { error_rate: 1, status: 503, match: '/users$' });
    r = await t.run(xctl`audiences sync ${id} ${emails(dir, 'more.txt', 0, 440)} --type email -o json`, {
      env: { XCTL_STATE_DIR: state },
      timeoutMs: 60_000,
    });
    await t.admin('DELETE', '/_sandbox/faults');
    expect(r.code, r.stderr).toBe(4);
    expect(json(r)).toMatchObject({ status: 'partial', adds: 10, acknowledged: 0 });
    r = await t.run(xctl`audiences sync ${id} ${emails(dir, 'more.txt', 0, 440)} --type email --plan -o json`, {
      env: { XCTL_STATE_DIR: state },
    });
    expect(r.code).toBe(10);
    expect(json(r)).toMatchObject({ resumed_batches: 1, requests: 1 });
  }, 120_000);

  it('a plan saved on the pull request is applied on merge exactly, or refused when the input or the snapshot moved', async () => {
    const dir = tempDir('xctl-ci-');
    t.dirs.push(dir);
    const id = audience();
    const env = { XCTL_STATE_DIR: path.join(dir, 'state') };
    let r = await t.run(xctl`audiences sync ${id} ${emails(dir, 'day1.txt', 0, 100)} --type email`, { env });
    expect(r.code, r.stderr).toBe(0);
    const day2 = emails(dir, 'day2.txt', 5, 105);
    const plan = path.join(dir, 'plan.json');
    r = await t.run(xctl`audiences sync ${id} ${day2} --type email --plan --out ${plan} -o json`, { env });
    expect(r.code, r.stderr).toBe(10);
    expect(json(r)).toMatchObject({ adds: 5, removes: 5 });
    const before = (await members(id)).requests;

    // The export was rewritten between review and merge: refused, nothing sent.
    fs.appendFileSync(day2, 'late@example.com\n');
    r = await t.run(xctl`audiences sync --apply ${plan} -o json`, { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('no longer holds the members the plan was made from: nothing was sent');
    expect((await members(id)).requests).toBe(before);

    // The same members again (reordered rows are the same plan): applied.
    fs.writeFileSync(day2, Array.from({ length: 100 }, (_, k) => `user${104 - k}@example.com`).join('\n') + '\n');
    r = await t.run(xctl`audiences sync --apply ${plan} -o json`, { env });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r)).toMatchObject({ adds: 5, removes: 5, acknowledged: 10 });

    // Applied once, the snapshot moved on: the same plan cannot be sent twice.
    r = await t.run(xctl`audiences sync --apply ${plan}`, { env });
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
    const r = await t.run(xctl`audiences sync ${id} ${emails(dir, 'a.txt', 0, 10)} --type email --json`, {
      env: { XCTL_STATE_DIR: dir },
    });
    expect(r.code).toBe(75);
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ error: { type: 'RetryLaterError', exit_code: 75 } });
  });
});

describe('pipeline 2: campaign launch on a runner with a PTY (script), CI=true', () => {
  it('a delete without --yes fails at once with the --yes hint instead of waiting at [y/N]', async () => {
    const listed = JSON.parse((await t.run(xctl`ads campaigns list --json id`)).stdout) as Array<{
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
        ...xctl`audiences upload ${id} ${input} --type email --batch-size 500 --concurrency 1`,
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
      JSON.parse((await t.run(xctl`ads funding-instruments list --json id`)).stdout) as Array<{ id: string }>
    )[0]!.id;
    const launch = xctl`ads campaigns create --name ${`ci-launch-${Date.now()}`} --funding-instrument-id ${fi}
      --daily-budget-amount-local-micro 5000000 --if-exists return --json id`;
    const a = await t.run(launch);
    expect(a.code, a.stderr).toBe(0);
    const b = await t.run(launch);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual(JSON.parse(a.stdout));
    const dry = await t.run(
      xctl`ads campaigns update ${(JSON.parse(a.stdout) as { id: string }).id} --entity-status PAUSED --dry-run`,
    );
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, method: 'PUT', params: { entity_status: 'PAUSED' } });

    const name = `ci-aud-${Date.now()}`;
    const made = JSON.parse((await t.run(xctl`audiences create --name ${name} --json id`)).stdout) as {
      id: string;
    };
    const again = await t.run(xctl`audiences create --name ${name} --json`);
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
      let r = await readOnlyHome(home, xctl`webhooks list -o json`, env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
      expect(r.stderr).not.toContain('bug');

      const input = path.join(tempDir('xctl-in-'), 'in.txt');
      t.dirs.push(path.dirname(input));
      fs.writeFileSync(input, 'a@example.com\n');
      const id = audience();
      r = await readOnlyHome(home, xctl`audiences upload ${id} ${input} --type email`, env);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `error: cannot create the upload journal in ${path.join(home, '.config', 'xctl', 'journals')}`,
      );
      expect(r.stderr).toContain('hint: pass --journal FILE, or --state-dir DIR (XCTL_STATE_DIR) for every journal');
      const state = path.dirname(input);
      r = await readOnlyHome(home, xctl`audiences upload ${id} ${input} --type email -o json`, {
        ...env,
        XCTL_STATE_DIR: state,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ acknowledged: 1 });
    },
  );

  it('errors are JSON whenever the output is (XCTL_OUTPUT=json, --jq); an empty XCTL_BASE_URL is named', async () => {
    let r = await t.run(xctl`webhooks delete nope1`, { env: { XCTL_OUTPUT: 'json' } });
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ error: { exit_code: r.code } });
    r = await t.run(xctl`ads campaigns get zz --jq .id`);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ error: { type: 'ApiError', status: 404, exit_code: 1 } });
    r = await t.run(xctl`webhooks list --nope`, { env: { XCTL_OUTPUT: 'json' } });
    expect([r.code, JSON.parse(r.stderr)]).toEqual([
      2,
      { error: { type: 'UsageError', message: "unknown option '--nope'", exit_code: 2 } },
    ]);
    // main: fell back to the production host in silence.
    r = await t.run(xctl`webhooks list`, { env: { XCTL_BASE_URL: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: XCTL_BASE_URL is set but empty');
    // main: exit 3, as if the credentials were wrong.
    r = await t.run(xctl`ads campaigns list --account nope123`);
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
    const bad = await runCli(xctl`webhooks list`, { env: { ...t.env, XCTL_MAX_WAIT: 'soon' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-wait must be a whole number of seconds (got "soon")');
    const verbose = await runCli(xctl`webhooks list`, {
      env: { ...t.env, XCTL_VERBOSE: '1', XCTL_BEARER_TOKEN: 'AAAA-bearer-token' },
    });
    expect(verbose.stderr).toContain('> GET ');
    expect(verbose.stderr).not.toContain('AAAA-bearer-token');
  });
});

// ---- signals ----
// Ctrl-C (issue 10): every long-running command stops cleanly on SIGINT with its documented exit
// code and no stack trace: `sandbox start` and `webhooks listen` and `activity stream` end
// normally (0), `auth login` waiting for the browser is interrupted (130), an upload saves its
// journal and exits 130 (covered with its journal in audience-members.test.ts; here: no stack).
describe('signals', () => {
  let t: TestSandbox;
  let env: Record<string, string>;
  let dir: string;
  beforeAll(async () => {
    t = await startTestSandbox();
    const s = t.sb.seed;
    env = { ...t.env, XCTL_BEARER_TOKEN: await appBearer(s.base_url, s.api_key, s.api_secret) };
    dir = tempDir('xctl-sig-');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function clean(l: LongRun): void {
    const all = l.stdout() + l.stderr();
    expect(all).not.toMatch(/\n\s+at |node:internal|Unhandled|Error:/);
    expect(l.stderr()).not.toMatch(/^error: /m);
  }

  describe('SIGINT', () => {
    it('sandbox start, webhooks listen, activity stream: exit 0; auth login: 130; all without a stack trace', async () => {
      const runs: Array<[LongRun, RegExp, number]> = [
        [spawnCli(xctl`sandbox start --port 0`, { XCTL_CONFIG_DIR: tempDir() }), /Ctrl-C stops it/, 0],
        [spawnCli(xctl`webhooks listen --register --yes`, env), /registered webhook \d+/, 0],
        [spawnCli(xctl`activity stream`, env), /connected to the activity stream/, 0],
        [
          spawnCli(xctl`auth login --no-browser`, { ...env, XCTL_CONFIG_DIR: tempDir() }),
          /Waiting for the browser/,
          130,
        ],
      ];
      // sandbox start prints its banner (base URL, credentials) on stdout, the others on stderr
      await Promise.all(runs.map(([l, ready], i) => (i === 0 ? l.waitStdout(ready) : l.waitStderr(ready))));
      const codes = await Promise.all(runs.map(([l]) => l.stop('SIGINT')));
      expect(codes).toEqual(runs.map(([, , code]) => code));
      for (const [l] of runs) clean(l);
      // the receiver deleted its webhook on the way out; the sandbox said it stopped
      expect(runs[1]![0].stderr()).toMatch(/deleted webhook \d+/);
      expect(runs[0]![0].stdout() + runs[0]![0].stderr()).toMatch(/sandbox stopped/);
    });

    it('an upload interrupted mid-way exits 130 without a stack trace', async () => {
      const aud = JSON.parse((await t.run(xctl`audiences create --name sigint --json`)).stdout);
      const file = path.join(dir, 'users.txt');
      fs.writeFileSync(file, Array.from({ length: 60_000 }, (_, i) => `user${i}@example.com`).join('\n'));
      await t.admin('POST', '/_sandbox/faults', { latency_ms: 300, match: '/users$' });
      try {
        const up = spawnCli(
          xctl`audiences upload ${aud.id} ${file} --type email --batch-size 500 --concurrency 1 --journal
            ${path.join(dir, 'j')}`,
          env,
        );
        // 120 batches at 300 ms each: the upload is surely mid-way after a second and a half
        await new Promise((r) => setTimeout(r, 1500));
        expect(await up.stop('SIGINT')).toBe(130);
        clean(up);
      } finally {
        await t.admin('DELETE', '/_sandbox/faults');
      }
    });
  });

  describe('a closed pipe (`xctl ... | head`)', () => {
    it('stops quietly with exit 0, no EPIPE stack trace', async () => {
      const results = await Promise.all(
        [xctl`completion zsh`, ['changelog'], xctl`ads ref placements`].map(
          (args) =>
            new Promise<{ code: number | null; stderr: string }>((resolve) => {
              const child = spawn(process.execPath, [BIN, ...args], {
                env: { ...process.env, ...t.env },
                stdio: ['ignore', 'pipe', 'pipe'],
              });
              child.stdout.destroy(); // the reader is gone before the first write
              let stderr = '';
              child.stderr.on('data', (d) => (stderr += d));
              child.on('close', (code) => resolve({ code, stderr }));
            }),
        ),
      );
      for (const r of results) {
        expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
        expect(r.code).toBe(0);
      }
    });
  });
});

// ---- fail-fast ----
// Issue 20 item 12: a stopped sandbox (nothing listens on its loopback port) and an unknown host
// fail at once with a hint, instead of seconds of retries per command.
describe('fail-fast', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = makeDir();
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('a stopped sandbox: exit 1 at once, no retries, and the hint says how to start it again', async () => {
    const sb = await startSandbox({ port: 0 });
    const s = sb.seed;
    await sb.close();
    // Real back-off (no XCTL_RETRY_BASE_MS): a retry would show in the time taken.
    const env = sandboxEnv(s, tempDir());
    const started = Date.now();
    const r = await runCli(xctl`ads campaigns list`, { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: connection refused by ${new URL(s.base_url).host}`);
    expect(r.stderr).toMatch(/hint: nothing listens on .*is the sandbox running\? .*`xctl sandbox start --configure`/);
    expect(r.stderr).not.toMatch(/retrying/);
    // the default retries waited 0.25-0.5 + 0.5-1 + 1-2 + 2-4 s; a run without them takes well under that
    expect(Date.now() - started).toBeLessThan(3_750);
  });

  it('an unknown host: exit 1 at once, no retries, a hint about --base-url', async () => {
    const r = await runCli(xctl`request /2/users/me --auth none`, {
      env: { XCTL_CONFIG_DIR: tempDir(), XCTL_BASE_URL: 'https://no-such-host.invalid' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: cannot resolve host no-such-host\.invalid/);
    expect(r.stderr).toMatch(/hint: check --base-url/);
    expect(r.stderr).not.toMatch(/retrying/);
  });
});

// ---- no-home ----
// HOME unset (`env -u HOME`, issue 33): os.homedir() then falls back to the passwd entry's home,
// a folder nobody named. With credentials from the environment, xctl writes nothing there - no
// cached bearer, no lock file, no compile cache - and commands still work. The passwd entry is
// made to point at an empty temporary folder (a private mount namespace binds a copy of
// /etc/passwd over it), so the test sees exactly what lands there. (On the main of before this
// change: .config/xctl/config.json with the bearer, and .cache/xctl/compile-cache.)
describe('no-home', () => {
  const t = useTestSandbox();

  /** Files under `dir`, relative. */
  function filesUnder(dir: string): string[] {
    return (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
  }

  /** The uid's passwd line with its home replaced, bound over /etc/passwd in a private namespace. */
  function passwdWithHome(home: string, dir: string): string {
    const uid = os.userInfo().uid;
    const lines = fs.readFileSync('/etc/passwd', 'utf8').split('\n');
    const out = lines.map((l) => {
      const f = l.split(':');
      if (f.length < 7 || Number(f[2]) !== uid) return l;
      f[5] = home;
      return f.join(':');
    });
    const file = path.join(dir, 'passwd');
    fs.writeFileSync(file, out.join('\n'));
    return file;
  }

  const canBind =
    process.platform === 'linux' &&
    spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind /etc/hostname /etc/hostname'], { stdio: 'ignore' }).status ===
      0;

  /** `node bin/xctl.js args` with HOME unset, the passwd home being `home`. */
  function runWithoutHome(
    home: string,
    passwd: string,
    args: string[],
    env: Record<string, string>,
    command: string[] = [process.execPath, BIN],
  ): Promise<RunResult> {
    const clean: Record<string, string> = { NO_COLOR: '1', PATH: process.env.PATH ?? '/usr/bin:/bin', ...env };
    const script = 'mount --bind "$1" /etc/passwd && shift && exec "$@"';
    return new Promise((resolve) => {
      const child = spawn('unshare', ['-m', 'sh', '-c', script, 'sh', passwd, ...command, ...args], {
        env: clean,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  describe.skipIf(!canBind)('HOME unset', () => {
    it('credentials from the environment: commands work, nothing is written to the passwd home', async () => {
      const dir = tempDir('xctl-nohome-');
      t.dirs.push(dir);
      const home = path.join(dir, 'passwd-home');
      fs.mkdirSync(home);
      const passwd = passwdWithHome(home, dir);
      const { XCTL_CONFIG_DIR: _named, ...env } = t.env; // no folder named: only the environment
      // The namespace works: node's idea of the home is the planted one.
      const probe = await runWithoutHome(home, passwd, ['-e', 'console.log(require("os").homedir())'], env, [
        process.execPath,
      ]);
      expect(probe.stdout.trim(), probe.stderr).toBe(home);
      // There is no store file to show: `config path` says why instead of printing the passwd home's.
      const where = await runWithoutHome(home, passwd, xctl`config path`, env);
      expect(where.code, where.stderr).toBe(2);
      expect(where.stdout).toBe('');
      expect(where.stderr).toContain(
        'HOME is not set and no folder was named for the profile store: there is no store file',
      );

      // The bearer is obtained from the key and secret in the environment, used, and not cached.
      let r = await runWithoutHome(home, passwd, xctl`webhooks list -o json`, env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
      expect(r.stderr).toContain(
        'note: the bearer token is not cached: HOME is not set (set XCTL_CONFIG_DIR to cache it)',
      );
      r = await runWithoutHome(home, passwd, xctl`ads accounts list -o json`, env);
      expect(r.code, r.stderr).toBe(0);
      // A command that needs no credentials at all.
      r = await runWithoutHome(home, passwd, xctl`audiences hash --value Ada@example.com`, {});
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^[0-9a-f]{64}\n$/);
      // A journal needs a folder: the error names the flags instead of writing to the passwd home.
      fs.writeFileSync(path.join(dir, 'a.txt'), 'a@example.com\n');
      r = await runWithoutHome(home, passwd, xctl`audiences upload ca1 ${path.join(dir, 'a.txt')} --type email`, env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('HOME is not set and no folder was named for the upload journal: nothing was sent');
      expect(r.stderr).toContain('pass --state-dir DIR or --journal FILE');
      // Writing a profile says where the folder must be named.
      r = await runWithoutHome(home, passwd, xctl`config set account_id abc`, env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('HOME is not set and no folder was named for the profile store: nothing was written');

      expect(filesUnder(home)).toEqual([]);
    }, 60_000);
  });
});
