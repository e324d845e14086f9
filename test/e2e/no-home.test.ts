// HOME unset (`env -u HOME`, issue 33): os.homedir() then falls back to the passwd entry's home,
// a folder nobody named. With credentials from the environment, xctl writes nothing there - no
// cached bearer, no lock file, no compile cache - and commands still work. The passwd entry is
// made to point at an empty temporary folder (a private mount namespace binds a copy of
// /etc/passwd over it), so the test sees exactly what lands there. (On the main of before this
// change: .config/xctl/config.json with the bearer, and .cache/xctl/compile-cache.)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir, useTestSandbox, type RunResult } from '../helpers/cli.js';

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
    const where = await runWithoutHome(home, passwd, ['config', 'path'], env);
    expect(where.code, where.stderr).toBe(2);
    expect(where.stdout).toBe('');
    expect(where.stderr).toContain(
      'HOME is not set and no folder was named for the profile store: there is no store file',
    );

    // The bearer is obtained from the key and secret in the environment, used, and not cached.
    let r = await runWithoutHome(home, passwd, ['webhooks', 'list', '-o', 'json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toContain(
      'note: the bearer token is not cached: HOME is not set (set XCTL_CONFIG_DIR to cache it)',
    );
    r = await runWithoutHome(home, passwd, ['ads', 'accounts', 'list', '-o', 'json'], env);
    expect(r.code, r.stderr).toBe(0);
    // A command that needs no credentials at all.
    r = await runWithoutHome(home, passwd, ['audiences', 'hash', '--value', 'Ada@example.com'], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    // A journal needs a folder: the error names the flags instead of writing to the passwd home.
    fs.writeFileSync(path.join(dir, 'a.txt'), 'a@example.com\n');
    r = await runWithoutHome(
      home,
      passwd,
      ['audiences', 'upload', 'ca1', path.join(dir, 'a.txt'), '--type', 'email'],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('HOME is not set and no folder was named for the upload journal: nothing was sent');
    expect(r.stderr).toContain('pass --state-dir DIR or --journal FILE');
    // Writing a profile says where the folder must be named.
    r = await runWithoutHome(home, passwd, ['config', 'set', 'account_id', 'abc'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('HOME is not set and no folder was named for the profile store: nothing was written');

    expect(filesUnder(home)).toEqual([]);
  }, 60_000);
});
