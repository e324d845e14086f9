// The sync snapshot: the digests the service acknowledged for one audience and identifier type,
// per profile and account, sorted, 32 bytes each after a 512-byte header. It is replaced only
// whole (written aside, synced, renamed), and only once every batch of a plan is acknowledged;
// until then the plan in progress (its adds, removes and journal) lives in a pending folder
// beside it, so a sync killed at any instant resumes the same plan and loses nothing.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { RetryLaterError, UsageError, errnoCode } from '../core/errors.js';
import { DeltaCursor, DIGEST, DigestWriter, drainTo, EmptyCursor, FileCursor, type DigestCursor } from './digests.js';
import type { IdType } from '../contract/audience-users.js';
import { writeAllSync } from '../core/write-all.js';
import { tryLock } from '../core/file-lock.js';

export const HEADER_BYTES = 512;
const MAGIC = 'xctl-audience-snapshot 1\n';

export interface SnapshotHeader {
  id: string;
  profile: string;
  account: string;
  audience: string;
  type: IdType;
  count: number;
  created_at: string;
  /** When the oldest member still here was last sent (members expire 13 months after that). */
  oldest_sent_at: string;
  /**
   * What the service said of the audience once this snapshot's members were acknowledged: its
   * audience_size and updated_at. The next sync checks the audience still says so before it
   * trusts the snapshot (absent in snapshots of older versions: the size alone is checked).
   */
  remote?: { size: number; updated_at: string | null };
  /** Members the service holds beyond the snapshot that --adopt accepted (they stay; exit 5). */
  extra?: number;
}

export interface PlanHeader {
  id: string;
  /** The snapshot id this plan applies to (null: none yet). */
  base: string | null;
  type: IdType;
  removes: number;
  adds: number;
  /** Every input member is in adds (first sync, --rebuild, --refresh). */
  full: boolean;
  batch_size: number;
  created_at: string;
}

export interface SnapshotPaths {
  dir: string;
  snapshot: string;
  pending: string;
  lock: string;
}

/** Where an audience's snapshot lives: <config dir>/audiences/<profile>/<account>/<audience>.<type>.* */
export function snapshotPaths(
  configDir: string,
  profile: string,
  account: string,
  audience: string,
  type: IdType,
): SnapshotPaths {
  const dir = path.join(configDir, 'audiences', safe(profile), safe(account));
  const base = path.join(dir, `${safe(audience)}.${type}`);
  return { dir, snapshot: `${base}.snapshot`, pending: `${base}.pending`, lock: `${base}.lock` };
}

function safe(s: string): string {
  return encodeURIComponent(s).replace(/%/g, '_');
}

export function readSnapshotHeader(file: string): SnapshotHeader | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const b = Buffer.alloc(HEADER_BYTES);
    const n = fs.readSync(fd, b, 0, HEADER_BYTES, 0);
    const text = b.toString('utf8', 0, n);
    if (n < HEADER_BYTES || !text.startsWith(MAGIC))
      throw new UsageError(`${file} is not an audience snapshot`, {
        flag: '--rebuild',
        hint: 'pass --rebuild to start the snapshot over',
      });
    const h = JSON.parse(text.slice(MAGIC.length)) as SnapshotHeader;
    const size = fs.fstatSync(fd).size;
    if (size !== HEADER_BYTES + h.count * DIGEST)
      throw new UsageError(`the snapshot ${file} is damaged (${size} bytes for ${h.count} members)`, {
        flag: '--rebuild',
        hint: 'pass --rebuild to start the snapshot over',
      });
    return h;
  } finally {
    fs.closeSync(fd);
  }
}

export async function snapshotCursor(file: string, h: SnapshotHeader | undefined): Promise<DigestCursor> {
  return h ? FileCursor.open(file, HEADER_BYTES, h.count) : new EmptyCursor();
}

function headerBytes(h: SnapshotHeader): Buffer {
  const text = MAGIC + JSON.stringify(h);
  if (Buffer.byteLength(text) > HEADER_BYTES - 1) throw new Error('snapshot header too long');
  return Buffer.from(text.padEnd(HEADER_BYTES - 1, ' ') + '\n');
}

/**
 * Writes a new snapshot from a sorted cursor: aside, synced, then renamed over the old one (a
 * kill at any instant leaves either the old snapshot or the new one, never a mix).
 */
