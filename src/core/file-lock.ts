// A lock between xctl processes: a file created exclusively (O_EXCL) next to the profile store.
// Refresh tokens are single-use, so two processes refreshing at once would spend the same token
// and the loser would be logged out; the lock makes the second wait and reuse the first's result.
import fs from 'node:fs';
import { XctlError } from './errors.js';
import { processAlive } from './store-guard.js';

export { processAlive };

export interface LockOptions {
  /** A lock older than this is taken over: its holder died without removing it. */
  staleMs?: number;
  /** Give up waiting after this long. */
  timeoutMs?: number;
  pollMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface Holder {
  pid: number;
  at: number;
}

function readHolder(file: string): Holder | undefined {
  try {
    const h = JSON.parse(fs.readFileSync(file, 'utf8')) as Holder;
    return typeof h.pid === 'number' && typeof h.at === 'number' ? h : undefined;
  } catch {
    return undefined;
  }
}

/** One attempt: the holder record when the lock was taken, else who holds it (undefined: retry at once). */
function tryAcquire(file: string, now: number, staleMs: number): { mine?: Holder; holder?: Holder; retryNow?: boolean } {
  try {
    const fd = fs.openSync(file, 'wx', 0o600);
    const mine = { pid: process.pid, at: now };
    fs.writeSync(fd, JSON.stringify(mine));
    fs.closeSync(fd);
    return { mine };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const h = readHolder(file);
  // A holder that is gone, or has held it implausibly long, left it behind: take it over. A
  // half-written file (no holder yet) gets the benefit of the doubt until it is stale by mtime.
  let stale: boolean;
  if (h) stale = !processAlive(h.pid) || now - h.at > staleMs;
  else {
    try {
      stale = now - fs.statSync(file).mtimeMs > staleMs;
    } catch {
      return { retryNow: true }; // removed meanwhile
    }
  }
  if (!stale) return { holder: h };
  try {
    fs.unlinkSync(file);
  } catch {
    /* someone else took it over first */
  }
  return { retryNow: true };
}

function release(file: string, mine: Holder): void {
  const h = readHolder(file);
  if (h && h.pid === mine.pid && h.at === mine.at) {
    try {
      fs.unlinkSync(file);
    } catch {
      /* already gone */
    }
  }
}

function busy(file: string, h: Holder | undefined): XctlError {
  return new XctlError(`another xctl process (pid ${h?.pid ?? '?'}) holds ${file}`, { hint: 'wait for it to finish; if no xctl is running, remove the file' });
}

/** Runs fn while holding the lock file; always removes it afterwards (if still ours). */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, o: LockOptions = {}): Promise<T> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + (o.timeoutMs ?? 60_000);
  let mine: Holder | undefined;
  while (!mine) {
    const a = tryAcquire(file, now(), o.staleMs ?? 30_000);
    mine = a.mine;
    if (mine || a.retryNow) continue;
    if (now() > deadline) throw busy(file, a.holder);
    await sleep(o.pollMs ?? 50);
  }
  try {
    return await fn();
  } finally {
    release(file, mine);
  }
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
  while (!mine) {
    const a = tryAcquire(file, now(), o.staleMs ?? 10_000);
    mine = a.mine;
    if (mine || a.retryNow) continue;
    if (now() > deadline) throw busy(file, a.holder);
    Atomics.wait(cell, 0, 0, o.pollMs ?? 5);
  }
  try {
    return fn();
  } finally {
    release(file, mine);
  }
}
