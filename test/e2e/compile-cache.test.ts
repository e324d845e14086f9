// bin/xctl.js starts the bundle's scripts from V8's code cache: one file per command, written
// after the command ran. The cache may only ever make a call faster: whatever is wrong with it,
// the command still runs, from source. These tests run the real bin against real cache folders.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { otherUser } from '../helpers/other-user.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function fresh(): string {
  const d = tempDir('xctl-cc-');
  dirs.push(d);
  // Readable by the second user of the tests that have one (tempDir makes it 0700).
  fs.chmodSync(d, 0o755);
  return d;
}
const build = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/cli/build.json'), 'utf8')) as { id: string };
const prefix = `${build.id}-${process.version}-${process.arch}-`;
const CONFIG_PATH = `${prefix}config.path.v8`;
const cacheFiles = (dir: string) =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((n) => n.endsWith('.v8'))
        .sort()
    : [];
const run = (cache: string, home: string, argv = ['config', 'path']) =>
  runCli(argv, { env: { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') } });
const ok = (home: string) => ({ code: 0, stdout: `${path.join(home, 'cfg', 'config.json')}\n`, stderr: '' });

/** The chunks named in a cache file, each with its data's size (the launcher's layout). */
function chunksIn(file: string): Record<string, number> {
  const data = fs.readFileSync(file);
  return JSON.parse(data.toString('latin1', 4, 4 + data.readUInt32LE(0))) as Record<string, number>;
}

/** What V8 was given for each script the bin compiled, and whether it took it (a preload). */
function traced(home: string): { env: Record<string, string>; scripts: () => unknown[] } {
  const log = path.join(home, 'scripts.log');
  const preload = path.join(home, 'preload.cjs');
  fs.writeFileSync(
    preload,
    [
      "const vm = require('node:vm');",
      'const Real = vm.Script;',
      'vm.Script = class extends Real {',
      '  constructor(src, o) {',
      '    super(src, o);',
      "    const script = require('node:path').basename(o.filename);",
      '    const seen = { script, data: !!o.cachedData, rejected: this.cachedDataRejected };',
      `    require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(seen) + '\\n');`,
      '  }',
      '};',
    ].join('\n'),
  );
  return {
    env: { NODE_OPTIONS: `--require ${preload}` },
    scripts: () => {
      const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
      fs.rmSync(log);
      return lines.map((l) => JSON.parse(l) as unknown);
    },
  };
}

describe('code cache', () => {
  it("writes a command's compiled code once, 0600 in a 0700 folder; the next call runs every script from it", async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    const trace = traced(home);
    const env = { ...trace.env, XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') };
    const first = await runCli(['config', 'path'], { env });
    expect(first).toEqual(ok(home));
    expect(cacheFiles(cache)).toEqual([CONFIG_PATH]);
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
    const file = path.join(cache, CONFIG_PATH);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const compiled = trace.scripts() as Array<{ script: string; data: boolean }>;
    expect(compiled[0]).toEqual({ script: 'main.cjs', data: false });
    // Every script the command ran is in its file (main.cjs, the config group's chunk...).
    expect(Object.keys(chunksIn(file)).sort()).toEqual(compiled.map((s) => s.script).sort());
    expect(compiled.length).toBeGreaterThan(2);
    const before = fs.statSync(file);
    expect(await runCli(['config', 'path'], { env })).toEqual(first);
    expect(trace.scripts()).toEqual(compiled.map((s) => ({ script: s.script, data: true, rejected: false })));
    // V8 accepted the data: not written again (a new file by rename).
    const after = fs.statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it('a file per command: help, another verb and an id or option each stay out of a verb’s file', async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    for (const argv of [
      ['config', 'path', '--help'],
      ['config', 'path'],
      ['config', 'get', 'base_url', '-o', 'json'],
      ['auth', 'profiles', 'list', '--help'],
      ['auth', 'profiles', 'list'],
      ['auth', 'profiles', 'use', 'someprofile'],
    ])
      await run(cache, home, argv);
    expect(cacheFiles(cache)).toEqual(
      [
        'auth.profiles.list',
        'auth.profiles.list.help',
        'auth.profiles.use',
        'config.get',
        'config.path',
        'config.path.help',
      ]
        .map((k) => `${prefix}${k}.v8`)
        .sort(),
    );
  });

  it("a call that loads other chunks adds theirs to the command's file and keeps the rest", async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    const file = path.join(cache, `${prefix}config.list.v8`);
    // The table renderer and jq are chunks of their own, loaded for `-o table` and `--jq` only.
    expect((await run(cache, home, ['config', 'list', '-o', 'table'])).code).toBe(0);
    const table = Object.keys(chunksIn(file));
    expect((await run(cache, home, ['config', 'list', '--jq', '.'])).code).toBe(0);
    const both = Object.keys(chunksIn(file));
    expect(both).toEqual(expect.arrayContaining(table));
    expect(both.length).toBeGreaterThan(table.length);
    // Each call now runs from the file: it is not written again.
    const before = fs.statSync(file);
    for (const argv of [
      ['-o', 'table'],
      ['--jq', '.'],
    ])
      expect((await run(cache, home, ['config', 'list', ...argv])).code).toBe(0);
    expect(fs.statSync(file).mtimeMs).toBe(before.mtimeMs);
  });

  it('runs from source when the cached data is garbage, and replaces it', async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    fs.mkdirSync(cache, { mode: 0o700 });
    const file = path.join(cache, CONFIG_PATH);
    fs.writeFileSync(file, Buffer.alloc(4096, 7), { mode: 0o600 });
    expect(await run(cache, home)).toEqual(ok(home));
    expect(fs.readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(Object.keys(chunksIn(file))).toContain('main.cjs');
  });

  it('never reads or writes a folder others can write to, or a symbolic link', async () => {
    const home = fresh();
    const open = path.join(home, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    // Planted data under the name the command would read.
    fs.writeFileSync(path.join(open, CONFIG_PATH), 'planted');
    expect(await run(open, home)).toEqual(ok(home));
    expect(fs.readFileSync(path.join(open, CONFIG_PATH), 'utf8')).toBe('planted');
    expect(cacheFiles(open)).toHaveLength(1);

    const real = path.join(home, 'real');
    fs.mkdirSync(real, { mode: 0o700 });
    const link = path.join(home, 'link');
    fs.symlinkSync(real, link);
    expect(await run(link, home)).toEqual(ok(home));
    expect(cacheFiles(real)).toEqual([]);
  });

  it('XCTL_COMPILE_CACHE=0 reads and writes nothing; the default folder is under XDG_CACHE_HOME', async () => {
    const home = fresh();
    const env = { HOME: home, XDG_CACHE_HOME: path.join(home, 'xdg'), XCTL_CONFIG_DIR: path.join(home, 'cfg') };
    expect(await runCli(['config', 'path'], { env })).toEqual(ok(home));
    const folder = path.join(home, 'xdg', 'xctl', 'compile-cache');
    expect(cacheFiles(folder)).toEqual([CONFIG_PATH]);
    // Off: the file that is there is not read (planted code would print PWNED) ...
    plant(path.join(folder, CONFIG_PATH));
    expect((await runCli(['config', 'path'], { env })).stdout).toBe('PWNED\n');
    const planted = fs.readFileSync(path.join(folder, CONFIG_PATH));
    const off = { env: { ...env, XCTL_COMPILE_CACHE: '0' }, cwd: home };
    expect(await runCli(['config', 'path'], off)).toEqual(ok(home));
    // ... and nothing is written anywhere, for this command or another.
    expect(await runCli(['config', 'get', 'x'], off)).toMatchObject({ code: 2 });
    const written = fs.readdirSync(home, { recursive: true }).filter((n) => String(n).endsWith('.v8'));
    expect(written).toEqual([path.join('xdg', 'xctl', 'compile-cache', CONFIG_PATH)]);
    expect(fs.readFileSync(path.join(folder, CONFIG_PATH)).equals(planted)).toBe(true);
  });

  it("drops other builds' files for this node version when it writes, and keeps other node versions'", async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    fs.mkdirSync(cache, { mode: 0o700 });
    const otherBuild = `0000000000000000-${process.version}-${process.arch}-config.path.v8`;
    const otherNodes = [`${build.id}-v99.0.0-${process.arch}-config.path.v8`, `0000000000000000-v18.0.0-x64-xctl.v8`];
    for (const n of [otherBuild, ...otherNodes]) fs.writeFileSync(path.join(cache, n), 'x', { mode: 0o600 });
    expect(await run(cache, home)).toEqual(ok(home));
    expect(cacheFiles(cache)).toEqual([CONFIG_PATH, ...otherNodes].sort());
  });

  it("keeps this build's 64 newest files, dropping the oldest", async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    fs.mkdirSync(cache, { mode: 0o700 });
    for (let i = 0; i < 64; i++) {
      const f = path.join(cache, `${prefix}old${String(i).padStart(2, '0')}.v8`);
      fs.writeFileSync(f, 'x', { mode: 0o600 });
      fs.utimesSync(f, 1_000_000 + i, 1_000_000 + i);
    }
    expect(await run(cache, home)).toEqual(ok(home));
    const left = cacheFiles(cache);
    expect(left).toHaveLength(64);
    expect(left).toContain(CONFIG_PATH);
    expect(left).not.toContain(`${prefix}old00.v8`);
    expect(left).toContain(`${prefix}old01.v8`);
  });

  it("an error a group's chunk throws is the core's class: main maps it to its exit code, from the cache too", async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    // UsageError, thrown by config/get.ts in the config group's chunk: exit 2, not an internal error's 1.
    for (let i = 0; i < 2; i++) {
      const r = await run(cache, home, ['config', 'get', 'base_url', '-o', 'json']);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr)).toEqual({
        error: { type: 'UsageError', message: '"base_url" is not set in profile "default"', exit_code: 2 },
      });
      expect(r.code).toBe(2);
    }
    expect(cacheFiles(cache)).toEqual([`${prefix}config.get.v8`]);
  });

  it('`completion bash` loads every group: all in one file, and no warning', async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    const r = await run(cache, home, ['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(cacheFiles(cache)).toEqual([`${prefix}completion.bash.v8`]);
    expect(Object.keys(chunksIn(path.join(cache, `${prefix}completion.bash.v8`))).length).toBeGreaterThan(15);
  });
});