export async function writeSnapshot(
  file: string,
  from: DigestCursor,
  h: Omit<SnapshotHeader, 'id' | 'count' | 'created_at'>,
): Promise<SnapshotHeader> {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${crypto.randomBytes(4).toString('hex')}`;
  const w = DigestWriter.create(tmp, Buffer.alloc(HEADER_BYTES));
  try {
    await drainTo(from, w);
    w.finish();
  } catch (e) {
    w.abort();
    throw e;
  }
  const full: SnapshotHeader = {
    id: crypto.randomBytes(8).toString('hex'),
    ...h,
    count: w.count,
    created_at: new Date().toISOString(),
  };
  const fd = fs.openSync(tmp, 'r+');
  try {
    writeAllSync(fd, headerBytes(full).subarray(0, HEADER_BYTES), 0);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  syncDir(path.dirname(file));
  return full;
}

function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* not every platform syncs directories */
  }
}

/** A plan in progress: what must be sent, and the journal of what was acknowledged. */
export interface PendingPlan {
  dir: string;
  header: PlanHeader;
  removesFile: string;
  addsFile: string;
  journalFile: string;
}

export function readPending(p: SnapshotPaths): PendingPlan | undefined {
  const planFile = path.join(p.pending, 'plan.json');
  if (!fs.existsSync(planFile)) {
    // A plan never finished being written (killed while preparing it): nothing of it was sent.
    if (fs.existsSync(p.pending)) fs.rmSync(p.pending, { recursive: true, force: true });
    return undefined;
  }
  const header = JSON.parse(fs.readFileSync(planFile, 'utf8')) as PlanHeader;
  return {
    dir: p.pending,
    header,
    removesFile: path.join(p.pending, 'removes.bin'),
    addsFile: path.join(p.pending, 'adds.bin'),
    journalFile: path.join(p.pending, 'journal.jsonl'),
  };
}

/** Prepares a plan folder beside the snapshot; `commit()` makes it the pending plan (atomically). */
export function stagePlan(p: SnapshotPaths): {
  dir: string;
  removes: DigestWriter;
  adds: DigestWriter;
  commit(h: Omit<PlanHeader, 'id' | 'created_at' | 'removes' | 'adds'>): PendingPlan;
  abort(): void;
} {
  fs.mkdirSync(p.dir, { recursive: true, mode: 0o700 });
  const dir = `${p.pending}.tmp-${crypto.randomBytes(4).toString('hex')}`;
  fs.mkdirSync(dir, { mode: 0o700 });
  const removes = DigestWriter.create(path.join(dir, 'removes.bin'));
  const adds = DigestWriter.create(path.join(dir, 'adds.bin'));
  return {
    dir,
    removes,
    adds,
    commit(h) {
      removes.finish();
      adds.finish();
      const header: PlanHeader = {
        id: crypto.randomBytes(8).toString('hex'),
        ...h,
        removes: removes.count,
        adds: adds.count,
        created_at: new Date().toISOString(),
      };
      const planFile = path.join(dir, 'plan.json');
      fs.writeFileSync(planFile, JSON.stringify(header) + '\n', { mode: 0o600 });
      const fd = fs.openSync(planFile, 'r');
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.rmSync(p.pending, { recursive: true, force: true });
      fs.renameSync(dir, p.pending);
      syncDir(p.dir);
      return readPending(p)!;
    },
    abort() {
      removes.abort();
      adds.abort();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The snapshot once the plan is applied: base ∪ adds − removes. */
export async function appliedCursor(
  snapshotFile: string,
  base: SnapshotHeader | undefined,
  plan: PendingPlan,
): Promise<DigestCursor> {
  return new DeltaCursor(
    await snapshotCursor(snapshotFile, base),
    await FileCursor.open(plan.addsFile),
    await FileCursor.open(plan.removesFile),
  );
}

/**
 * Folds a fully acknowledged plan into the snapshot, then drops the plan. Killed between the
 * two, the next run sees a plan whose base is no longer the snapshot and drops it then.
 */
export async function commitPlan(
  p: SnapshotPaths,
  base: SnapshotHeader | undefined,
  plan: PendingPlan,
  who: { profile: string; account: string; audience: string },
  now: string,
  marks: Pick<SnapshotHeader, 'remote' | 'extra'> = {},
): Promise<SnapshotHeader> {
  const h = await writeSnapshot(p.snapshot, await appliedCursor(p.snapshot, base, plan), {
    ...who,
    type: plan.header.type,
    // A full plan sent every member again: their expiry starts over.
    oldest_sent_at: plan.header.full || !base ? now : base.oldest_sent_at,
    ...marks,
  });
  fs.rmSync(p.pending, { recursive: true, force: true });
  return h;
}

/** The same members under a new header (what the service says of the audience changed). */
export async function restampSnapshot(
  file: string,
  h: SnapshotHeader,
  marks: Pick<SnapshotHeader, 'remote' | 'extra'>,
): Promise<SnapshotHeader> {
  const { id: _i, count: _c, created_at: _t, ...rest } = h;
  return writeSnapshot(file, await snapshotCursor(file, h), { ...rest, ...marks });
}

/** One sync of an audience's type at a time: a lock file naming the process that holds it. */
export function lockSnapshot(p: SnapshotPaths): () => void {
  fs.mkdirSync(p.dir, { recursive: true, mode: 0o700 });
  const got = tryLock(p.lock);
  if ('release' in got) return got.release;
  const who = got.held ? `process ${got.held.pid}` : 'starting';
  throw new RetryLaterError(`another sync of this audience is running (${who})`, {
    hint: `wait for it to finish; if it is gone, remove ${p.lock}`,
  });
}
