// Guards around the profile store, as ssh guards its keys: a folder another user owns or can
// write to, or a store file that is a symlink, is refused (another user could read the secrets
// written there, or plant a base URL); and every read-modify-write holds a lock, so concurrent
// `auth set` runs into different profiles lose none of them.
import fs from 'node:fs';
import path from 'node:path';
import { XctlError } from './errors.js';

const FIX = (dir: string) => `the folder must be yours and writable only by you: \`chmod 700 ${dir}\` (or choose another with XCTL_CONFIG_DIR)`;

/** Throws when the store's folder or file could be read or planted by another user. */
export function checkStorePlace(file: string): void {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid === undefined) return; // Windows: ACLs, not modes
  const dir = path.dirname(file);
  let d: fs.Stats;
  try {
    d = fs.statSync(dir);
  } catch {
    return; // created on first write, 0700
  }
  if (d.uid !== uid) throw new XctlError(`refusing to use the config folder ${dir}: it belongs to another user (uid ${d.uid})`, { hint: FIX(dir) });
  if (d.mode & 0o022) {
    throw new XctlError(`refusing to use the config folder ${dir}: others can write to it (mode ${(d.mode & 0o777).toString(8)})`, { hint: FIX(dir) });
  }
  let f: fs.Stats;
  try {
    f = fs.lstatSync(file);
  } catch {
    return;
  }
  if (f.isSymbolicLink()) throw new XctlError(`refusing to use the profile store ${file}: it is a symbolic link`, { hint: `replace it with a regular file (or remove it; \`xctl auth set\` recreates it)` });
  if (!f.isFile()) throw new XctlError(`refusing to use the profile store ${file}: it is not a regular file`, { hint: 'remove it; `xctl auth set` recreates it' });
  if (f.uid !== uid) throw new XctlError(`refusing to use the profile store ${file}: it belongs to another user (uid ${f.uid})`, { hint: `remove it, or \`chown\` it to yourself and \`chmod 600 ${file}\`` });
  if (f.mode & 0o022) throw new XctlError(`refusing to use the profile store ${file}: others can write to it (mode ${(f.mode & 0o777).toString(8)})`, { hint: `\`chmod 600 ${file}\`` });
}

const LOCK_WAIT_MS = 10_000;
const STALE_MS = 30_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs fn while holding `<file>.lock` (created exclusively). The store's methods are synchronous,
 * so waiting is a short synchronous sleep; a lock whose process is gone, or older than any write
 * could take, is stale and taken over.
 */
export function withStoreLock<T>(file: string, fn: () => T): T {
  const lock = `${file}.lock`;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const started = Date.now();
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (stale(lock)) {
      fs.rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() - started > LOCK_WAIT_MS) {
      throw new XctlError(`the profile store ${file} is locked by another xctl (${lock})`, { hint: `if no other xctl is running, remove ${lock}` });
    }
    Atomics.wait(pause, 0, 0, 5 + Math.floor(Math.random() * 10));
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** True while a process with this id exists (EPERM: it exists but is another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function stale(lock: string): boolean {
  try {
    const st = fs.statSync(lock);
    if (Date.now() - st.mtimeMs > STALE_MS) return true;
    const pid = Number(fs.readFileSync(lock, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - st.mtimeMs > 1000; // being written
    return !processAlive(pid);
  } catch {
    return false; // gone already: the next try takes it
  }
}