// Cached data is code: V8 checks only that it was made for a source of the same length. So a file
// planted where xctl looks runs as xctl. Each test below plants real bytecode of a script that
// prints PWNED, made for a source as long as main.cjs as the launcher compiles it, and shows that
// xctl ignores it; the first shows that the same file, where xctl may trust it, does run (what the
// others guard).
const main = fs.readFileSync(path.join(ROOT, 'dist/cli/main.cjs'), 'latin1');
// The launcher's CommonJS function around the file's text.
const compiledLength = '(function (exports, require, module, __filename, __dirname) {\n'.length + main.length + 3;

/** Writes a cache file whose main.cjs data is a same-length script printing PWNED (this node's). */
function plant(file: string, mode = 0o600, as: string[] = []): void {
  const make = [
    "const vm = require('node:vm');",
    'let s = \'(function () { if (globalThis.p) return; process.stdout.write("PWNED\\\\n"); process.exit(0); })\';',
    `s = s + ' '.repeat(${compiledLength} - s.length);`,
    'const script = new vm.Script(s);',
    'globalThis.p = true;',
    'script.runInThisContext()();',
    'const data = script.createCachedData();',
    'const header = Buffer.from(JSON.stringify({ "main.cjs": data.length }));',
    'const size = Buffer.alloc(4);',
    'size.writeUInt32LE(header.length);',
    `require('node:fs').writeFileSync(${JSON.stringify(file)}, Buffer.concat([size, header, data]));`,
    `require('node:fs').chmodSync(${JSON.stringify(file)}, ${mode});`,
  ].join('\n');
  const r = spawnSync(
    as[0] ?? process.execPath,
    [...as.slice(1), ...(as.length ? [process.execPath] : []), '-e', make],
    {
      encoding: 'utf8',
    },
  );
  expect(r.status, r.stderr).toBe(0);
}

