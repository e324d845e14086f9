// A lock between xctl processes: a file created exclusively (O_EXCL) next to the profile store.
// Refresh tokens are single-use, so two processes refreshing at once would spend the same token
// and the loser would be logged out; the lock makes the second wait and reuse the first's result.
import fs from 'node:fs';
import { XctlError } from './errors.js';

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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs fn while holding the lock file; always removes it afterwards (if still ours). */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, o: LockOptions = {}): Promise<T> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const staleMs = o.staleMs ?? 30_000;
  const deadline = now() + (o.timeoutMs ?? 60_000);
  const me: Holder = { pid: process.pid, at: now() };
  for (;;) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      me.at = now();
      fs.writeSync(fd, JSON.stringify(me));
      fs.closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const h = readHolder(file);
    // A holder that is gone, or has held it implausibly long, left it behind: take it over. A
    // half-written file (no holder yet) gets the benefit of the doubt until it is stale by mtime.
    let stale = false;
    if (h) stale = !alive(h.pid) || now() - h.at > staleMs;
    else {
      try {
        stale = now() - fs.statSync(file).mtimeMs > staleMs;
      } catch {
        continue; // removed meanwhile: try again at once
      }
    }
    if (stale) {
      try {
        fs.unlinkSync(file);
      } catch {
        /* someone else took it over first */
      }
      continue;
    }
    if (now() > deadline) {
      throw new XctlError(`another xctl process (pid ${h?.pid ?? '?'}) holds ${file}`, {
        hint: 'wait for it to finish; if no xctl is running, remove the file',
      });
    }
    await sleep(o.pollMs ?? 50);
  }
  try {
    return await fn();
  } finally {
    const h = readHolder(file);
    if (h && h.pid === me.pid && h.at === me.at) {
      try {
        fs.unlinkSync(file);
      } catch {
        /* already gone */
      }
    }
  }
}
