// The upload journal: one JSON line per acknowledged batch, appended and fsynced before the
// batch counts, so a run killed at any instant (even SIGKILL) resumes without losing or
// re-sending an acknowledged batch. The first line names the input and the options; a
// journal written for other input or options is refused rather than misapplied.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { RetryLaterError, UsageError, XctlError, errnoCode, errorMessage } from '../core/errors.js';
import { type LockAttempt, tryLock } from '../core/file-lock.js';
import { writeAllSync } from '../core/write-all.js';

export interface JournalHeader {
  xctl_upload_journal: 1;
  /** Input fingerprint: size and digests of its first and last 64 KiB (files), or "stdin". */
  fingerprint: Record<string, unknown>;
  /** Everything that decides how batches are cut and what they say. */
  options: Record<string, unknown>;
  /** The input file's absolute path (sync --from-upload reads it again); not compared on resume. */
  input?: string;
  created_at: string;
}

export interface AckEntry {
  users: number;
  head: string;
  /** Digest of the whole request body: a resumed run sends again any batch that differs. */
  digest?: string;
}

/** A batch body's digest as journaled (128 bits of SHA-256). */
export function batchDigest(body: Uint8Array): string {
  return crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22);
}

/**
 * Taken for as long as a journal is open: two uploads of the same input would otherwise both
 * resume from it and interleave their acknowledgements. core/file-lock.ts's lock (created with
 * its holder's pid and start time in it, so it is never seen half-written and a reused pid is not
 * mistaken for the holder); a lock whose process is gone is stale and taken over.
 */
function takeLock(file: string, flag: string): () => void {
  const lock = file + '.lock';
  let got: LockAttempt;
  try {
    got = tryLock(lock);
  } catch (e) {
    throw new UsageError(`cannot lock the journal ${file}: ${errorMessage(e)}`, {
      flag,
      hint: `remove ${lock} if no upload is running, or choose another --journal`,
    });
  }
  if ('release' in got) return got.release;
  const pid = got.held?.pid;
  throw new RetryLaterError(
    pid === undefined
      ? `another upload is taking the journal ${file}`
      : `another upload (pid ${pid}) is using the journal ${file}`,
    { hint: `wait for it to finish; if no upload is running, remove ${lock}` },
  );
}

/** The journal could not be written (disk full, I/O error): the run stops, resumable. */
export class JournalWriteError extends XctlError {}

export class Journal {
  private fd: number;
  readonly acked: Map<number, AckEntry>;
  readonly resumed: boolean;
  readonly completed: boolean;

  private constructor(
    readonly file: string,
    fd: number,
    acked: Map<number, AckEntry>,
    resumed: boolean,
    completed: boolean,
  ) {
    this.fd = fd;
    this.acked = acked;
    this.resumed = resumed;
    this.completed = completed;
  }