describe('code cache: planted bytecode never runs', () => {
  function privateCache(home: string, parent = home): string {
    const cache = path.join(parent, 'cc');
    fs.mkdirSync(cache, { mode: 0o700 });
    return cache;
  }

  it("the premise: the user's own file in a private folder is trusted, and it is code", async () => {
    const home = fresh();
    const cache = privateCache(home);
    plant(path.join(cache, CONFIG_PATH));
    expect((await run(cache, home)).stdout).toBe('PWNED\n');
  });

  it.skipIf(process.getuid?.() !== 0)("another user's file (root chowns it to nobody) is not read", async () => {
    const home = fresh();
    const cache = privateCache(home);
    const file = path.join(cache, CONFIG_PATH);
    plant(file);
    fs.chownSync(file, 65534, 65534);
    expect(await run(cache, home)).toEqual(ok(home));
  });

  it('a file that group or others can write is not read', async () => {
    const home = fresh();
    const cache = privateCache(home);
    plant(path.join(cache, CONFIG_PATH), 0o622);
    expect(await run(cache, home)).toEqual(ok(home));
  });

  it('a symbolic link in the cache folder is not followed, even to a file of the user', async () => {
    const home = fresh();
    const cache = privateCache(home);
    const elsewhere = path.join(home, 'payload.v8');
    plant(elsewhere);
    fs.symlinkSync(elsewhere, path.join(cache, CONFIG_PATH));
    expect(await run(cache, home)).toEqual(ok(home));
    expect(fs.lstatSync(path.join(cache, CONFIG_PATH)).isSymbolicLink()).toBe(false);
  });

  it('a private folder under one that others can write (not sticky) is not used', async () => {
    const home = fresh();
    const shared = path.join(home, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    const cache = privateCache(home, shared);
    plant(path.join(cache, CONFIG_PATH));
    expect(await run(cache, home)).toEqual(ok(home));
    // ... while a sticky one (like /tmp) is fine: nobody else can rename the user's folder in it.
    fs.chmodSync(shared, 0o1777);
    expect((await run(cache, home)).stdout).toBe('PWNED\n');
  });

  it.skipIf(process.getuid?.() !== 0)('a private folder inside one owned by another user is not used', async () => {
    const home = fresh();
    const theirs = path.join(home, 'theirs');
    fs.mkdirSync(theirs, { mode: 0o755 });
    const cache = privateCache(home, theirs);
    plant(path.join(cache, CONFIG_PATH));
    fs.chownSync(theirs, 65534, 65534);
    expect(await run(cache, home)).toEqual(ok(home));
  });

  // A second uid: a neighbour who made the cache folder first (in a shared sticky folder such as
  // /tmp, where XDG_CACHE_HOME may point) and left their own bytecode in it, as their own files.
  const other = otherUser();
  it.skipIf(typeof other === 'string')(
    "a cache folder another user made, with that user's files in it, is neither read nor written",
    async () => {
      if (typeof other === 'string') return;
      const home = fresh();
      const shared = path.join(home, 'shared');
      fs.mkdirSync(shared);
      fs.chmodSync(shared, 0o1777);
      const cache = path.join(shared, 'cc');
      const made = await other.run(['mkdir', '-m', '0755', cache]);
      expect(made.code, made.stderr).toBe(0);
      const as = ['setpriv', `--reuid=${other.uid}`, `--regid=${other.gid}`, '--clear-groups', '--'];
      plant(path.join(cache, CONFIG_PATH), 0o644, as);
      expect(fs.statSync(path.join(cache, CONFIG_PATH)).uid).toBe(other.uid);
      expect(await run(cache, home)).toEqual(ok(home));
      expect(cacheFiles(cache)).toEqual([CONFIG_PATH]);
      // The premise: the same file is code once the folder and file are the user's own.
      fs.chownSync(cache, process.getuid!(), process.getgid!());
      fs.chownSync(path.join(cache, CONFIG_PATH), process.getuid!(), process.getgid!());
      expect((await run(cache, home)).stdout).toBe('PWNED\n');
    },
  );

  it("another build's or another node version's file is never read (a node upgrade)", async () => {
    const home = fresh();
    const cache = privateCache(home);
    plant(path.join(cache, `0123456789abcdef-${process.version}-${process.arch}-config.path.v8`));
    plant(path.join(cache, `${build.id}-v99.0.0-${process.arch}-config.path.v8`));
    expect(await run(cache, home)).toEqual(ok(home));
    expect(cacheFiles(cache)).toEqual([`${build.id}-v99.0.0-${process.arch}-config.path.v8`, CONFIG_PATH].sort());
  });
});
