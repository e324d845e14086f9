// bin/xctl.js starts the bundled script from V8's code cache: one file per command, written after
// the command's first call. The cache may only ever make a call faster: whatever is wrong with it,
// the command still runs, from source. These tests run the real bin against real cache folders.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function fresh(): string {
  const d = tempDir('xctl-cc-');
  dirs.push(d);
  return d;
}
const build = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/cli/build.json'), 'utf8')) as {
  id: string;
  version: string;
};
const prefix = `${build.id}-${process.version}-${process.arch}-`;
/** `config path` runs main.cjs and the config group's script: a cache file for each. */
const CONFIG_PATH = [`${prefix}config.path.v8`, `${prefix}config.path@group-config.v8`];
const cacheFiles = (dir: string) =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((n) => n.endsWith('.v8'))
        .sort()
    : [];

describe('code cache', () => {
  it("writes a command's compiled code once per script, 0600 in a 0700 folder, and the next call uses it", async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    const env = { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') };
    const first = await runCli(['config', 'path'], { env });
    expect(first.code).toBe(0);
    expect(cacheFiles(cache)).toEqual(CONFIG_PATH);
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
    const files = CONFIG_PATH.map((n) => path.join(cache, n));
    for (const f of files) expect(fs.statSync(f).mode & 0o777).toBe(0o600);
    const before = files.map((f) => fs.statSync(f));
    const second = await runCli(['config', 'path'], { env });
    expect(second).toEqual(first);
    // V8 accepted the data: a rejected cache would have been written again (a new file by rename).
    const after = files.map((f) => fs.statSync(f));
    expect(after.map((a) => [a.ino, a.mtimeMs])).toEqual(before.map((b) => [b.ino, b.mtimeMs]));
  });

  it("a cache per whole command: help, another verb of the noun and an id each stay out of a verb's cache", async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    const env = { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') };
    for (const argv of [
      ['config', 'path', '--help'],
      ['config', 'path'],
      ['auth', 'profiles', 'list', '--help'],
      ['auth', 'profiles', 'list'],
      ['auth', 'profiles', 'use', 'someprofile'],
    ])
      await runCli(argv, { env });
    const main = cacheFiles(cache).filter((n) => !n.includes('@'));
    expect(main).toEqual(
      ['auth.profiles.list', 'auth.profiles.list.help', 'auth.profiles.use', 'config.path', 'config.path.help']
        .map((k) => `${prefix}${k}.v8`)
        .sort(),
    );
  });

  it('runs from source when the cached data is garbage, and replaces it', async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    fs.mkdirSync(cache, { mode: 0o700 });
    const files = CONFIG_PATH.map((n) => path.join(cache, n));
    for (const file of files) fs.writeFileSync(file, Buffer.alloc(4096, 7), { mode: 0o600 });
    const r = await runCli(['config', 'path'], {
      env: { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') },
    });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(path.join(home, 'cfg', 'config.json'));
    for (const file of files) expect(fs.readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
  });

  it('never reads or writes a folder others can write to, or a symbolic link', async () => {
    const home = fresh();
    const open = path.join(home, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    // Planted data under the name the command would read.
    fs.writeFileSync(path.join(open, `${prefix}config.path.v8`), 'planted');
    let r = await runCli(['config', 'path'], {
      env: { XCTL_COMPILE_CACHE: open, XCTL_CONFIG_DIR: path.join(home, 'cfg') },
    });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(open, `${prefix}config.path.v8`), 'utf8')).toBe('planted');
    expect(cacheFiles(open)).toHaveLength(1);

    const real = path.join(home, 'real');
    fs.mkdirSync(real, { mode: 0o700 });
    const link = path.join(home, 'link');
    fs.symlinkSync(real, link);
    r = await runCli(['config', 'path'], {
      env: { XCTL_COMPILE_CACHE: link, XCTL_CONFIG_DIR: path.join(home, 'cfg') },
    });
    expect(r.code).toBe(0);
    expect(cacheFiles(real)).toEqual([]);
  });

  it("a first call borrows another command's data, then writes and uses its own", async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    const env = { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') };
    expect((await runCli(['config', 'get', 'base_url'], { env })).code).toBe(2);
    const lent = [`${prefix}config.get.v8`, `${prefix}config.get@group-config.v8`];
    expect(cacheFiles(cache)).toEqual(lent);
    // What V8 was given for each script, and whether it took it (a preload wraps vm.Script).
    const log = path.join(home, 'scripts.log');
    const preload = path.join(home, 'preload.cjs');
    fs.writeFileSync(
      preload,
      [
        "const vm = require('node:vm');",
        `const LOG = ${JSON.stringify(log)};`,
        'const Real = vm.Script;',
        'vm.Script = class extends Real {',
        '  constructor(src, o) {',
        '    super(src, o);',
        "    const script = require('node:path').basename(o.filename);",
        '    const seen = { script, data: !!o.cachedData, rejected: this.cachedDataRejected };',
        "    require('node:fs').appendFileSync(LOG, JSON.stringify(seen) + '\\n');",
        '  }',
        '};',
      ].join('\n'),
    );
    const traced = { ...env, NODE_OPTIONS: `--require ${preload}` };
    const scripts = () => {
      const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
      fs.rmSync(log);
      return lines.map((l) => JSON.parse(l) as unknown);
    };
    const fromCache = ['main.cjs', 'group-config.cjs'].map((script) => ({
      script,
      data: true,
      rejected: false,
    }));
    const first = await runCli(['config', 'path'], { env: traced });
    const out = `${path.join(home, 'cfg', 'config.json')}\n`;
    expect(first).toEqual({ code: 0, stdout: out, stderr: '' });
    expect(scripts()).toEqual(fromCache);
    expect(cacheFiles(cache)).toEqual([...CONFIG_PATH, ...lent].sort());
    const files = CONFIG_PATH.map((n) => path.join(cache, n));
    const before = files.map((f) => fs.statSync(f));
    expect(await runCli(['config', 'path'], { env: traced })).toEqual(first);
    expect(scripts()).toEqual(fromCache);
    // Its own data was accepted: not written again.
    const after = files.map((f) => fs.statSync(f));
    expect(after.map((a) => [a.ino, a.mtimeMs])).toEqual(before.map((b) => [b.ino, b.mtimeMs]));
  });

  it('XCTL_COMPILE_CACHE=0 writes nothing; the default folder is under XDG_CACHE_HOME', async () => {
    const home = fresh();
    const env = { HOME: home, XDG_CACHE_HOME: path.join(home, 'xdg'), XCTL_CONFIG_DIR: path.join(home, 'cfg') };
    let r = await runCli(['config', 'path'], { env: { ...env, XCTL_COMPILE_CACHE: '0' } });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(home, 'xdg'))).toBe(false);
    r = await runCli(['config', 'path'], { env });
    expect(r.code).toBe(0);
    expect(cacheFiles(path.join(home, 'xdg', 'xctl', 'compile-cache'))).toEqual(CONFIG_PATH);
  });

  it("drops other builds' caches when it writes; --version loads nothing and writes nothing", async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    fs.mkdirSync(cache, { mode: 0o700 });
    fs.writeFileSync(path.join(cache, `0000000000000000-${process.version}-${process.arch}-config.path.v8`), 'old');
    const env = { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') };
    const v = await runCli(['--version'], { env });
    expect(v).toEqual({ code: 0, stdout: `${build.version}\n`, stderr: '' });
    expect(cacheFiles(cache)).toHaveLength(1);
    await runCli(['config', 'path'], { env });
    expect(cacheFiles(cache)).toEqual(CONFIG_PATH);
  });
});

