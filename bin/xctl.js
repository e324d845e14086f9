#!/usr/bin/env node
'use strict';
// Runs dist/cli/main.cjs and the chunks it requires (scripts/bundle.js), each compiled by
// vm.Script from V8's cached data when this command has some. The cache is written at exit, after
// the command ran, so it holds what V8 compiled lazily while it ran: one file per command and
// node version (`<build>-v22.1.0-x64-webhooks.list.v8`), with the data of every chunk it loaded.
// CommonJS (bin/package.json): an ES module entry point would start node's ES module loader.
//
// Cached data is code (V8 checks little more than the source's length), so a file is read only
// where nobody but the user or root can have put it: the cache folder is the user's and not
// group/other-writable, every folder above it is the user's or root's and not group/other-writable
// (unless sticky, like /tmp), and the file, opened without following a symbolic link, is a regular
// file of the user's that group and others cannot write. Any problem: compiled from source.
// XCTL_COMPILE_CACHE=0 reads and writes nothing; XCTL_COMPILE_CACHE=DIR moves the folder.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const dir = path.join(__dirname, '../dist/cli');
const uid = process.getuid?.();
const nodeRequire = module.constructor.createRequire(path.join(dir, 'main.cjs'));
const modules = new Map();
const compiled = new Map();
const cache = cacheFile(process.argv.slice(2));
const cached = (cache && readCache(cache.file)) || new Map();
let stale = false;
if (cache) process.once('exit', () => stale && writeCache(cache));
load('main.cjs');

/** Runs a chunk of dist/cli as a CommonJS module, once; returns its exports. */
function load(name) {
  if (modules.has(name)) return modules.get(name).exports;
  const file = path.join(dir, name);
  const source = `(function (exports, require, module, __filename, __dirname) {\n${fs.readFileSync(file, 'latin1')}\n})`;
  const script = new vm.Script(source, { filename: file, lineOffset: -1, cachedData: cached.get(name) });
  if (!cached.has(name) || script.cachedDataRejected) stale = true;
  compiled.set(name, script);
  const mod = { exports: {} };
  modules.set(name, mod);
  const req = (id) => (id.startsWith('./') ? load(id.slice(2)) : nodeRequire(id));
  script.runInThisContext()(mod.exports, req, mod, file, dir);
  return mod.exports;
}

/** The user's own and not group/other-writable; above the cache, root's too, or sticky (/tmp). */
function safe(st, above) {
  if (uid === undefined) return true;
  if (st.uid !== uid && !(above && st.uid === 0)) return false;
  return (st.mode & 0o022) === 0 || (above && st.isDirectory() && (st.mode & 0o1000) !== 0);
}

/** This command's cache file (named after its leading words), or undefined when off or unsafe. */
function cacheFile(args) {
  try {
    const setting = process.env.XCTL_COMPILE_CACHE;
    if (setting !== undefined && /^(0|off|false|no)?$/i.test(setting)) return undefined;
    const home = process.env.XDG_CACHE_HOME || (process.env.HOME && path.join(process.env.HOME, '.cache'));
    const wanted = setting || (home && path.join(home, 'xctl', 'compile-cache'));
    if (!wanted) return undefined;
    if (!fs.existsSync(wanted)) fs.mkdirSync(wanted, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(wanted); // a symbolic link given as the folder is not followed
    const real = fs.realpathSync.native(wanted);
    if (!st.isDirectory() || !safe(st, false)) return undefined;
    for (let d = real; d !== path.dirname(d); ) if (!safe(fs.lstatSync((d = path.dirname(d))), true)) return undefined;
    // The command's leading words, up to an option or a word that is not one (an id, a path).
    const words = [];
    for (const a of args.slice(0, 3)) {
      if (!/^[a-z][a-z-]{0,30}$/.test(a)) break;
      words.push(a);
    }
    const help = args.includes('--help') || args.includes('-h') ? '.help' : '';
    const { id } = JSON.parse(fs.readFileSync(path.join(dir, 'build.json'), 'latin1'));
    const prefix = `${id}-${process.version}-${process.arch}-`;
    return { dir: real, prefix, file: path.join(real, `${prefix}${words.join('.') || 'xctl'}${help}.v8`) };
  } catch {
    return undefined;
  }
}

/** The file's data per chunk (a 4-byte header length, a JSON header {chunk: bytes}, the data). */
function readCache(file) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || !safe(st, false)) return undefined;
    const data = fs.readFileSync(fd);
    let at = 4 + data.readUInt32LE(0);
    const sizes = Object.entries(JSON.parse(data.toString('latin1', 4, at)));
    return new Map(sizes.map(([name, n]) => [name, data.subarray(at, (at += n))]));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Writes every chunk's compiled code, keeping the data of chunks this run did not load (a new
 * file renamed over the old); drops older builds' files.
 */
function writeCache(c) {
  try {
    const kept = [...cached].filter(([name]) => !compiled.has(name));
    const parts = kept.concat([...compiled].map(([name, script]) => [name, script.createCachedData()]));
    const header = Buffer.from(JSON.stringify(Object.fromEntries(parts.map(([n, d]) => [n, d.length]))), 'latin1');
    const size = Buffer.alloc(4);
    size.writeUInt32LE(header.length);
    const tmp = `${c.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, Buffer.concat([size, header, ...parts.map(([, d]) => d)]), { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, c.file);
    // Other builds' files for this node version are never read again (other versions' stay),
    // nor are this build's beyond the 64 newest.
    const same = fs.readdirSync(c.dir).filter((n) => n.endsWith('.v8') && n.slice(16).startsWith(c.prefix.slice(16)));
    const age = (n) => fs.lstatSync(path.join(c.dir, n)).mtimeMs;
    const ours = same.filter((n) => n.startsWith(c.prefix)).sort((a, b) => age(b) - age(a));
    for (const n of [...same.filter((n) => !n.startsWith(c.prefix)), ...ours.slice(64)])
      fs.rmSync(path.join(c.dir, n), { force: true });
  } catch {}
}
