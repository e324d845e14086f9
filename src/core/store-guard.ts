// Guards around the profile store, as ssh guards its keys: a folder another user owns or can
// write to, or a store file that is a symlink, is refused (another user could read the secrets
// written there, or plant a base URL).
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, XctlError, errnoCode } from './errors.js';

const FIX = (dir: string) =>
  `the folder must be yours and writable only by you: \`chmod 700 ${dir}\` (or choose another with XCTL_CONFIG_DIR)`;

/** Throws when the store's folder or file could be read or planted by another user. */
export function checkStorePlace(file: string): void {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid === undefined) return; // Windows: ACLs, not modes
  const dir = path.dirname(file);
  checkFoldersAbove(dir, uid);
  let d: fs.Stats;
  try {
    d = fs.statSync(dir);
  } catch {
    return; // created on first write, 0700
  }
  if (d.uid !== uid)
    throw new XctlError(`refusing to use the config folder ${dir}: it belongs to another user (uid ${d.uid})`, {
      hint: FIX(dir),
    });
  if (d.mode & 0o022) {
    throw new XctlError(
      `refusing to use the config folder ${dir}: others can write to it (mode ${(d.mode & 0o777).toString(8)})`,
      { hint: FIX(dir) },
    );
  }
  let f: fs.Stats;
  try {
    f = fs.lstatSync(file);
  } catch {
    return;
  }
  if (f.isSymbolicLink())
    throw new XctlError(`refusing to use the profile store ${file}: it is a symbolic link`, {
      hint: `replace it with a regular file (or remove it; \`xctl auth set\` recreates it)`,
    });
  if (!f.isFile())
    throw new XctlError(`refusing to use the profile store ${file}: it is not a regular file`, {
      hint: 'remove it; `xctl auth set` recreates it',
    });
  if (f.uid !== uid)
    throw new XctlError(`refusing to use the profile store ${file}: it belongs to another user (uid ${f.uid})`, {
      hint: `remove it, or \`chown\` it to yourself and \`chmod 600 ${file}\``,
    });
  if (f.mode & 0o022)
    throw new XctlError(
      `refusing to use the profile store ${file}: others can write to it (mode ${(f.mode & 0o777).toString(8)})`,
      { hint: `\`chmod 600 ${file}\`` },
    );
}

/**
 * Every folder above the store's, up to `/`, must belong to the user or root and be writable by
 * no one else unless sticky (like /tmp): otherwise another user could rename the folder away and
 * put their own in its place between two reads (a login would then send its code, PKCE verifier
 * and client secret to the base URL they chose). Symbolic links are followed as the kernel does.
 */
export function checkFoldersAbove(dir: string, uid: number, what = CONFIG): void {
  const lexical = path.resolve(dir);
  walkUp(path.dirname(lexical), uid, what);
  // A symbolic link on the way: the folders it leads through are the ones the kernel opens.
  for (let d = lexical; ; d = path.dirname(d)) {
    let real: string | undefined;
    try {
      real = fs.realpathSync(d);
    } catch {
      if (path.dirname(d) === d) return;
      continue;
    }
    if (real !== d) walkUp(d === lexical ? path.dirname(real) : real, uid, what);
    return;
  }
}

/** Which folder a refusal is about, and how to choose another. */
interface FolderKind {
  name: string;
  choose: string;
}
const CONFIG: FolderKind = { name: 'the config folder', choose: 'set XCTL_CONFIG_DIR' };

function walkUp(start: string, uid: number, what: FolderKind): void {
  let d = start;
  for (;;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(d);
    } catch {
      /* not created yet: mkdir makes it, 0700 */
    }
    if (st) checkAncestor(d, st, uid, what);
    const up = path.dirname(d);
    if (up === d) return;
    d = up;
  }
}

function checkAncestor(d: string, st: fs.Stats, uid: number, what: FolderKind): void {
  const hint = `use ${what.name.replace(/^the /, 'a ')} whose every parent folder is yours or root's and writable only by its owner (or sticky, like /tmp): ${what.choose}`;
  if (st.uid !== uid && st.uid !== 0) {
    throw new XctlError(
      `refusing to use ${what.name}: ${d}, a folder above it, belongs to another user (uid ${st.uid})`,
      { hint },
    );
  }
  if (st.mode & 0o022 && !(st.mode & 0o1000)) {
    throw new XctlError(
      `refusing to use ${what.name}: ${d}, a folder above it, can be written by others (mode ${(st.mode & 0o777).toString(8)}, not sticky)`,
      { hint },
    );
  }
}

const STATE: FolderKind = {
  name: 'the state folder',
  choose: 'choose another with --state-dir or XCTL_STATE_DIR (`mkdir -m 700 DIR`)',
};

/**
 * Creates (0700) a folder of the state folder (snapshots, journals, the apply state, command
 * outputs) after the checks the config folder gets: every folder above it is the user's or
 * root's and writable by no one else unless sticky, checked before anything is created in it;
 * the folder itself is the user's, not a symbolic link, not writable by group or others. Another
 * user's `/tmp/xstate` would otherwise hand them what is written there (member emails) and let
 * them plant what is read back (an apply state claiming the user's audiences, links to the
 * user's files). Throws a UsageError naming `flag` (nothing was sent yet).
 */
export function ensurePrivateFolder(dir: string, flag = '--state-dir'): void {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const guard = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      if (e instanceof XctlError && !(e instanceof UsageError))
        throw new UsageError(e.message, { flag, hint: e.hint ?? STATE.choose });
      throw e;
    }
  };
  if (uid !== undefined) guard(() => checkFoldersAbove(dir, uid, STATE));
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 }); // its errors (EACCES, EROFS) are the caller's to word
  if (uid === undefined) return;
  const st = fs.lstatSync(dir);
  const refuse = (why: string) =>
    new UsageError(`refusing to use the state folder ${dir}: ${why}`, { flag, hint: STATE.choose });
  if (st.isSymbolicLink()) throw refuse('it is a symbolic link');
  if (!st.isDirectory()) throw refuse('it is not a folder');
  if (st.uid !== uid) throw refuse(`it belongs to another user (uid ${st.uid})`);
  if (st.mode & 0o022) throw refuse(`others can write to it (mode ${(st.mode & 0o777).toString(8)})`);
}

/** True while a process with this id exists (EPERM: it exists but is another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errnoCode(e) === 'EPERM';
  }
}