describe('code cache size', () => {
  it('keeps at most 64 files (about 32 commands, a file for main.cjs and one for the group), dropping the oldest', async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    fs.mkdirSync(cache, { mode: 0o700 });
    for (let i = 0; i < 64; i++) {
      const f = path.join(cache, `${prefix}old${String(i).padStart(2, '0')}.v8`);
      fs.writeFileSync(f, 'x', { mode: 0o600 });
      fs.utimesSync(f, 1_000_000 + i, 1_000_000 + i);
    }
    const r = await runCli(['config', 'path'], {
      env: { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') },
    });
    expect(r.code).toBe(0);
    const left = cacheFiles(cache);
    expect(left).toHaveLength(64);
    for (const n of CONFIG_PATH) expect(left).toContain(n);
    expect(left).not.toContain(`${prefix}old00.v8`);
    expect(left).not.toContain(`${prefix}old01.v8`);
    expect(left).toContain(`${prefix}old02.v8`);
  });
});

describe('bundle', () => {
  it('a command loads neither the ES module loader nor node:crypto; the emulator and libphonenumber are files of their own', async () => {
    const home = fresh();
    const list = path.join(home, 'modules.txt');
    const preload = path.join(home, 'preload.cjs');
    fs.writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));`,
    );
    const r = await runCli(['config', 'path'], {
      env: { NODE_OPTIONS: `--require ${preload}`, XCTL_COMPILE_CACHE: '0', XCTL_CONFIG_DIR: path.join(home, 'cfg') },
    });
    expect(r.code).toBe(0);
    const loaded = fs.readFileSync(list, 'utf8').split('\n');
    expect(loaded).toContain('NativeModule vm');
    expect(loaded.filter((m) => /crypto|esm\/(module_job|translators)|fs\/promises/.test(m))).toEqual([]);
    const main = fs.readFileSync(path.join(ROOT, 'dist/cli/main.cjs'), 'latin1');
    // (printing 700 KB on failure helps nobody: booleans)
    expect(main.includes('parsePhoneNumberWithError=')).toBe(false); // libphonenumber's own code
    // node:crypto is required in one place: the loader that its imports go through (bundle.js).
    expect(main.split('require("node:crypto")').length - 1).toBe(1);
    // 0.90 MB with every command group in it; 0.25 MB as the core that each group's script shares
    // (issue 28): what main.ts loads, and what two scripts would both need (the HTTP client,
    // output, the profile store...). A module that grows it past this belongs to one group.
    expect(main.length).toBeLessThan(300_000);
    for (const f of ['sandbox.cjs', 'vendor/libphonenumber-js.cjs'])
      expect(fs.existsSync(path.join(ROOT, 'dist/cli', f)), f).toBe(true);
  });

  it('one script per command group; a module with state is in one script only (main.cjs, the core)', () => {
    const cli = path.join(ROOT, 'dist/cli');
    const groups = fs.readdirSync(cli).filter((n) => /^group-[a-z-]+\.cjs$/.test(n));
    expect(groups).toEqual(expect.arrayContaining(['group-config.cjs', 'group-webhooks.cjs', 'group-ads.cjs']));
    const read = (n: string) => fs.readFileSync(path.join(cli, n), 'latin1');
    // The error classes (main's error mapping checks instanceof) and the runtime are the core's.
    for (const shared of ['XctlError=class', 'UsageError=class', 'function runtimeOf('])
      expect(
        ['main.cjs', ...groups].filter((n) => read(n).includes(shared)),
        shared,
      ).toEqual(['main.cjs']);
    // A group's own code is in its script only: `config get`'s message.
    expect(['main.cjs', ...groups].filter((n) => read(n).includes('is not set in profile'))).toEqual([
      'group-config.cjs',
    ]);
  });

  it("an error a group's script throws is the core's class: main maps it to its exit code", async () => {
    const home = fresh();
    const env = { XCTL_CONFIG_DIR: path.join(home, 'cfg'), XCTL_COMPILE_CACHE: path.join(home, 'cc') };
    // UsageError, thrown by config/get.ts in group-config.cjs: exit 2, not an internal error's 1.
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['config', 'get', 'base_url', '-o', 'json'], { env });
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr)).toEqual({
        error: { type: 'UsageError', message: '"base_url" is not set in profile "default"', exit_code: 2 },
      });
      expect(r.code).toBe(2);
    }
    // The second call ran both scripts from the cache written by the first.
    expect(cacheFiles(path.join(home, 'cc'))).toEqual([
      `${prefix}config.get.v8`,
      `${prefix}config.get@group-config.v8`,
    ]);
  });

  it('`completion bash` runs every group script: a cache file for each, and no warning', async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    const env = { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') };
    const r = await runCli(['completion', 'bash'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const groups = fs.readdirSync(path.join(ROOT, 'dist/cli')).filter((n) => /^group-[a-z-]+\.cjs$/.test(n));
    expect(groups.length).toBeGreaterThan(10);
    expect(cacheFiles(cache)).toEqual(
      [`${prefix}completion.bash.v8`, ...groups.map((g) => `${prefix}completion.bash@${g.slice(0, -4)}.v8`)].sort(),
    );
  });

  it("copies no module's exports at load: builtins, the groups' holder, the core's table", () => {
    const read = (n: string) => fs.readFileSync(path.join(ROOT, 'dist/cli', n), 'latin1');
    const count = (text: string, s: string) => text.split(s).length - 1;
    // esbuild's interop for `import fs from 'node:fs'` is a copy of fs (a getter per export) in
    // each importing module; the ads script had 18 of fs and 13 of path.
    for (const n of ['main.cjs', 'group-webhooks.cjs', 'group-ads.cjs', 'group-request.cjs']) {
      const text = read(n);
      for (const b of ['fs', 'path'])
        expect(count(text, `__toESM(require("node:${b}")`), `${n}: ${b}`).toBeLessThanOrEqual(1);
      // Each stub of a core module would copy a CommonJS holder.
      expect(count(text, '__toESM(require_xctl_holder())'), n).toBe(0);
    }
    // The table hands the namespace itself over: its rows call no copy.
    const main = read('main.cjs');
    const rows = main.match(/"src\/[^"]+\.ts":\(\)=>\(init_[\w$]+\(\),[^)]*\)\)/g) ?? [];
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.filter((r) => r.includes('__toCommonJS'))).toEqual([]);
  });

  it('keeps the script small: no zod locales (290 KB that every ads command would compile)', () => {
    const main = fs.readFileSync(path.join(ROOT, 'dist/cli/main.cjs'), 'latin1');
    expect(main).not.toContain('ltige Eingabe'); // zod's German locale
    expect(main.length).toBeLessThan(1_250_000);
    // Heavy libraries that only some commands need are files of their own.
    for (const lib of ['yaml', 'ora', 'cli-table3', 'open'])
      expect(fs.existsSync(path.join(ROOT, `dist/cli/vendor/${lib}.cjs`))).toBe(true);
    // `const { default: open } = await import('open')` finds the function, as it does unbundled.
    const req = createRequire(import.meta.url);
    for (const lib of ['ora', 'open', 'cli-table3'])
      expect(typeof req(path.join(ROOT, `dist/cli/vendor/${lib}.cjs`)), lib).toBe('function');
  });
});

// Cached data is code: V8 checks only that it was made for a source of the same length. So a file
// planted where xctl looks runs as xctl. Each test below plants real bytecode of a script that
// prints PWNED, made for a source as long as the bundle's, and shows that xctl ignores it; the
// first shows that the same file, where xctl may trust it, does run (what the others guard).
// The same for each script `config path` runs: main.cjs, and the config group's script, whose data
// is a file of its own.
describe.each([
  { script: 'main.cjs', name: `${prefix}config.path.v8` },
  { script: 'group-config.cjs', name: `${prefix}config.path@group-config.v8` },
])('code cache of $script: planted bytecode never runs', ({ script, name }) => {
  const source = fs.readFileSync(path.join(ROOT, 'dist/cli', script), 'latin1');
  // What the launcher compiles: the file as it is, the CommonJS wrapper its first line (bundle.js).
  const wrapped = source.length;
  /** Writes V8 cached data of a same-length script that prints PWNED (made by this node). */
  function plant(file: string, mode = 0o600): void {
    const make = [
      "const vm = require('node:vm');",
      'let s = \'(function () { if (globalThis.p) return; process.stdout.write("PWNED\\\\n"); process.exit(0); })\';',
      `s = s + ' '.repeat(${wrapped} - s.length);`,
      'const script = new vm.Script(s);',
      'globalThis.p = true;',
      'script.runInThisContext()();',
      `require('node:fs').writeFileSync(${JSON.stringify(file)}, script.createCachedData());`,
    ].join('\n');
    const r = spawnSync(process.execPath, ['-e', make], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    fs.chmodSync(file, mode);
  }
  const run = (cache: string, home: string) =>
    runCli(['config', 'path'], { env: { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') } });
  const ok = (home: string) => ({ code: 0, stdout: `${path.join(home, 'cfg', 'config.json')}\n`, stderr: '' });
  function privateCache(home: string, parent = home): string {
    const cache = path.join(parent, 'cc');
    fs.mkdirSync(cache, { mode: 0o700 });
    return cache;
  }

  it('the premise: the user own file in a private folder is trusted, and it is code', async () => {
    const home = fresh();
    const cache = privateCache(home);
    plant(path.join(cache, name));
    expect((await run(cache, home)).stdout).toBe('PWNED\n');
  });

  it.skipIf(process.getuid?.() !== 0)("another user's file (root chowns it to nobody) is not read", async () => {
    const home = fresh();
    const cache = privateCache(home);
    const file = path.join(cache, name);
    plant(file);
    fs.chownSync(file, 65534, 65534);
    expect(await run(cache, home)).toEqual(ok(home));
  });

  it('a file that group or others can write is not read', async () => {
    const home = fresh();
    const cache = privateCache(home);
    plant(path.join(cache, name), 0o622);
    expect(await run(cache, home)).toEqual(ok(home));
  });

  it('a symbolic link in the cache folder is not followed, even to a file of the user', async () => {
    const home = fresh();
    const cache = privateCache(home);
    const elsewhere = path.join(home, 'payload.v8');
    plant(elsewhere);
    fs.symlinkSync(elsewhere, path.join(cache, name));
    expect(await run(cache, home)).toEqual(ok(home));
    expect(fs.lstatSync(path.join(cache, name)).isSymbolicLink()).toBe(false);
  });

  it('a private folder under one that others can write (not sticky) is not used', async () => {
    const home = fresh();
    const shared = path.join(home, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    const cache = privateCache(home, shared);
    plant(path.join(cache, name));
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
    plant(path.join(cache, name));
    fs.chownSync(theirs, 65534, 65534);
    expect(await run(cache, home)).toEqual(ok(home));
  });

  // A command's first call, with no file of its own, borrows another command's data for the
  // same script (the lender): under the same checks as its own file.
  const lender = name.replace('config.path', 'config.get');

  it("a first call runs from another command's data for the same script", async () => {
    const home = fresh();
    const cache = privateCache(home);
    plant(path.join(cache, lender));
    expect((await run(cache, home)).stdout).toBe('PWNED\n');
  });

  it('the command nearest in words is borrowed: `config get` for `config path`', async () => {
    const home = fresh();
    const cache = privateCache(home);
    await run(cache, home);
    fs.renameSync(path.join(cache, name), path.join(cache, lender));
    // Sorted first, but no word in common: not chosen while `config get`'s data is there.
    const stranger = name.replace('config.path', 'auth.whoami');
    plant(path.join(cache, stranger));
    expect(await run(cache, home)).toEqual(ok(home));
    fs.rmSync(path.join(cache, name));
    fs.rmSync(path.join(cache, lender));
    expect((await run(cache, home)).stdout).toBe('PWNED\n');
  });

  it("another command's file that group or others can write is not borrowed", async () => {
    const home = fresh();
    const cache = privateCache(home);
    plant(path.join(cache, lender), 0o620);
    expect(await run(cache, home)).toEqual(ok(home));
  });

  it.skipIf(process.getuid?.() !== 0)("another user's file is not borrowed", async () => {
    const home = fresh();
    const cache = privateCache(home);
    plant(path.join(cache, lender));
    fs.chownSync(path.join(cache, lender), 65534, 65534);
    expect(await run(cache, home)).toEqual(ok(home));
  });

  it("a symbolic link under another command's name is not followed", async () => {
    const home = fresh();
    const cache = privateCache(home);
    const elsewhere = path.join(home, 'payload.v8');
    plant(elsewhere);
    fs.symlinkSync(elsewhere, path.join(cache, lender));
    expect(await run(cache, home)).toEqual(ok(home));
  });

  it("another build's or node version's file of another command is not borrowed", async () => {
    const home = fresh();
    const cache = privateCache(home);
    const other = lender.slice(prefix.length);
    plant(path.join(cache, `0123456789abcdef-${process.version}-${process.arch}-${other}`));
    plant(path.join(cache, `${build.id}-v99.0.0-${process.arch}-${other}`));
    plant(path.join(cache, `${build.id}-${process.version}-arm0-${other}`));
    expect(await run(cache, home)).toEqual(ok(home));
  });

  it("another build's or another node version's file is never read (a node upgrade)", async () => {
    const home = fresh();
    const cache = privateCache(home);
    const other = name.slice(prefix.length);
    plant(path.join(cache, `0123456789abcdef-${process.version}-${process.arch}-${other}`));
    plant(path.join(cache, `${build.id}-v99.0.0-${process.arch}-${other}`));
    expect(await run(cache, home)).toEqual(ok(home));
    expect(cacheFiles(cache)).toEqual(CONFIG_PATH);
  });
});
