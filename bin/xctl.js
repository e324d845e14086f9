#!/usr/bin/env node
'use strict';
// Starts dist/cli/main.cjs (scripts/bundle.js) from V8's code cache when there is one, and the
// script of the command group that main.cjs asks for (group-webhooks.cjs...) the same way.
//
// This file is CommonJS (bin/package.json): an ES module entry point makes node load and run its
// ES module loader first (fs/promises, readline, the resolver...), about 5 ms on every call.
//
// Half of what a short command cost beyond starting node was parsing and compiling JavaScript.
// V8 can instead rebuild the compiled functions from cached data. After a command, the functions
// it compiled are written to a per-user cache, one file per command and script (`webhooks list`
// writes webhooks.list.v8 for main.cjs and webhooks.list@group-webhooks.v8), so the next call of
// that command skips that work; every file goes through the same checks (below). A command's
// first call, with no file of its own, borrows another command's file for the same script, build
// and node (borrowCache: the nearest command in words): V8 takes data made for the same source
// and compiles what the other command did not run as usual; the command's own file is written at
// exit. Node's own compile cache (module.enableCompileCache) does not exist on Node 20 and does
// not cover a script run this way.
//
// Cached data is code: V8 checks only that it was made for a source of the same length, so a file
// planted in the cache runs as xctl. It is read only when nobody but the user (or root) can have
// put it there: every folder from the cache up to / is the user's or root's and not writable by
// group or others (unless sticky, like /tmp), so nobody else can swap a folder on the way; the
// file is opened without following a symbolic link, and the descriptor that was opened is checked
// (a regular file of the user's own, not writable by group or others) before it is read.
//
// The cache is an optimisation and nothing more: any problem with it (no home, a read-only disk,
// a folder that is not the user's own, data V8 rejects) means the script is compiled from source
// as before. XCTL_COMPILE_CACHE=0 turns it off; XCTL_COMPILE_CACHE=DIR moves it.
const fs = require('node:fs');
const path = require('node:path');

const dir = path.join(__dirname, '../dist/cli');
const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
/** What main.cjs requires to run a command group: a script of the build (scripts/bundle.js). */
const GROUP_SCRIPT = /^\.\/(group-[a-z-]+)\.cjs$/;
/** What a CommonJS module's body runs in (see run). */
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {';
/** Cache files kept (see writeCache). */
const MAX_FILES = 64;
/**
 * The commands' third words (`ads campaigns list`, `stream rules add`, `ads ref languages`): a
 * command's cache is named after its whole path, so `ads campaigns get` does not run on the cache
 * `ads campaigns list` wrote; any other third word (an id) is not part of the name.
 * test/unit/launcher-keys.test.ts keeps this list equal to the command tree's.
 */
const THIRD_WORDS = new Set([
  'access',
  'active-entities',
  'add',
  'add-features',
  'all',
  'all-get',
  'app-store-categories',
  'apps',
  'batch',
  'bidding-rules',
  'business-categories',
  'clear',
  'content-categories',
  'conversations',
  'counts',
  'create',
  'curated-categories',
  'delete',
  'devices',
  'events',
  'features',
  'get',
  'grant',
  'history',
  'interests',
  'job',
  'keyword-insights',
  'languages',
  'link',
  'list',
  'locations',
  'network-operators',
  'placements',
  'platform-versions',
  'platforms',
  'publishers',
  'query',
  'remove',
  'remove-features',
  'revoke',
  'set',
  'tax',
  'tv-markets',
  'tv-shows',
  'unlink',
  'update',
  'upload',
  'use',
  'user',
]);
/**
 * Scripts whose compiled code is written at exit, by one listener (`completion bash` runs every
 * group's script: a listener each would pass node's limit of 10 and print a warning).
 */
const toWrite = [];
const build = JSON.parse(fs.readFileSync(path.join(dir, 'build.json'), 'latin1'));
// Scripts ask for the version often; it needs nothing else.
const argv = process.argv;
if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
  process.stdout.write(build.version + '\n');
} else {
  start();
}

