// bin/xctl.js starts the bundled script from V8's code cache: one file per command, written after
// the command's first call. The cache may only ever make a call faster: whatever is wrong with it,
// the command still runs, from source. These tests run the real bin against real cache folders.
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
const build = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/cli/build.json'), 'utf8')) as { id: string; version: string };
const prefix = `${build.id}-${process.version}-${process.arch}-`;
const cacheFiles = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.v8')).sort() : []);

describe('code cache', () => {
  it("writes a command's compiled code once, 0600 in a 0700 folder, and the next call uses it", async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    const env = { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') };
    const first = await runCli(['config', 'path'], { env });
    expect(first.code).toBe(0);
    expect(cacheFiles(cache)).toEqual([`${prefix}config.path.v8`]);
    const file = path.join(cache, `${prefix}config.path.v8`);
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const before = fs.statSync(file);
    const second = await runCli(['config', 'path'], { env });
    expect(second).toEqual(first);
    // V8 accepted the data: a rejected cache would have been written again (a new file by rename).
    const after = fs.statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it('runs from source when the cached data is garbage, and replaces it', async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    fs.mkdirSync(cache, { mode: 0o700 });
    const file = path.join(cache, `${prefix}config.path.v8`);
    fs.writeFileSync(file, Buffer.alloc(4096, 7), { mode: 0o600 });
    const r = await runCli(['config', 'path'], { env: { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') } });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(path.join(home, 'cfg', 'config.json'));
    expect(fs.readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
  });

  it('never reads or writes a folder others can write to, or a symbolic link', async () => {
    const home = fresh();
    const open = path.join(home, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    // Planted data under the name the command would read.
    fs.writeFileSync(path.join(open, `${prefix}config.path.v8`), 'planted');
    let r = await runCli(['config', 'path'], { env: { XCTL_COMPILE_CACHE: open, XCTL_CONFIG_DIR: path.join(home, 'cfg') } });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(open, `${prefix}config.path.v8`), 'utf8')).toBe('planted');
    expect(cacheFiles(open)).toHaveLength(1);

    const real = path.join(home, 'real');
    fs.mkdirSync(real, { mode: 0o700 });
    const link = path.join(home, 'link');
    fs.symlinkSync(real, link);
    r = await runCli(['config', 'path'], { env: { XCTL_COMPILE_CACHE: link, XCTL_CONFIG_DIR: path.join(home, 'cfg') } });
    expect(r.code).toBe(0);
    expect(cacheFiles(real)).toEqual([]);
  });

  it('XCTL_COMPILE_CACHE=0 writes nothing; the default folder is under XDG_CACHE_HOME', async () => {
    const home = fresh();
    const env = { HOME: home, XDG_CACHE_HOME: path.join(home, 'xdg'), XCTL_CONFIG_DIR: path.join(home, 'cfg') };
    let r = await runCli(['config', 'path'], { env: { ...env, XCTL_COMPILE_CACHE: '0' } });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(home, 'xdg'))).toBe(false);
    r = await runCli(['config', 'path'], { env });
    expect(r.code).toBe(0);
    expect(cacheFiles(path.join(home, 'xdg', 'xctl', 'compile-cache'))).toEqual([`${prefix}config.path.v8`]);
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
    expect(cacheFiles(cache)).toEqual([`${prefix}config.path.v8`]);
  });
});

describe('code cache size', () => {
  it('keeps at most 32 command files, dropping the oldest', async () => {
    const home = fresh();
    const cache = path.join(home, 'cc');
    fs.mkdirSync(cache, { mode: 0o700 });
    for (let i = 0; i < 32; i++) {
      const f = path.join(cache, `${prefix}old${String(i).padStart(2, '0')}.v8`);
      fs.writeFileSync(f, 'x', { mode: 0o600 });
      fs.utimesSync(f, 1_000_000 + i, 1_000_000 + i);
    }
    const r = await runCli(['config', 'path'], { env: { XCTL_COMPILE_CACHE: cache, XCTL_CONFIG_DIR: path.join(home, 'cfg') } });
    expect(r.code).toBe(0);
    const left = cacheFiles(cache);
    expect(left).toHaveLength(32);
    expect(left).toContain(`${prefix}config.path.v8`);
    expect(left).not.toContain(`${prefix}old00.v8`);
    expect(left).toContain(`${prefix}old01.v8`);
  });
});

describe('bundle', () => {
  it('keeps the script small: no zod locales (290 KB that every ads command would compile)', () => {
    const main = fs.readFileSync(path.join(ROOT, 'dist/cli/main.cjs'), 'latin1');
    expect(main).not.toContain('ltige Eingabe'); // zod's German locale
    expect(main.length).toBeLessThan(1_250_000);
    // Heavy libraries that only some commands need are files of their own.
    for (const lib of ['yaml', 'ora', 'cli-table3', 'open']) expect(fs.existsSync(path.join(ROOT, `dist/cli/vendor/${lib}.cjs`))).toBe(true);
    // `const { default: open } = await import('open')` finds the function, as it does unbundled.
    const req = createRequire(import.meta.url);
    for (const lib of ['ora', 'open', 'cli-table3']) expect(typeof req(path.join(ROOT, `dist/cli/vendor/${lib}.cjs`)), lib).toBe('function');
  });
});
