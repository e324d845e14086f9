#!/usr/bin/env node
// Starts dist/cli/main.cjs (scripts/bundle.js) from V8's code cache when there is one.
//
// Half of what a short command cost beyond starting node was parsing and compiling JavaScript.
// V8 can instead rebuild the compiled functions from cached data. After a command, the functions
// it compiled are written to a per-user cache, one file per command (`webhooks list`,
// `ads campaigns ...`), so the next call of that command skips that work. Node's own compile cache
// (module.enableCompileCache) does not exist on Node 20 and does not cover a script run this way.
//
// The cache is an optimisation and nothing more: any problem with it (no home, a read-only disk,
// a folder that is not the user's own, data V8 rejects) means the script is compiled from source
// as before. XCTL_COMPILE_CACHE=0 turns it off; XCTL_COMPILE_CACHE=DIR moves it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../dist/cli');
const build = JSON.parse(fs.readFileSync(path.join(dir, 'build.json'), 'utf8'));
// Scripts ask for the version often; it needs nothing else.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  process.stdout.write(build.version + '\n');
  process.exit(0);
}
const file = path.join(dir, 'main.cjs');
const source = fs.readFileSync(file, 'utf8');
const cache = cacheFile(process.argv.slice(2));
let cachedData;
if (cache) {
  try {
    cachedData = fs.readFileSync(cache.path);
  } catch {
    cachedData = undefined;
  }
}
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
if (cache && (!cachedData || script.cachedDataRejected)) process.once('exit', () => writeCache(cache, script));
const mod = { exports: {} };
script.runInThisContext()(mod.exports, createRequire(file), mod, file, dir);

/** Where this command's cached code lives, or undefined when caching is off or unsafe. */
function cacheFile(args) {
  try {
    const setting = process.env.XCTL_COMPILE_CACHE;
    if (setting !== undefined && /^(0|off|false|no)?$/i.test(setting)) return undefined;
    const root = setting || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'xctl', 'compile-cache');
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(root);
    // Cached code is run as code: only from a folder that is the user's own and nobody else can write.
    if (!st.isDirectory() || (typeof process.getuid === 'function' && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0) return undefined;
    // The command's words up to the first that is not one (an option, a path, an id).
    const words = [];
    for (const a of args) {
      if (a.startsWith('-')) continue;
      if (words.length === 2 || !/^[a-z][a-z0-9-]{0,30}$/.test(a)) break;
      words.push(a);
    }
    const key = words.length ? words.join('.') : 'xctl';
    if (!/^[0-9a-f]{16}$/.test(build.id)) return undefined;
    const prefix = `${build.id}-${process.version}-${process.arch}-`;
    return { root, prefix, path: path.join(root, `${prefix}${key}.v8`) };
  } catch {
    return undefined;
  }
}

/** Writes the functions this run compiled, atomically; drops caches of other builds; keeps at most 32 (about 0.5 MB each). */
function writeCache(cache, compiled) {
  try {
    const data = compiled.createCachedData();
    const tmp = `${cache.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, cache.path);
    const names = fs.readdirSync(cache.root).filter((n) => n.endsWith('.v8'));
    const stale = names.filter((n) => !n.startsWith(cache.prefix));
    const current = names.filter((n) => n.startsWith(cache.prefix));
    if (current.length > 32) {
      const byAge = current.map((n) => ({ n, t: fs.statSync(path.join(cache.root, n)).mtimeMs })).sort((a, b) => a.t - b.t);
      stale.push(...byAge.slice(0, current.length - 32).map((x) => x.n));
    }
    for (const n of stale) fs.rmSync(path.join(cache.root, n), { force: true });
  } catch {
    // A cache that cannot be written only costs the next run its compile time.
  }
}