function start() {
  const cache = cacheFile(argv.slice(2));
  // Module.createRequire without loading node:module (which loads the ES module loader with it).
  const real = module.constructor.createRequire(path.join(dir, 'main.cjs'));
  // main.cjs requires a group's script when the group runs: from its own code cache, like main's.
  const loaded = new Map();
  const req = Object.assign((id) => {
    const group = GROUP_SCRIPT.exec(id);
    if (!group) return real(id);
    if (!loaded.has(group[1])) loaded.set(group[1], run(group[1], cache, req));
    return loaded.get(group[1]);
  }, real);
  if (cache) {
    process.once('exit', () => {
      for (const [own, script] of toWrite) writeCache(own, script);
      if (toWrite.length) pruneCache(cache);
    });
  }
  run('main', cache, req);
}

/**
 * Compiles and runs dist/cli/NAME.cjs as CommonJS, from this command's cached data for it when
 * there is one; returns its module.exports. The data is written at exit when there was none or
 * V8 rejected it: `<command>.v8` for main.cjs, `<command>@<script>.v8` for a group's script.
 */
function run(name, cache, req) {
  const file = path.join(dir, `${name}.cjs`);
  // The bundle is ASCII (esbuild escapes the rest), so latin1 gives the same string, without the
  // UTF-8 decoding pass over 1 MB.
  const source = fs.readFileSync(file, 'latin1');
  const suffix = name === 'main' ? '' : `@${name}`;
  const data = cache && path.join(cache.root, `${cache.prefix}${cache.key}${suffix}.v8`);
  const own = cache && { ...cache, path: data };
  let cachedData = own ? readCache(own.path) : undefined;
  // None of its own yet: another command's data for the same script, build and node.
  const borrowed = own && !cachedData ? borrowCache(cache, suffix) : undefined;
  if (borrowed) cachedData = borrowed;
  const vm = require('node:vm');
  // The build writes the wrapper into the file (scripts/bundle.js): no second copy to flatten.
  const wrapped = source.startsWith(WRAPPER) ? source : `${WRAPPER}${source}\n})`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  if (own && (!cachedData || borrowed || script.cachedDataRejected)) toWrite.push([own, script]);
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, req, mod, file, dir);
  return mod.exports;
}

/** A folder nobody but the user and root can change: theirs, and not group/other-writable. */
function safeFolder(st, sticky) {
  if (!st.isDirectory()) return false;
  if (uid === undefined) return true;
  if (st.uid !== uid && st.uid !== 0) return false;
  return (st.mode & 0o022) === 0 || (sticky && (st.mode & 0o1000) !== 0);
}

/**
 * The real path of the cache folder when it and every folder above it are safe (see the top of
 * this file), else undefined. The cache folder itself must be the user's own and private.
 */
function safeRoot(root) {
  const real = fs.realpathSync.native(root);
  const own = fs.lstatSync(real);
  if (!own.isDirectory() || (uid !== undefined && own.uid !== uid) || (own.mode & 0o022) !== 0) {
    return undefined;
  }
  for (let d = path.dirname(real); ; d = path.dirname(d)) {
    if (!safeFolder(fs.lstatSync(d), true)) return undefined;
    if (d === path.dirname(d)) return real;
  }
}

/**
 * The folder of this command's cached code (root), the build's and node's prefix of its file
 * names and the command's key, or undefined when caching is off or unsafe.
 */
function cacheFile(args) {
  try {
    const setting = process.env.XCTL_COMPILE_CACHE;
    if (setting !== undefined && /^(0|off|false|no)?$/i.test(setting)) return undefined;
    if (!/^[0-9a-f]{16}$/.test(build.id)) return undefined;
    // HOME unset, no folder named: homedir() would be the passwd entry's, never chosen (issue 33).
    const env = process.env;
    if (!setting && !env.XDG_CACHE_HOME && !env.HOME && process.platform !== 'win32') return undefined;
    const wanted = setting || path.join(cacheHome(), 'xctl', 'compile-cache');
    // A symbolic link given as the cache folder is not followed.
    let st = lstatOrUndefined(wanted);
    if (!st) {
      fs.mkdirSync(wanted, { recursive: true, mode: 0o700 });
      st = fs.lstatSync(wanted);
    }
    if (!st.isDirectory()) return undefined;
    const root = safeRoot(wanted);
    if (!root) return undefined;
    // The command's words up to the first that is not one (an option, a path, an id). Help has
    // caches of its own: it runs none of the command's code, so its cache would lack it.
    const words = [];
    for (const a of args) {
      if (a.startsWith('-')) continue;
      if (words.length === 3 || !/^[a-z][a-z0-9-]{0,30}$/.test(a)) break;
      if (words.length === 2 && !THIRD_WORDS.has(a)) break;
      words.push(a);
    }
    const help = args.includes('--help') || args.includes('-h') ? '.help' : '';
    const key = (words.length ? words.join('.') : 'xctl') + help;
    const prefix = `${build.id}-${process.version}-${process.arch}-`;
    return { root, prefix, key };
  } catch {
    return undefined;
  }
}