  /**
   * Opens (or creates) the journal. An existing one is resumed when its header matches;
   * `restart` discards it.
   */
  static open(
    file: string,
    header: Omit<JournalHeader, 'xctl_upload_journal' | 'created_at'>,
    opts: { restart?: boolean; flag?: string } = {},
  ): Journal {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    } catch (e) {
      const code = errnoCode(e) ?? errorMessage(e);
      throw new UsageError(`cannot create the folder of the journal ${file} (${code}): nothing was sent`, {
        flag: opts.flag ?? '--journal',
        hint: 'pass --journal FILE in a folder this user can write to',
      });
    }
    const unlock = takeLock(file, opts.flag ?? '--journal');
    try {
      const j = Journal.openLocked(file, header, opts);
      j.unlock = unlock;
      return j;
    } catch (e) {
      unlock();
      const code = errnoCode(e);
      if (code && !(e instanceof XctlError))
        throw new UsageError(`cannot write the journal ${file}: ${code}`, {
          flag: opts.flag ?? '--journal',
          hint: 'free some space or pass --journal elsewhere',
        });
      throw e;
    }
  }

  private static openLocked(
    file: string,
    header: Omit<JournalHeader, 'xctl_upload_journal' | 'created_at'>,
    opts: { restart?: boolean; flag?: string },
  ): Journal {
    const acked = new Map<number, AckEntry>();
    let resumed = false;
    let completed = false;
    if (!opts.restart && fs.existsSync(file)) {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      let head: JournalHeader | undefined;
      try {
        head = JSON.parse(lines[0] ?? '') as JournalHeader;
      } catch {
        head = undefined;
      }
      if (!head || head.xctl_upload_journal !== 1) {
        throw new UsageError(`${file} is not an upload journal`, {
          flag: opts.flag ?? '--journal',
          hint: 'pass --restart to overwrite it, or another --journal',
        });
      }
      if (stable(head.options) !== stable(header.options)) {
        throw new UsageError(
          `the journal ${file} was written with other options (${diffKeys(head.options, header.options).join(', ')})`,
          {
            flag: '--restart',
            hint: 'run the original command to resume, or pass --restart to start this upload from the top',
          },
        );
      }
      if (stable(head.fingerprint) !== stable(header.fingerprint)) {
        throw new UsageError(`the input changed since the journal ${file} was written`, {
          flag: '--restart',
          hint: 'pass --restart to upload the new input from the top',
        });
      }
      for (let i = 1; i < lines.length; i++) {
        const l = lines[i]!;
        if (!l) continue;
        let e: { b?: number; n?: number; h?: string; d?: string; done?: boolean };
        try {
          e = JSON.parse(l);
        } catch {
          break; // a torn last line from a kill mid-write: that batch was never counted
        }
        if (e.done) completed = true;
        else if (typeof e.b === 'number')
          acked.set(e.b, { users: e.n ?? 0, head: e.h ?? '', ...(e.d ? { digest: e.d } : {}) });
      }
      resumed = true;
      const fd = fs.openSync(file, 'a', 0o600);
      return new Journal(file, fd, acked, resumed, completed);
    }
    const fd = fs.openSync(file, 'w', 0o600);
    const full: JournalHeader = { xctl_upload_journal: 1, ...header, created_at: new Date().toISOString() };
    writeAllSync(fd, JSON.stringify(full) + '\n');
    fs.fdatasyncSync(fd);
    return new Journal(file, fd, acked, resumed, completed);
  }

  private pending: string[] = [];
  /** Resolves the ack() of each pending line once it is written (or the journal failed). */
  private waiting: Array<() => void> = [];
  private scheduled = false;
  /** A write and fdatasync on the thread pool: the next one waits for it (lines stay in order). */
  private writing = false;
  /** close() came while a write was on the thread pool: done when that write ends. */
  private closeWhenIdle = false;

  /**
   * Records an acknowledged batch: appended and fdatasynced, off the main thread (a sync takes
   * milliseconds, during which the upload would neither read, hash nor send). Resolves once the
   * line is on disk, or the journal has failed (`failed`): only then may the batch count. Acks
   * that arrive in the same turn of the event loop, or while a sync is under way, share one
   * write and one fdatasync (group commit), so a slow disk does not cap the upload at one batch
   * per sync. A batch lost from an unsynced tail is simply sent again on resume: the service
   * keeps a set of users, so repeating a batch changes nothing.
   */
  ack(index: number, users: number, head: string, digest?: string): Promise<void> {
    this.acked.set(index, { users, head, ...(digest ? { digest } : {}) });
    this.pending.push(`{"b":${index},"n":${users},"h":"${head}"${digest ? `,"d":"${digest}"` : ''}}\n`);
    const written = new Promise<void>((resolve) => this.waiting.push(resolve));
    if (!this.scheduled && !this.writing) {
      this.scheduled = true;
      setImmediate(() => this.flushAsync());
    }
    return written;
  }

  /** Set when a write failed (ENOSPC, EIO): the run stops and says how to resume. */
  failed?: JournalWriteError;
  private unlock?: () => void;

  private fail(e: unknown): void {
    const code = errnoCode(e) ?? errorMessage(e);
    this.failed = new JournalWriteError(
      `cannot write the journal ${this.file} (${code}${code === 'ENOSPC' ? ': the disk is full' : ''})`,
    );
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = [];
    for (const resolve of w) resolve();
  }

  /**
   * Writes and syncs every pending acknowledgement on the thread pool. A failed write does not
   * throw: it sets `failed`, and the batches it held are sent again on resume, which changes
   * nothing at the service.
   */
  private flushAsync(): void {
    this.scheduled = false;
    if (this.writing) return; // the write under way takes the rest when it ends
    if (this.pending.length === 0 || this.fd < 0 || this.failed) {
      this.pending = [];
      return this.wake();
    }
    const data = Buffer.from(this.pending.join(''));
    const done = this.waiting;
    this.pending = [];
    this.waiting = [];
    this.writing = true;
    const fd = this.fd;
    const end = (e: unknown) => {
      this.writing = false;
      if (e) this.fail(e);
      for (const resolve of done) resolve();
      if (this.closeWhenIdle) this.close();
      else this.flushAsync(); // the acks that came during the write (none: it only returns)
    };
    const write = (from: number) =>
      fs.write(fd, data, from, data.length - from, null, (e, n) => {
        if (e) return end(e);
        if (from + n < data.length) return write(from + n);
        fs.fdatasync(fd, (e2) => end(e2));
      });
    write(0);
  }

  /**
   * Writes and syncs every pending acknowledgement now (or, while a write is on the thread
   * pool, leaves them to it). Does not throw: a failure sets `failed`.
   */
  flush(): void {
    this.scheduled = false;
    if (this.writing) return;
    if (this.pending.length > 0 && this.fd >= 0 && !this.failed) {
      try {
        writeAllSync(this.fd, this.pending.join(''));
        fs.fdatasyncSync(this.fd);
      } catch (e) {
        this.fail(e);
      }
    }
    this.pending = [];
    this.wake();
  }

  markDone(): void {
    this.pending.push(`{"done":true,"at":"${new Date().toISOString()}"}\n`);
    this.flush();
  }

  /** Flushes and closes; with a write still on the thread pool, once it has ended. */
  close(): void {
    if (this.fd < 0) return;
    if (this.writing) {
      this.closeWhenIdle = true;
      return;
    }
    this.flush();
    fs.closeSync(this.fd);
    this.fd = -1;
    this.unlock?.();
    this.unlock = undefined;
  }

  remove(): void {
    this.close();
    fs.rmSync(this.file, { force: true });
  }
}

/** Size plus digests of the first and last 64 KiB: cheap for 10 GB files, and catches edits, appends and swaps. */
export function fileFingerprint(file: string): Record<string, unknown> {
  const st = fs.statSync(file);
  const fd = fs.openSync(file, 'r');
  try {
    const n = Math.min(65536, st.size);
    const a = Buffer.alloc(n);
    fs.readSync(fd, a, 0, n, 0);
    const b = Buffer.alloc(n);
    fs.readSync(fd, b, 0, n, Math.max(0, st.size - n));
    const h = (x: Buffer) => crypto.createHash('sha256').update(x).digest('hex').slice(0, 32);
    return { size: st.size, head: h(a), tail: h(b) };
  } finally {
    fs.closeSync(fd);
  }
}

function stable(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'undefined';
  if (Array.isArray(v)) return '[' + v.map(stable).join(',') + ']';
  const o = v as Record<string, unknown>;
  return (
    '{' +
    Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => JSON.stringify(k) + ':' + stable(o[k]))
      .join(',') +
    '}'
  );
}

function diffKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => stable(a[k]) !== stable(b[k]));
}
