// A lock between xctl processes: a file next to the profile store, created atomically with its
// holder record already in it (written to a private file, then hard-linked into place: the link
// fails if the lock exists). Refresh tokens are single-use, so two processes refreshing at once
// would spend the same token and the loser would be logged out; the lock makes the second wait
// and reuse the first's result. The store's writes use one too.
//
// A lock is stale only when its holder is gone: the pid no longer runs, or runs a later process
// (its start time differs). A live holder is waited for however long it takes (a slow token
// endpoint), up to the waiter's timeout, which is an error, never a take-over. Taking over a stale
// lock is serialized per stale record (a marker file created exclusively), so of several processes
// finding it, exactly one removes it, and none can remove a lock taken after it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { XctlError, errnoCode } from './errors.js';
import { processAlive } from './store-guard.js';

export { processAlive };

export interface LockOptions {
  /** Give up waiting for a live holder after this long (an error; the lock is left alone). */
  timeoutMs?: number;
  pollMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface Holder {
  pid: number;
  /** The process's start time (Linux: clock ticks after boot, /proc/PID/stat field 22). */
  start?: string;
  at: number;
  /** Tells this holding apart from every other one (the take-over marker is named after it). */
  nonce: string;
}

/** Something in the lock's place that is not a lock file (a folder, a file this user cannot read). */
function notALock(file: string, why: string): XctlError {
  return new XctlError(`${file} is not a lock file xctl can read (${why})`, {
    hint: `remove ${file} if no xctl is running`,
  });
}

/**
 * A record without a nonce or with an unreadable body is still a holder; an old format too (a
 * bare pid: what the journal and snapshot locks of earlier versions held).
 */
function readHolder(file: string): { holder?: Holder; ino?: number; mtimeMs?: number } | undefined {
  let text: string;
  let st: fs.Stats;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      st = fs.fstatSync(fd);
      if (!st.isFile()) throw notALock(file, st.isDirectory() ? 'a folder' : 'not a regular file');
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if (e instanceof XctlError) throw e;
    if (errnoCode(e) === 'ENOENT') return undefined; // gone meanwhile
    throw notALock(file, errnoCode(e) ?? String(e));
  }
  if (/^\s*[1-9]\d{0,9}\s*$/.test(text))
    return { holder: { pid: Number(text), at: 0, nonce: `ino${st.ino}` }, ino: st.ino, mtimeMs: st.mtimeMs };
  try {
    const h = JSON.parse(text) as Partial<Holder>;
    if (typeof h.pid === 'number' && Number.isInteger(h.pid) && h.pid > 0) {
      return {
        holder: {
          pid: h.pid,
          start: typeof h.start === 'string' ? h.start : undefined,
          at: Number(h.at) || 0,
          nonce: String(h.nonce ?? `ino${st.ino}`),
        },
        ino: st.ino,
        mtimeMs: st.mtimeMs,
      };
    }
  } catch {
    /* not a record */
  }
  return { ino: st.ino, mtimeMs: st.mtimeMs };
}

/** A process's start time where the system says it (Linux /proc), else undefined. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The holder's process still runs: same pid, and the same start time where it can be read. */
export function holderAlive(h: Pick<Holder, 'pid' | 'start'>): boolean {
  if (!processAlive(h.pid)) return false;
  if (h.start === undefined) return true;
  const now = processStart(h.pid);
  return now === undefined || now === h.start;
}

let selfStart: string | undefined | null = null;
function me(now: number): Holder {
  if (selfStart === null) selfStart = processStart(process.pid);
  return { pid: process.pid, start: selfStart, at: now, nonce: randomBytes(8).toString('hex') };
}