/**
 * $XDG_CACHE_HOME, else ~/.cache. HOME is what os.homedir() answers first; node:os itself (2% of
 * a start) is loaded only when HOME is unset.
 */
function cacheHome() {
  if (process.env.XDG_CACHE_HOME) return process.env.XDG_CACHE_HOME;
  return path.join(process.env.HOME || require('node:os').homedir(), '.cache');
}

function lstatOrUndefined(p) {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/**
 * The cached data, read from the descriptor that was checked: a regular file (not a symbolic
 * link), the user's own, not writable by group or others. Else undefined.
 */
function readCache(file) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) {
      return undefined;
    }
    return fs.readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * A command's first call (no file of its own): the data another command wrote for the same
 * script (`<prefix><key><suffix>.v8`: same build, node and arch), read under readCache's checks.
 * V8 takes data made for the same source; the functions the other command did not run compile
 * lazily as usual, and the command's own file is written at exit. The order tried: the most
 * leading words in common (`webhooks get` for `webhooks list`), then help or not as this call,
 * then the smallest file (data grows with each borrow: the union of the functions run), then the
 * name; the first that passes readCache's checks is used.
 */
function borrowCache(cache, suffix) {
  try {
    cache.names ??= fs.readdirSync(cache.root);
    const words = cache.key.split('.');
    const help = words[words.length - 1] === 'help';
    const tail = `${suffix}.v8`;
    const candidates = [];
    for (const n of cache.names) {
      if (!n.startsWith(cache.prefix) || !n.endsWith(tail)) continue;
      const key = n.slice(cache.prefix.length, -tail.length);
      if (!/^[a-z0-9.-]+$/.test(key) || key === cache.key) continue;
      const other = key.split('.');
      let shared = 0;
      while (shared < 3 && other[shared] === words[shared] && other[shared] !== 'help') shared++;
      const sameHelp = (other[other.length - 1] === 'help') === help ? 1 : 0;
      // lstat: a link is looked at, never followed (readCache refuses it anyway).
      const size = lstatOrUndefined(path.join(cache.root, n))?.size ?? Infinity;
      candidates.push({ n, rank: shared * 2 + sameHelp, size });
    }
    candidates.sort((a, b) => b.rank - a.rank || a.size - b.size || (a.n < b.n ? -1 : 1));
    for (const c of candidates) {
      const data = readCache(path.join(cache.root, c.n));
      if (data) return data;
    }
  } catch {
    // Nothing to borrow: compiled from source.
  }
  return undefined;
}

/**
 * Writes the functions this run compiled, atomically (a new file that did not exist, renamed
 * over the old). pruneCache keeps at most 64 (about 32 commands: main.cjs's and a group
 * script's each, 0.2-0.4 MB in all).
 */
function writeCache(cache, compiled) {
  try {
    const data = compiled.createCachedData();
    const tmp = `${cache.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, cache.path);
  } catch {
    // A cache that cannot be written only costs the next run its compile time.
  }
}

/** Once after the writes of a run: drops caches of other builds and all but the newest 64. */
function pruneCache(cache) {
  try {
    const names = fs.readdirSync(cache.root).filter((n) => n.endsWith('.v8'));
    const stale = names.filter((n) => !n.startsWith(cache.prefix));
    const current = names.filter((n) => n.startsWith(cache.prefix));
    if (current.length > MAX_FILES) {
      const byAge = current
        .map((n) => ({ n, t: fs.statSync(path.join(cache.root, n)).mtimeMs }))
        .sort((a, b) => a.t - b.t);
      stale.push(...byAge.slice(0, current.length - MAX_FILES).map((x) => x.n));
    }
    for (const n of stale) fs.rmSync(path.join(cache.root, n), { force: true });
  } catch {
    // Pruning is housekeeping: the next write tries again.
  }
}
