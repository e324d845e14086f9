// The README as a newcomer uses it (issue 10): the Quickstart's blocks run as written (the
// sandbox started exactly as shown, then the tour through bash with `xctl` on PATH, then each
// long-running command until Ctrl-C), and every command of the tree appears in the reference.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { spawnCli, type LongRun } from '../helpers/receiver.js';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const quickstart = readme.slice(readme.indexOf('## Quickstart against the sandbox'), readme.indexOf('## Conventions'));
const blocks = [...quickstart.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

let dir: string;
let binDir: string;
let sandbox: LongRun;
let env: Record<string, string>;

beforeAll(async () => {
  dir = tempDir('xctl-readme-');
  binDir = path.join(dir, 'bin');
  fs.mkdirSync(binDir);
  fs.writeFileSync(path.join(binDir, 'xctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  env = { XCTL_CONFIG_DIR: path.join(dir, 'config'), PATH: `${binDir}:${process.env.PATH}` };
  // Block 1, as written: `xctl sandbox start --configure` (profile "sandbox" by default)
  const start = blocks[0]!
    .split('\n')[0]!
    .replace(/\s+#.*$/, '')
    .trim()
    .split(/\s+/);
  expect(start.slice(0, 1)).toEqual(['xctl']);
  sandbox = spawnCli(start.slice(1), env);
  await sandbox.waitStdout(/Ctrl-C stops it/);
});

afterAll(async () => {
  expect(await sandbox.stop()).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
});

function bash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const full: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('XCTL_')) full[k] = v;
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: dir,
      env: { ...full, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('README Quickstart', () => {
  it('has the three blocks: start, the tour, the long-running commands', () => {
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toMatch(/^xctl sandbox start --configure/);
  });

  it('the tour runs as written, every line succeeding, and reaches each feature', async () => {
    const r = await bash(blocks[1]!);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('@xctl_dev'); // auth status
    expect(r.stdout).toContain('"screen_name": "xctl_dev"'); // the raw signed call
    expect(r.stdout).toMatch(/sandbox cats\tcats/); // the stream rule
    expect(r.stdout).toMatch(/Spring card\tIMAGE_WEBSITE/); // the card
    expect(r.stdout).toMatch(/Newsletter\t2\n/); // the uploaded audience holds two users
    expect(r.stdout).toMatch(/Replay consolidation/); // the changelog
    for (const feature of [
      'auth',
      'request',
      'activity',
      'sandbox trigger',
      'stream',
      'webhooks',
      'ads',
      'audiences',
      'changelog',
    ]) {
      expect(blocks[1], feature).toMatch(new RegExp(`^xctl ${feature}|\\$\\(xctl ${feature}`, 'm'));
    }
  });

  it('each long-running command starts and stops on Ctrl-C', async () => {
    const lines = blocks[2]!
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter(Boolean);
    expect(lines).toEqual([
      'xctl activity stream --backfill-minutes 5',
      'xctl webhooks listen --register',
      'xctl auth login',
    ]);
    const full = { ...env, XCTL_PROFILE: 'sandbox' };
    const stream = spawnCli(lines[0]!.split(' ').slice(1), full);
    await stream.waitStdout(/"event_type":"profile\.update\.bio"/); // the event the tour triggered
    expect(await stream.stop()).toBe(0);
    const listen = spawnCli(lines[1]!.split(' ').slice(1), full);
    await listen.waitStderr(/registered webhook \d+/);
    expect(await listen.stop()).toBe(0);
    // a test has no browser to open: the same command with --no-browser, interrupted while waiting
    const login = spawnCli([...lines[2]!.split(' ').slice(1), '--no-browser'], full);
    await login.waitStderr(/Waiting for the browser/);
    expect(await login.stop()).toBe(130);
  });
});

describe('README sections', () => {
  it('the raw-request examples run as written', async () => {
    const sec = readme.slice(readme.indexOf('<!-- section: request -->'), readme.indexOf('<!-- /section: request -->'));
    const block = sec.match(/```sh\n([\s\S]*?)```/)![1]!;
    const r = await bash(`export XCTL_PROFILE=sandbox\n${block}`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"name": "Raw"');
    expect(r.stderr).toMatch(/HTTP 200/); // -i
  });
});

describe('README command reference', () => {
  it('names every command of the tree (compared with --help of every group)', async () => {
    const { buildProgram, loadGroups, GROUPS } = await import('../../src/program.js');
    const program = buildProgram('0');
    await loadGroups(program, Object.keys(GROUPS));
    type Cmd = { name(): string; commands: Cmd[]; _defaultCommandName?: string };
    const leaves = (c: Cmd, p: string[]): string[][] => {
      const subs = c.commands.filter((s) => s.name() !== 'help' && s.name() !== c._defaultCommandName);
      return subs.length ? subs.flatMap((s) => leaves(s, [...p, s.name()])) : [p];
    };
    const lines = readme.split('\n');
    const missing = leaves(program as unknown as Cmd, []).filter((leaf) => {
      const parent = `xctl ${leaf.slice(0, -1).join(' ')}`.trimEnd();
      const word = new RegExp(`(^|[\\s|\\[])${leaf[leaf.length - 1]}($|[\\s|\\]])`);
      return !lines.some((l) => l.includes(parent) && word.test(l.slice(l.indexOf(parent) + parent.length)));
    });
    expect(missing.map((l) => l.join(' '))).toEqual([]);
  });
});