/** Creates the lock with the record in it, or returns false when it exists. */
function create(file: string, mine: Holder): boolean {
  // The store's folder may not exist yet (a fresh CI runner with keys in the environment).
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${mine.nonce}.new`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(mine), { mode: 0o600, flag: 'wx' });
    fs.linkSync(tmp, file);
    return true;
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw e;
    // No hard links here (some network or FUSE file systems): rename is atomic but replaces, so
    // fall back to an exclusive create (a reader may see it empty for an instant: not stale).
    try {
      fs.writeFileSync(file, JSON.stringify(mine), { mode: 0o600, flag: 'wx' });
      return true;
    } catch (e2) {
      if (errnoCode(e2) === 'EEXIST') return false;
      throw e2;
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** A file with no record in it is stale only after this long (it cannot stay half-written). */
const UNREADABLE_STALE_MS = 30_000;
/** A take-over marker whose maker died in its few-syscall window: removed after this long. */
const MARKER_STALE_MS = 5_000;

/**
 * Removes the lock if it still is the stale holding seen (`key`): one process at a time per
 * stale holding, so none can remove a lock another process took after it.
 */
function takeOver(file: string, key: string, now: number): void {
  const marker = `${file}.takeover-${key}`;
  try {
    fs.writeFileSync(marker, JSON.stringify(me(now)), { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if (errnoCode(e) !== 'EEXIST') throw e;
    const m = readHolder(marker);
    if (m?.holder && !holderAlive(m.holder) && now - (m.mtimeMs ?? now) > MARKER_STALE_MS)
      fs.rmSync(marker, { force: true });
    return; // another process is taking it over: look again
  }
  try {
    const again = readHolder(file);
    if (again && keyOf(again) === key) fs.unlinkSync(file);
  } finally {
    fs.rmSync(marker, { force: true });
  }
}

function keyOf(r: { holder?: Holder; ino?: number }): string {
  return r.holder?.nonce ?? `ino${r.ino}`;
}

type Attempt = { mine: Holder } | { holder?: Holder; retryNow?: boolean };

/** One attempt: the lock taken, or who holds it, or "look again at once" (it changed). */
function tryAcquire(file: string, now: number): Attempt {
  const mine = me(now);
  if (create(file, mine)) return { mine };
  const r = readHolder(file);
  if (!r) return { retryNow: true }; // released meanwhile
  const stale = r.holder ? !holderAlive(r.holder) : now - (r.mtimeMs ?? now) > UNREADABLE_STALE_MS;
  if (!stale) return { holder: r.holder };
  takeOver(file, keyOf(r), now);
  return { retryNow: true };
}

function release(file: string, mine: Holder): void {
  // Only a dead holder's lock is ever removed by another process: this one is still ours.
  if (readHolder(file)?.holder?.nonce === mine.nonce) fs.rmSync(file, { force: true });
}

function busy(file: string, h: Holder | undefined): XctlError {
  return new XctlError(`another xctl process (pid ${h?.pid ?? '?'}) holds ${file}`, {
    hint: 'wait for it to finish; if no xctl is running, remove the file',
  });
}

/** Runs fn while holding the lock file; always removes it afterwards. */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, o: LockOptions = {}): Promise<T> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // Long: a waiter gives up only on a holder that is alive but stuck (a token endpoint that hangs).
  const deadline = now() + (o.timeoutMs ?? 300_000);
  let mine: Holder | undefined;
  for (let spins = 0; !mine; spins++) {
    const a = tryAcquire(file, now());
    if ('mine' in a) mine = a.mine;
    else if (!a.retryNow || spins % 100 === 99) {
      if (now() > deadline) throw busy(file, 'holder' in a ? a.holder : undefined);
      await sleep(o.pollMs ?? 50);
    }
  }
  try {
    return await fn();
  } finally {
    release(file, mine);
  }
}

/** The lock taken (release it when done), or who holds it (undefined: its record is not written yet). */
export type LockAttempt = { release: () => void } | { held: Holder | undefined };

/**
 * Takes the lock now or says who holds it, without waiting: for a lock held as long as a command
 * runs (an upload's journal, a sync's snapshot), where a second process stops at once (exit 75)
 * instead of waiting out the first. A dead holder's lock is taken over, as withFileLock does.
 */
export function tryLock(file: string, now: () => number = Date.now): LockAttempt {
  for (let spins = 0; spins < 100; spins++) {
    const a = tryAcquire(file, now());
    if ('mine' in a) {
      const mine = a.mine;
      return { release: () => release(file, mine) };
    }
    if (!a.retryNow) return { held: a.holder };
  }
  return { held: undefined }; // changing under us 100 times in a row: someone is taking it
}

/**
 * The same for a short synchronous critical section (a read-modify-write of the store): waits by
 * blocking the thread, which is fine for the milliseconds another process holds it.
 */
export function withFileLockSync<T>(file: string, fn: () => T, o: Omit<LockOptions, 'sleep'> = {}): T {
  const now = o.now ?? Date.now;
  const deadline = now() + (o.timeoutMs ?? 10_000);
  const cell = new Int32Array(new SharedArrayBuffer(4));
  let mine: Holder | undefined;
  for (let spins = 0; !mine; spins++) {
    const a = tryAcquire(file, now());
    if ('mine' in a) mine = a.mine;
    else if (!a.retryNow || spins % 100 === 99) {
      if (now() > deadline) throw busy(file, 'holder' in a ? a.holder : undefined);
      Atomics.wait(cell, 0, 0, o.pollMs ?? 5);
    }
  }
  try {
    return fn();
  } finally {
    release(file, mine);
  }
}

/**
 * What only one process should obtain (a bearer: the service punishes asking again): the cached
 * value if there is one, else obtained under the lock after looking again, so processes that
 * waited find what the first one cached.
 */
export async function obtainOnce<T>(
  file: string,
  cached: () => T | undefined,
  obtain: () => Promise<T>,
  o: LockOptions = {},
): Promise<T> {
  const first = cached();
  if (first !== undefined) return first;
  let inside = false;
  try {
    return await withFileLock(
      file,
      async () => {
        inside = true;
        return cached() ?? obtain();
      },
      o,
    );
  } catch (e) {
    // No lock file can be made here (a read-only or absent HOME on a CI runner): ask without one,
    // as the cache it guards is best effort there too.
    const code = errnoCode(e);
    if (!inside && typeof code === 'string' && NO_LOCK_HERE.has(code)) return obtain();
    throw e;
  }
}

const NO_LOCK_HERE = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOENT', 'ENOTDIR', 'ENOSPC', 'EDQUOT']);
