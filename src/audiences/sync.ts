// `audiences sync`: keep an audience's members equal to a file. The input is normalized and
// hashed by the upload's own path (hashed input + worker pool), sorted in bounded memory,
// diffed against the snapshot of what the service acknowledged, and only the difference is
// sent, Deletes first, through the upload's batcher, dispatcher, journal and outcome.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Context } from '../context.js';
import {
  DivergedError,
  InterruptedError,
  PartialError,
  PlanHasChanges,
  UsageError,
  XctlError,
  errnoCode,
  errorMessage,
} from '../core/errors.js';
import { fileSystemError } from '../core/fs-errors.js';
import { Batcher, type FragmentRun } from './batcher.js';
import { EXPIRY_MONTHS, MAX_BYTES, UNHASHED_TYPE } from '../contract/audience-users.js';
import type { InputFormat } from './chunk-processor.js';
import { compareDigests, DIGEST, digestToHex, DigestSorter, FileCursor, ready, type DigestCursor } from './digests.js';
import { Dispatcher } from './dispatcher.js';
import { gateError, parseRejectGate, rejectRate, withinGate, type RejectGate } from './gate.js';
import { countedResults, hexStart, openHashedInput, RecordTally, type HashedInput } from './hashed-input.js';
import type { ColumnRequest } from './input.js';
import { Journal, fileFingerprint } from './journal.js';
import type { IdType } from '../contract/audience-users.js';
import { deadlineOutcome, uploadOutcome } from './outcome.js';
import { applyJournalAction, uploadSender, usersPath } from './pipeline.js';
import { Progress } from './progress.js';
import { ensurePrivateFolder, processAlive } from '../core/store-guard.js';
import { isRecord } from '../contract/guards.js';
import {
  checkFirstSync,
  checkRemoves,
  excessRemoves,
  parseMaxRemoves,
  readRemote,
  UNATTENDED_MAX_REMOVES,
  type RemoteState,
} from './sync-guards.js';
import { DeltaCursor, EmptyCursor } from './digests.js';
import {
  appliedCursor,
  commitPlan,
  lockSnapshot,
  readPending,
  readSnapshotHeader,
  restampSnapshot,
  snapshotCursor,
  snapshotPaths,
  stagePlan,
  writeSnapshot,
  type PendingPlan,
  type SnapshotHeader,
  type SnapshotPaths,
} from './snapshot.js';

export interface SyncOptions {
  audienceId: string;
  accountId: string;
  profile: string;
  /** The config folder: snapshots live under it unless `stateDir` is given. */
  configDir: string;
  /** --state-dir / XCTL_STATE_DIR: where snapshots (and their plans) live instead (CI caches it). */
  stateDir?: string;
  /**
   * --adopt: a first sync against an audience that already holds members adds the file's members
   * and leaves the others (refused otherwise: they could never be removed without a snapshot).
   */
  adopt?: boolean;
  /** --max-removes N|P% (default when unattended: 10% of the audience; 100% turns it off). */
  maxRemoves?: string;
  input: string;
  format: 'auto' | InputFormat;
  columns: ColumnRequest;
  hashed: boolean;
  defaultCountry?: string;
  batchSize: number;
  concurrency: number;
  rejects?: string;
  plan: boolean;
  rebuild: boolean;
  refresh: boolean;
  fromUpload?: string;
  workers?: number;
  /** csv/tsv: a quote never closed runs on instead of stopping the run. */
  lenientQuotes?: boolean;
  /** The reject-rate gate, checked on the whole input before anything is sent. */
  gate?: RejectGate;
  /**
   * --apply plan.json: what the saved plan was made from; the sync refuses (exit 2, nothing
   * sent) when the input's members or the snapshot are not those any more.
   */
  expect?: SavedPlanCheck;
  /** Where members go: a custom audience (the default) or the account's do-not-reach list. */
  target?: 'custom_audience' | 'do_not_reach_list';
  /** --allow-empty: a file without data rows may remove every member. */
  allowEmpty?: boolean;
  /** --abandon: drop an interrupted sync's plan instead of finishing it (the file is synced whole). */
  abandon?: boolean;
}

/** What a saved plan (`--plan --out`) was made from. */
export interface SavedPlanCheck {
  /** SHA-256 over the input's distinct member digests, sorted, and its rejected count. */
  input_digest: string;
  /** The snapshot (and any interrupted plan) the plan was computed against. */
  state_id: string;
}

export interface SyncSummary {
  snapshot: string;
  type: IdType;
  first_sync: boolean;
  /** Members the snapshot held before this run (after finishing an interrupted plan). */
  members_before: number;
  read: number;
  rejected: number;
  /** Rejected values of all values looked at. */
  reject_rate: number;
  /** Distinct members of the input. */
  members: number;
  removes: number;
  adds: number;
  /**
   * Members of the snapshot not in the input, kept because rows of the input were rejected (any
   * of them may be one of these members): nothing is removed while the input has bad rows.
   */
  kept_for_rejects: number;
  /** --adopt: the audience's size (audience_size) before this first sync. */
  adopted_size?: number;
  /** Members of the audience beyond the file that no snapshot knows: they stay (exit 5). */
  unreconciled?: number;
  /** What the service says the audience holds (audience_size), read after the run. */
  audience_size?: number;
  /** Members of the snapshot after the run: equal to audience_size when the run exits 0. */
  snapshot_members?: number;
  /** The first rejected rows (line, column, reason) when rows were rejected. */
  rejected_rows?: string[];
  /** The input's last line has no newline: it may be cut short (its line). */
  unterminated_last_line?: number;
  /** Batches of an interrupted sync, finished (or, with --plan, still to finish) first. */
  resumed_batches: number;
  requests: number;
  acknowledged: number;
  retries: number;
  seconds: number;
  /** For a saved plan: the input's fingerprint and the state it was diffed against. */
  input_digest?: string;
  state_id?: string;
}

export const SYNC_FIELDS = [
  'snapshot',
  'type',
  'first_sync',
  'members_before',
  'read',
  'rejected',
  'reject_rate',
  'members',
  'removes',
  'adds',
  'kept_for_rejects',
  'adopted_size',
  'unreconciled',
  'audience_size',
  'snapshot_members',
  'resumed_batches',
  'requests',
  'acknowledged',
  'retries',
  'seconds',
];

/** Members should be sent again a month before the service's expiry takes them. */
function nearExpiry(oldestSentAt: string, nowMs: number): boolean {
  const d = new Date(oldestSentAt);
  d.setUTCMonth(d.getUTCMonth() + EXPIRY_MONTHS - 1);
  return nowMs > d.getTime();
}

type Who = { profile: string; account: string; audience: string };
/** What the progress line counts: read records and acknowledged members, of whichever stage runs. */
type Tally = { read: () => number; acknowledged: () => number };
/** The one sync's fixed facts, handed to its steps. */
interface SyncRun {
  type: IdType;
  paths: SnapshotPaths;
  who: Who;
  summary: SyncSummary;
  /** The progress line's source, moved from stage to stage. */
  progress: { tally: Tally };
  started: number;
}

/**
 * One sync: the input hashed and sorted, diffed against the snapshot of what was sent before,
 * the difference sent (an interrupted sync's plan finished first), the snapshot written.
 */
export async function runSync(ctx: Context, o: SyncOptions): Promise<SyncSummary> {
  const started = performance.now();
  const src = await openHashedInput(ctx, {
    input: o.input,
    format: o.format,
    columns: o.columns,
    hashed: o.hashed,
    defaultCountry: o.defaultCountry,
    workers: o.workers,
    lenientQuotes: o.lenientQuotes,
  });
  if (!src)
    throw new UsageError(`${o.input === '-' ? 'stdin' : o.input} is empty: a sync to it would remove every member`, {
      flag: '<file>',
      hint: 'to remove members on purpose, use `xctl audiences upload --delete`',
    });
  let unlock: (() => void) | undefined;
  const held: { sorted?: DigestCursor; tmp: string[] } = { tmp: [] };
  try {
    const type = syncType(src);
    const paths = snapshotPaths(o.stateDir ?? o.configDir, o.profile, o.accountId, o.audienceId, type);
    if (!o.plan) {
      ensureStateDir(paths.dir, o.stateDir);
      unlock = lockSnapshot(paths);
      sweep(paths);
    }
    const run: SyncRun = {
      type,
      paths,
      who: { profile: o.profile, account: o.accountId, audience: o.audienceId },
      summary: emptySummary(paths.snapshot, type),
      progress: { tally: { read: () => 0, acknowledged: () => 0 } },
      started,
    };
    const prior = await priorState(ctx, o, run);
    const canRead = await hasUserCredentials(ctx);
    // Before the input is read: a first sync that could never remove anyone is refused.
    const adoptedSize =
      !prior.base && !prior.pending && !o.rebuild
        ? await checkFirstSync(ctx, {
            ...o,
            adopt: !!o.adopt,
            canRead,
            snapshot: paths.snapshot,
            target: o.target,
          })
        : undefined;
    // Before the snapshot is trusted: the audience must still be what the last sync left.
    if (prior.base && canRead && !prior.repair && !(prior.pending && ackedIn(prior.pending) > 0)) {
      const now = await readRemote(ctx, o.accountId, o.audienceId, o.target);
      run.summary.audience_size = now.size;
      if (checkRemote(ctx, o, prior.base, now, paths.snapshot) === 'repair') prior.repair = true;
    }
    const progress = new Progress(
      ctx.io,
      () => ({
        read: run.progress.tally.read(),
        acknowledged: run.progress.tally.acknowledged(),
        bytesRead: src.bytesDone(),
        totalBytes: src.totalBytes,
        elapsedMs: performance.now() - started,
      }),
      Number(ctx.env.XCTL_PROGRESS_INTERVAL_MS ?? 5000),
      'acknowledged',
      !o.plan,
    );
    try {
      return await diffAndSend(ctx, o, run, { src, held, adoptedSize, ...prior });
    } catch (e) {
      if (e instanceof XctlError && !o.plan) e.summary = partialSummary(run.summary, e.summary, started);
      throw e;
    } finally {
      progress.stop();
    }
  } finally {
    await held.sorted?.close();
    await src.close();
    for (const d of held.tmp) fs.rmSync(d, { recursive: true, force: true });
    unlock?.();
  }
}

function emptySummary(snapshot: string, type: IdType): SyncSummary {
  return {
    snapshot,
    type,
    first_sync: false,
    members_before: 0,
    read: 0,
    rejected: 0,
    reject_rate: 0,
    members: 0,
    removes: 0,
    adds: 0,
    kept_for_rejects: 0,
    resumed_batches: 0,
    requests: 0,
    acknowledged: 0,
    retries: 0,
    seconds: 0,
  };
}

/**
 * What this sync starts from: the snapshot (dropped by --rebuild, seeded by --from-upload) and an
 * interrupted sync's plan, and the state id a saved plan (--apply) must still match.
 */
async function priorState(ctx: Context, o: SyncOptions, run: SyncRun): Promise<Prior> {
  const { paths, type } = run;
  const dropPending = (flag: string) => {
    const old = readPending(paths);
    if (old)
      ctx.io.warn(
        `${flag}: dropping an interrupted sync (${old.header.removes} removes, ${old.header.adds} adds); what it sent stays in the audience`,
      );
    fs.rmSync(paths.pending, { recursive: true, force: true });
  };
  if (o.rebuild && !o.plan) {
    // A snapshot that cannot be read, or of another audience, is no basis for removals: it goes
    // (and its plan with it).
    let usable = false;
    try {
      const h = readSnapshotHeader(paths.snapshot);
      usable = !h || (h.type === type && h.account === o.accountId && h.audience === o.audienceId);
    } catch {
      usable = false;
    }
    if (!usable) {
      dropPending('--rebuild');
      fs.rmSync(paths.snapshot, { force: true });
    }
  }
  if (o.fromUpload) {
    if (o.plan)
      throw new UsageError('--from-upload writes the snapshot: run it without --plan', { flag: '--from-upload' });
    dropPending('--from-upload');
    const seeded = await seedFromUpload(ctx, o, type, paths, run.who);
    ctx.io.info(`snapshot seeded from the upload journal ${o.fromUpload}: ${seeded.count} members`);
  }
  const base = readSnapshotHeader(paths.snapshot);
  if (base && (base.type !== type || base.account !== o.accountId || base.audience !== o.audienceId)) {
    throw new UsageError(
      `the snapshot ${paths.snapshot} belongs to ${base.audience} (${base.type}) of account ${base.account}`,
      { flag: '--rebuild' },
    );
  }
  let pending = readPending(paths);
  if (pending && pending.header.base !== (base?.id ?? null)) {
    // Its snapshot was written already (killed before the plan was dropped): it is done.
    if (!o.plan) fs.rmSync(paths.pending, { recursive: true, force: true });
    pending = undefined;
  }
  const stateId = `${base?.id ?? 'none'}+${pending?.header.id ?? 'none'}`;
  // --rebuild, and --abandon with a plan pending: the plan is not finished; the file is sent
  // whole, and removed are the members of the snapshot and of the plan's adds not in the file.
  const repair = !!o.rebuild || (!!o.abandon && !!pending);
  if (o.abandon && !pending) ctx.io.info('--abandon: no interrupted sync is pending here');
  if (repair && pending)
    ctx.io.warn(
      `${o.rebuild ? '--rebuild' : '--abandon'}: the interrupted sync (${pending.header.removes} removes, ${pending.header.adds} adds) is not finished; every member of the file is sent again and what it added that the file lacks is removed`,
    );
  if (o.expect && o.expect.state_id !== stateId) {
    throw new UsageError(
      `the snapshot of this audience changed since the plan was saved (another sync ran, or the state folder is not the same): nothing was sent`,
      {
        flag: '--apply',
        hint: 'make the plan again (`sync --plan --out FILE`) against the current state, review it, then apply it',
      },
    );
  }
  return { base, pending, stateId, repair };
}

/** What a sync starts from (priorState). */
interface Prior {
  base?: SnapshotHeader;
  pending?: PendingPlan;
  stateId: string;
  /** The file is sent whole and the snapshot (with a dropped plan's adds) is only the basis of removals. */
  repair: boolean;
}

/**
 * Whether the audience is still what the last sync from this snapshot left: its size and
 * updated_at as the snapshot recorded them. A size that differs is refused (exit 2, nothing
 * sent) unless --adopt; an audience that changed at the same size (a rename, or members added
 * and removed alike) is repaired: the file is sent whole and the size checked at the end.
 */
export function checkRemote(
  ctx: Pick<Context, 'io'>,
  o: Pick<SyncOptions, 'adopt' | 'audienceId'>,
  base: SnapshotHeader,
  now: RemoteState,
  file: string,
): 'ok' | 'repair' {
  const mark = base.remote;
  const expected = base.count + (base.extra ?? 0);
  const moved = mark && (mark.size !== now.size || mark.updated_at !== now.updated_at);
  if (!moved && now.size === (mark ? mark.size : expected) && (!mark || mark.size === expected)) return 'ok';
  if (moved && now.size === mark.size) {
    ctx.io.warn(
      `audience ${o.audienceId} changed at ${now.updated_at} after the last sync from this snapshot (${mark.updated_at}), at the same size (a rename, or members added and removed alike): every member of the file is sent again, and its size checked`,
    );
    return 'repair';
  }
  const why = moved
    ? `changed since the last sync from this snapshot (${mark.size} members at ${mark.updated_at}): it holds ${now.size} members, the snapshot ${expected}`
    : `ended the last sync from this snapshot holding ${now.size} members against the snapshot's ${expected}`;
  const d = now.size - expected;
  const who =
    d > 0
      ? `${d} more: members added by hand or by another tool, or by a later sync whose state folder was not saved`
      : `${-d} fewer: members removed by hand or by another tool, or by a later sync whose state folder was not saved`;
  if (o.adopt) {
    ctx.io.warn(`--adopt: audience ${o.audienceId} ${why} (${who}): every member of the file is sent again`);
    return 'repair';
  }
  throw new UsageError(`audience ${o.audienceId} ${why} (${who}); the snapshot ${file} is stale: nothing was sent`, {
    flag: '--rebuild',
    hint: 'restore the state folder of the last sync if it exists; else --rebuild sends every member of the file again, removes the members this state knows that the file lacks, and checks the size (exit 5 if members no state knows stay), and --adopt does the same and accepts those members',
  });
}

/**
 * An interrupted sync's plan: finished first (its snapshot written), or with --plan counted as
 * still to send, the state then being what it would leave. Its removals meet today's guard
 * first: a mistaken plan is not finished unguarded (--abandon drops it).
 */
async function finishPending(
  ctx: Context,
  o: SyncOptions,
  run: SyncRun,
  base: SnapshotHeader | undefined,
  pending: PendingPlan,
): Promise<{ base?: SnapshotHeader; state?: DigestCursor; finished?: { adds: number; removes: number } }> {
  const { summary, paths } = run;
  await guardRemoves(ctx, o, pending.header.removes, base?.count ?? 0, {
    what: `the interrupted sync pending here (${pending.header.removes} removes, ${pending.header.adds} adds) would remove`,
    hint: `if that sync was a mistake, pass --abandon: its plan is dropped and this file is synced instead (every member sent again); if the removals are meant, pass --max-removes ${pending.header.removes}`,
  });
  if (o.plan) {
    const left = pending.header.removes + pending.header.adds;
    ctx.io.info(
      `an interrupted sync is pending (${pending.header.removes} removes, ${pending.header.adds} adds): the next sync finishes it first`,
    );
    summary.resumed_batches = pendingBatches(pending) - ackedIn(pending);
    summary.requests += summary.resumed_batches;
    return { base, state: left > 0 ? await appliedCursor(paths.snapshot, base, pending) : undefined };
  }
  ctx.io.info(
    `finishing an interrupted sync first (${pending.header.removes} removes, ${pending.header.adds} adds): ${paths.pending}`,
  );
  const sent = await sendPlan(ctx, o, pending, (t) => (run.progress.tally = t));
  summary.resumed_batches = sent.requests;
  summary.requests += sent.requests;
  summary.acknowledged += sent.acknowledged;
  summary.retries += sent.retries;
  const after = await commitPlan(paths, base, pending, run.who, new Date(ctx.clock.now()).toISOString(), {
    extra: base?.extra,
  }).catch((e: unknown) => {
    throw snapshotNotWritten(e, paths);
  });
  // Its adds and removes are this run's too (an apply's row counts them).
  return { base: after, finished: { adds: pending.header.adds, removes: pending.header.removes } };
}

/**
 * Removals beyond the limit in force: --max-removes when given; else 10% of the audience, which
 * refuses without a terminal and asks at one (--yes answers). Nothing was sent when it refuses.
 */
async function guardRemoves(
  ctx: Context,
  o: SyncOptions,
  removes: number,
  before: number,
  words?: { what: string; hint: string },
): Promise<void> {
  const given = o.maxRemoves !== undefined;
  const limit = parseMaxRemoves(o.maxRemoves ?? UNATTENDED_MAX_REMOVES);
  const x = excessRemoves(limit, removes, before);
  if (!x) return;
  const what = words?.what ?? 'this sync would remove';
  if (!given && !ctx.io.unattended && !o.plan) {
    ctx.io.warn(`${what} ${removes} of the audience's ${before} members${x.pct}, more than ${x.limit}`);
    if (await ctx.confirm(`remove ${removes} members from audience ${o.audienceId}?`)) return;
    throw new UsageError(`not confirmed: nothing was sent`, { flag: '--max-removes' });
  }
  if (!given && !ctx.io.unattended) return; // --plan at a terminal: the run asks
  if (words)
    throw new UsageError(
      `${what} ${removes} of the audience's ${before} members${x.pct}, more than --max-removes ${x.limit} allows${given ? '' : ' by default when no terminal is attached'}; nothing was sent`,
      { flag: '--abandon', hint: words.hint },
    );
  checkRemoves(limit, removes, before, given);
}

/** The members a plan leaves: the file's for a full plan, else the snapshot's plus adds minus removes. */
function countAfter(base: SnapshotHeader | undefined, plan: PendingPlan): number {
  return plan.header.full ? plan.header.adds : (base?.count ?? 0) + plan.header.adds - plan.header.removes;
}

/** The sync proper: the pending plan finished, the input read, the difference planned and sent. */
async function diffAndSend(
  ctx: Context,
  o: SyncOptions,
  run: SyncRun,
  r: Prior & {
    src: HashedInput;
    held: { sorted?: DigestCursor; tmp: string[] };
    adoptedSize?: number;
  },
): Promise<SyncSummary> {
  const { io } = ctx;
  const { summary, paths, type, started } = run;
  let { base } = r;
  let state: DigestCursor | undefined;
  let finished: { adds: number; removes: number } | undefined;
  if (r.pending && !r.repair) ({ base, state, finished } = await finishPending(ctx, o, run, base, r.pending));
  if (r.repair && r.pending)
    state = new DeltaCursor(
      await snapshotCursor(paths.snapshot, base),
      await FileCursor.open(r.pending.addsFile),
      new EmptyCursor(),
    );
  state ??= await snapshotCursor(paths.snapshot, base);
  summary.members_before = base?.count ?? 0;
  summary.snapshot_members = base?.count ?? 0;
  const stale = base && nearExpiry(base.oldest_sent_at, ctx.clock.now());
  if (stale && !o.refresh && !r.repair)
    io.warn(
      `members first sent on ${base!.oldest_sent_at.slice(0, 10)} expire ${EXPIRY_MONTHS} months after: pass --refresh to send every member again`,
    );
  const full = !base || o.refresh || r.repair;
  summary.first_sync = !base;
  r.held.sorted = await hashAndSort(ctx, o, run, r.src, r.held.tmp);
  const stage = o.plan ? undefined : stagePlan(paths);
  const [input, snap] = [r.held.sorted, state];
  r.held.sorted = undefined; // diff() closes both
  const diffRun = { input, snap, full, stage, summary, stateId: r.stateId, adoptedSize: r.adoptedSize };
  const counts = await guardedDiff(ctx, o, diffRun);
  if (finished) {
    summary.adds += finished.adds;
    summary.removes += finished.removes;
  }
  const batchesFor = (n: number) => Math.ceil(n / usersPerRequest(type, o.batchSize));
  if (r.repair) io.info(`sending every member of the file (${counts.adds}), and removing ${counts.removes}`);
  else if (full && base)
    io.info(`--refresh: sending every member again (${counts.adds}), and removing ${counts.removes}`);
  else if (full)
    io.warn(
      `no snapshot for this audience yet (${paths.snapshot}): the first sync uploads all ${counts.members} members`,
    );
  if (o.plan) {
    summary.requests += batchesFor(counts.adds) + batchesFor(counts.removes);
    summary.seconds = secs(started);
    return summary;
  }
  // Accepted: members beyond the file that --adopt took on (now, or at an earlier sync).
  const accept = !!o.adopt || (!o.rebuild && (base?.extra ?? 0) > 0);
  if (counts.adds + counts.removes === 0) {
    stage!.abort();
    if (r.repair && r.pending) fs.rmSync(paths.pending, { recursive: true, force: true });
    io.info(`in sync: ${counts.members} members, nothing to send`);
    return endCheck(ctx, o, run, base, accept);
  }
  const pending = stage!.commit({ base: base?.id ?? null, type, full, batch_size: o.batchSize });
  const sent = await sendPlan(ctx, o, pending, (t) => (run.progress.tally = t));
  summary.requests += sent.requests;
  summary.acknowledged += sent.acknowledged;
  summary.retries += sent.retries;
  const remote = await readRemote(ctx, o.accountId, o.audienceId, o.target);
  const count = countAfter(base, pending);
  const after = await commitPlan(paths, base, pending, run.who, new Date(ctx.clock.now()).toISOString(), {
    remote,
    extra: accept && remote.size > count ? remote.size - count : 0,
  }).catch((e: unknown) => {
    throw snapshotNotWritten(e, paths);
  });
  return judge(run, after, remote, accept);
}

/** Nothing was sent: the audience is read again and the snapshot's record of it brought up to date. */
async function endCheck(
  ctx: Context,
  o: SyncOptions,
  run: SyncRun,
  base: SnapshotHeader | undefined,
  accept: boolean,
): Promise<SyncSummary> {
  const remote = await readRemote(ctx, o.accountId, o.audienceId, o.target);
  let after = base;
  const count = base?.count ?? 0;
  const marks = { remote, extra: accept && remote.size > count ? remote.size - count : 0 };
  if (base && JSON.stringify({ remote: base.remote, extra: base.extra ?? 0 }) !== JSON.stringify(marks))
    after = await restampSnapshot(run.paths.snapshot, base, marks);
  return judge(run, after, remote, accept);
}

/**
 * The run's answer: exit 0 only when the service holds exactly the snapshot's members and the
 * snapshot is the file's (no member kept for rejected rows); else exit 5 naming the divergence.
 */
function judge(run: SyncRun, after: SnapshotHeader | undefined, remote: RemoteState, accept: boolean): SyncSummary {
  const { summary } = run;
  const count = after?.count ?? 0;
  summary.audience_size = remote.size;
  summary.snapshot_members = count;
  summary.seconds = secs(run.started);
  const extra = remote.size - count;
  const problems: string[] = [];
  if (extra > 0) {
    summary.unreconciled = extra;
    problems.push(
      `the audience holds ${remote.size} members, ${extra} more than the snapshot's ${count}: members no snapshot knows (added by hand or by another tool, by a sync whose state folder was lost, or there before --adopt) stay, and a sync cannot remove them${accept ? ' (accepted with --adopt)' : ''}`,
    );
  } else if (extra < 0) {
    problems.push(
      `the audience holds ${remote.size} members, ${-extra} fewer than the snapshot's ${count}: members were removed by someone else, or the service has not counted them yet`,
    );
  }
  if (summary.kept_for_rejects > 0) {
    problems.push(
      `${summary.kept_for_rejects} members not in the file were kept because ${summary.rejected} rows were rejected (${(summary.rejected_rows ?? []).join('; ')}${summary.rejected > (summary.rejected_rows?.length ?? 0) ? '; ...' : ''})`,
    );
  }
  if (!problems.length) return summary;
  const e = new DivergedError(`the audience does not equal the file: ${problems.join('; ')}`, {
    hint:
      summary.kept_for_rejects > 0 && extra === 0
        ? 'fix or delete the rejected rows (--rejects FILE lists them all), then sync again: the members they held back are removed then'
        : extra > 0
          ? `members no snapshot knows cannot be removed from this audience: sync the file into a new audience (\`xctl audiences create\`, then sync) and target that one${accept ? '' : '; or accept them with --adopt'}`
          : 'run the sync with --rebuild: every member of the file is sent again and the size checked',
  });
  e.summary = { ...summary };
  throw e;
}

/**
 * Reads the whole input, hashing and sorting its members, before anything is sent: the reject
 * gate sees all of it, and an input none of whose records could be used is refused.
 */
async function hashAndSort(
  ctx: Context,
  o: SyncOptions,
  run: SyncRun,
  src: HashedInput,
  tmp: string[],
): Promise<DigestCursor> {
  const { summary, paths } = run;
  const tally = new RecordTally(src, o.hashed, o.rejects);
  run.progress.tally = { read: () => tally.read, acknowledged: () => summary.acknowledged };
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const sortDir = sortDirFor(paths);
  tmp.push(sortDir);
  const sorter = new DigestSorter(sortDir);
  try {
    for await (const r of countedResults(src, tally, ctx.signal)) {
      const f = r.frags;
      // Each fragment is {"<type>":["<64 hex>"]}, (one hashed identifier per member).
      for (let i = 0; i < r.valid; i++)
        if (!sorter.addHex(f, hexStart(r.ends[i]!))) throw new Error('unexpected fragment shape');
      src.giveFrags(f);
    }
  } finally {
    await tally.close();
  }
  summary.read = tally.read;
  summary.rejected = tally.rejected;
  summary.reject_rate = rejectRate(tally.values, tally.rejected);
  if (tally.rejected > 0) summary.rejected_rows = [...tally.firstRejects];
  tally.report(ctx.io);
  const cut = tally.unterminated(ctx.io, o.input === '-' ? '-' : path.resolve(ctx.cwd, o.input));
  if (cut) summary.unterminated_last_line = cut;
  if (ctx.signal.aborted)
    throw ctx.signal.reason instanceof XctlError ? ctx.signal.reason : new InterruptedError('interrupted');
  const gate = o.gate ?? parseRejectGate(undefined);
  if (!withinGate(gate, tally.values, tally.rejected)) throw gateError(gate, tally.values, tally.rejected, false);
  if (tally.read > 0 && tally.valid === 0) {
    throw new UsageError(`none of the ${tally.read} records could be used: a sync to it would remove every member`, {
      hint: `${o.rejects ? `reasons are in ${o.rejects}; ` : 'pass --rejects FILE for every reason; '}check --type / --column${o.hashed ? '' : ', --hashed'} and --default-country`,
    });
  }
  return sorter.finish();
}

/** The summary of a sync that stopped part-way, with what its last plan got acknowledged. */
function partialSummary(
  s: SyncSummary,
  sent: Record<string, unknown> | undefined,
  started: number,
): Record<string, unknown> {
  const n = (k: string) => {
    const v = sent?.[k];
    return typeof v === 'number' ? v : 0;
  };
  return {
    ...s,
    requests: s.requests + n('requests'),
    acknowledged: s.acknowledged + n('acknowledged'),
    retries: s.retries + n('retries'),
    seconds: secs(started),
  };
}

interface DiffRun {
  input: DigestCursor;
  snap: DigestCursor;
  full: boolean;
  stage?: ReturnType<typeof stagePlan>;
  summary: SyncSummary;
  stateId: string;
  adoptedSize?: number;
}

/**
 * The diff with its guards, before anything is sent (the staged plan is dropped when one
 * refuses): a saved plan's input must be the same members; while rows were rejected none of the
 * snapshot's members is removed (any of those rows may be a member still in the file, and a bad
 * row is not a departure); removals above --max-removes are refused; --adopt is reported.
 */
async function guardedDiff(
  ctx: Context,
  o: SyncOptions,
  r: DiffRun,
): Promise<{ members: number; adds: number; removes: number }> {
  const { summary, stage } = r;
  const io = ctx.io;
  const keep = summary.rejected > 0;
  const fingerprint = crypto.createHash('sha256');
  try {
    const counts = await diff(r.input, r.snap, r.full, {
      add: (b, at) => stage?.adds.add(b, at),
      remove: (b, at) => (keep ? undefined : stage?.removes.add(b, at)),
      member: (b, at) => fingerprint.update(b.subarray(at, at + DIGEST)),
    });
    summary.input_digest = fingerprint.update(`rejected:${summary.rejected}`).digest('hex');
    summary.state_id = r.stateId;
    if (o.expect && o.expect.input_digest !== summary.input_digest) {
      throw new UsageError(
        `the input ${o.input} no longer holds the members the plan was made from: nothing was sent`,
        {
          flag: '--apply',
          hint: 'make the plan again (`sync --plan --out FILE`) from the current input, review it, then apply it',
        },
      );
    }
    Object.assign(summary, counts);
    if (keep) {
      summary.kept_for_rejects = counts.removes;
      summary.removes = counts.removes = 0;
      if (summary.kept_for_rejects)
        io.warn(
          `${summary.kept_for_rejects} members not in the input are kept, not removed: ${summary.rejected} rows were rejected and any of them may be one of these members (fix the rows, then sync again)`,
        );
    }
    if (summary.read === 0 && counts.removes > 0 && !o.allowEmpty)
      throw new UsageError(
        `${o.input === '-' ? 'stdin' : o.input} has no data rows: a sync to it would remove all ${counts.removes} members; nothing was sent`,
        {
          flag: '--allow-empty',
          hint: 'check the export (a header alone is what a failed query writes); to empty the audience on purpose, pass --allow-empty',
        },
      );
    await guardRemoves(ctx, o, counts.removes, summary.members_before);
    if (r.adoptedSize !== undefined && o.adopt) {
      summary.adopted_size = r.adoptedSize;
      // An empty audience (one apply just created) has nothing to adopt: nothing to say.
      if (r.adoptedSize > 0)
        io.warn(
          `--adopt: the audience held ${r.adoptedSize} members before this first sync; those not in the file stay (no snapshot knows them): the sync counts them at its end (unreconciled) and exits 5 while any stay`,
          { evenQuiet: true },
        );
    }
    return counts;
  } catch (e) {
    stage?.abort();
    throw e;
  }
}

/** Whether the service can be asked (the audience's size): --plan runs without credentials. */
async function hasUserCredentials(ctx: Context): Promise<boolean> {
  const c = await ctx.credentials();
  return !!(c.api_key && c.api_secret && c.access_token && c.access_token_secret);
}

/**
 * The snapshot folder must be writable before anything is read or sent; when it cannot be
 * created, the error names the folder and the way to choose another.
 */
function ensureStateDir(dir: string, stateDir: string | undefined): void {
  try {
    ensurePrivateFolder(dir);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = errnoCode(e) ?? errorMessage(e);
    throw new UsageError(`cannot keep the sync snapshot in ${dir} (${code}): nothing was sent`, {
      flag: '--state-dir',
      hint: stateDir
        ? 'choose a folder this user can write to with --state-dir or XCTL_STATE_DIR'
        : 'the config folder is not writable here: choose a state folder with --state-dir DIR or XCTL_STATE_DIR',
    });
  }
}

/**
 * Every batch was acknowledged but the snapshot could not be written (a full disk): the plan is
 * still there, so the same sync run again finishes it without sending anything twice (exit 4).
 */
function snapshotNotWritten(e: unknown, paths: { snapshot: string; pending: string }): unknown {
  const fsErr = fileSystemError(e, `write the snapshot ${paths.snapshot}`);
  if (!fsErr) return e;
  return new PartialError(`every batch was acknowledged, but ${fsErr.message}`, {
    hint: `free some space, then run the same sync again: it finishes from the plan ${paths.pending} without sending acknowledged batches again`,
  });
}

/** --plan's answer for CI: exit 0 when in sync, 10 when there is something to send. */
export function planExit(s: SyncSummary): PlanHasChanges | undefined {
  return s.adds + s.removes + s.resumed_batches > 0
    ? new PlanHasChanges(`${s.removes} removes, ${s.adds} adds`)
    : undefined;
}

function secs(started: number): number {
  return Math.round((performance.now() - started) / 10) / 100;
}

/** Spilled sort runs go beside the snapshot, named for the process that owns them. */
function sortDirFor(paths: SnapshotPaths): string {
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  return fs.mkdtempSync(`${paths.pending.replace(/\.pending$/, '')}.sort-${process.pid}-`);
}

/** Removes what a killed run left beside the snapshot: sort runs of dead processes, half-written plans and snapshots. */
function sweep(paths: SnapshotPaths): void {
  const stem = path.basename(paths.pending).replace(/\.pending$/, '');
  for (const f of fs.readdirSync(paths.dir)) {
    if (!f.startsWith(stem + '.')) continue;
    const sort = /\.sort-(\d+)-/.exec(f);
    const stale = sort
      ? !processAlive(Number(sort[1])) || Number(sort[1]) === process.pid
      : f.startsWith(`${stem}.pending.tmp-`) || f.startsWith(`${stem}.snapshot.tmp-`);
    if (stale) fs.rmSync(path.join(paths.dir, f), { recursive: true, force: true });
  }
}

/** A member is one hashed identifier: its digest alone must be enough to send its Delete. */
function syncType(src: HashedInput): IdType {
  const cols = src.columns;
  if (cols.length !== 1) {
    throw new UsageError(
      `sync keeps members of one identifier type, and this input names ${cols.length} (${cols.map((c) => c.type).join(', ')})`,
      {
        flag: '--type',
        hint: 'pick one with --type T or --column TYPE=HEADER; sync each type from its own file',
      },
    );
  }
  const t = cols[0]!.type;
  if (t === UNHASHED_TYPE)
    throw new UsageError(
      `sync needs hashed identifiers: ${UNHASHED_TYPE} is sent as it is, so its members cannot be kept as digests`,
      { flag: '--type' },
    );
  return t;
}

interface DiffSink {
  add(b: Uint8Array, at: number): void;
  remove(b: Uint8Array, at: number): void;
  /** Every member of the input, in order (a saved plan's fingerprint of the input). */
  member?(b: Uint8Array, at: number): void;
}

/** Walks the sorted input against the sorted snapshot: in input only -> add; in snapshot only -> remove. */
export async function diff(
  input: DigestCursor,
  snap: DigestCursor,
  full: boolean,
  sink?: DiffSink,
): Promise<{ members: number; adds: number; removes: number }> {
  let members = 0;
  let adds = 0;
  let removes = 0;
  try {
    let a = await ready(input);
    let b = await ready(snap);
    while (a || b) {
      const c = !a ? 1 : !b ? -1 : compareDigests(input.buf, input.pos * DIGEST, snap.buf, snap.pos * DIGEST);
      if (c <= 0) {
        members++;
        sink?.member?.(input.buf, input.pos * DIGEST);
        if (c < 0 || full) {
          adds++;
          sink?.add(input.buf, input.pos * DIGEST);
        }
        input.pos++;
        a = input.pos < input.end || (await ready(input));
        if (c === 0) {
          snap.pos++;
          b = snap.pos < snap.end || (await ready(snap));
        }
      } else {
        removes++;
        sink?.remove(snap.buf, snap.pos * DIGEST);
        snap.pos++;
        b = snap.pos < snap.end || (await ready(snap));
      }
    }
  } finally {
    await Promise.all([input.close(), snap.close()]);
  }
  return { members, adds, removes };
}

function batchOptions(o: SyncOptions, plan: PendingPlan): Record<string, unknown> {
  return {
    target: o.target ?? 'custom_audience',
    account: o.accountId,
    list: o.audienceId,
    type: plan.header.type,
    batch_size: plan.header.batch_size,
  };
}

/** Users a request carries: --batch-size, unless the 5,000,000-byte limit cuts it first. */
function usersPerRequest(type: IdType, batchSize: number): number {
  const frag = `{"${type}":[""]},`.length + 64;
  return Math.max(1, Math.min(batchSize, Math.floor((MAX_BYTES - 200) / frag)));
}

function pendingBatches(plan: PendingPlan): number {
  const per = usersPerRequest(plan.header.type, plan.header.batch_size);
  return Math.ceil(plan.header.removes / per) + Math.ceil(plan.header.adds / per);
}

function ackedIn(plan: PendingPlan): number {
  if (!fs.existsSync(plan.journalFile)) return 0;
  return fs
    .readFileSync(plan.journalFile, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"b":')).length;
}

/**
 * Sends a plan: its removes as Delete batches, then its adds as Update batches, skipping the
 * batches its journal acknowledged. Throws the upload's outcome error when it cannot finish
 * (the plan stays, and the next sync resumes it).
 */
async function sendPlan(
  ctx: Context,
  o: SyncOptions,
  plan: PendingPlan,
  onProgress: (t: { read: () => number; acknowledged: () => number }) => void,
): Promise<{ requests: number; acknowledged: number; retries: number }> {
  const journal = Journal.open(
    plan.journalFile,
    { fingerprint: { plan: plan.header.id }, options: batchOptions(o, plan) },
    { flag: '--rebuild' },
  );
  let dispatcher: Dispatcher | undefined;
  let sender: Awaited<ReturnType<typeof uploadSender>> | undefined;
  let sent = 0;
  try {
    sender = await uploadSender(
      ctx,
      usersPath({ target: o.target ?? 'custom_audience', accountId: o.accountId, listId: o.audienceId }),
    );
    const s = sender;
    let current: Batcher | undefined;
    const d = (dispatcher = new Dispatcher({
      concurrency: o.concurrency,
      signal: ctx.signal,
      send: (b) => s.send(b),
      journal,
      recycle: (body) => current?.recycle(body),
      onAck: () => undefined,
    }));
    onProgress({ read: () => plan.header.removes + plan.header.adds, acknowledged: () => d.tally.acknowledged });
    let offset = 0;
    for (const [file, op] of [
      [plan.removesFile, 'Delete'],
      [plan.addsFile, 'Update'],
    ] as const) {
      // The plan's own batch size: a resumed plan must cut the batches its journal recorded.
      const batcher = (current = new Batcher({ maxUsers: plan.header.batch_size }, { operationType: op }));
      let cut = 0;
      const shift = offset;
      const dispatch = async (b: ReturnType<Batcher['push']>[number]) => {
        cut++;
        if (!d.stopped()) await d.dispatch(shift ? { ...b, index: b.index + shift } : b);
      };
      const c = await FileCursor.open(file);
      try {
        while (!d.stopped() && (await ready(c))) {
          for (const b of batcher.push(fragments(plan.header.type, c))) await dispatch(b);
        }
      } finally {
        await c.close();
      }
      if (d.stopped()) break;
      const last = batcher.flush();
      if (last) await dispatch(last);
      offset += cut;
    }
    await d.settle();
    sent = d.tally.batches;
  } catch (e) {
    journal.close();
    throw e;
  }
  const d = dispatcher!;
  const total = plan.header.removes + plan.header.adds;
  const end = uploadOutcome({
    dryRun: false,
    interrupted: ctx.signal.aborted,
    failure: d.failure,
    inputError: d.inputError,
    journal: { file: journal.file, ackedBatches: journal.acked.size, isDefault: false },
    isStdin: false,
    read: total,
    valid: total,
    acknowledged: d.tally.acknowledged,
    resumeHint: `run the sync again: it finishes this plan first (${plan.dir})`,
  });
  if (end.error) {
    // The plan and its journal stay whatever happened: the next sync resumes them.
    const error = deadlineOutcome(end.error, ctx.signal)!;
    error.summary = { requests: sent, acknowledged: d.tally.acknowledged, retries: sender?.retries ?? 0 };
    applyJournalAction(journal, 'close');
    if (end.notice) ctx.io.err(end.notice);
    throw error;
  }
  journal.close();
  return { requests: sent, acknowledged: d.tally.acknowledged, retries: sender?.retries ?? 0 };
}

/** The next block of a digest cursor as user fragments {"<type>":["<hex>"]}, (consumed). */
function fragments(type: IdType, c: DigestCursor): FragmentRun {
  const head = Buffer.from(`{"${type}":["`, 'latin1');
  const size = head.length + 64 + 4;
  const n = c.end - c.pos;
  const frags = Buffer.allocUnsafeSlow(n * size);
  const ends = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * size;
    head.copy(frags, o);
    digestToHex(c.buf, (c.pos + i) * DIGEST, frags, o + head.length);
    frags.write('"]},', o + head.length + 64, 'latin1');
    ends[i] = o + size;
  }
  c.pos = c.end;
  return { frags, ends };
}

/** A finished upload journal's lines and its first line (what the upload sent, from which file). */
function readUploadJournal(file: string): {
  lines: string[];
  head: UploadJournalHead & { options: Record<string, unknown>; fingerprint: Record<string, unknown> };
} {
  const flag = { flag: '--from-upload' };
  let lines: string[];
  try {
    lines = fs.readFileSync(file, 'utf8').split('\n');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${errnoCode(e) === 'ENOENT' ? 'no such file' : errorMessage(e)}`, flag);
  }
  let head: UploadJournalHead;
  try {
    head = JSON.parse(lines[0] ?? '');
  } catch {
    head = {};
  }
  if (head.xctl_upload_journal !== 1 || !head.options || !head.fingerprint)
    throw new UsageError(`${file} is not an upload journal`, flag);
  if (!lines.some((l) => l.startsWith('{"done":true'))) {
    throw new UsageError(`the upload of ${file} did not finish: resume it first (run the same upload command again)`, {
      ...flag,
      hint: 'a finished upload journal stays when the upload ran with --journal FILE',
    });
  }
  return { lines, head: { ...head, options: head.options, fingerprint: head.fingerprint } };
}

interface UploadJournalHead {
  xctl_upload_journal?: number;
  input?: string;
  fingerprint?: Record<string, unknown>;
  options?: Record<string, unknown>;
}

/**
 * --from-upload: the snapshot becomes the members a finished upload sent, read again from the
 * input its journal names (checked against the journal's fingerprint) and hashed the same way.
 */
async function seedFromUpload(
  ctx: Context,
  o: SyncOptions,
  type: IdType,
  paths: SnapshotPaths,
  who: { profile: string; account: string; audience: string },
): Promise<SnapshotHeader> {
  const file = o.fromUpload!;
  const flag = { flag: '--from-upload' };
  const { lines, head } = readUploadJournal(file);
  const opt = head.options as {
    target?: string;
    account?: string;
    list?: string;
    operation?: string;
    columns?: string[];
    format?: InputFormat;
    hashed?: boolean;
    default_country?: string;
  };
  if (opt.target !== 'custom_audience' || opt.account !== o.accountId || opt.list !== o.audienceId) {
    throw new UsageError(
      `the journal ${file} is of an upload to ${opt.target === 'custom_audience' ? 'audience' : 'list'} ${opt.list} of account ${opt.account}, not ${o.audienceId} of ${o.accountId}`,
      flag,
    );
  }
  if (opt.operation !== 'Update')
    throw new UsageError(`the journal ${file} is of an upload with --delete: it added no members`, flag);
  const cols = opt.columns ?? [];
  const [ctype = '', name] = (cols[0] ?? '').split('=');
  if (cols.length !== 1 || ctype !== type)
    throw new UsageError(
      `the journal ${file} is of an upload of ${cols.map((c) => c.split('=')[0]).join(', ')}, not ${type}`,
      flag,
    );
  if ('stdin' in head.fingerprint)
    throw new UsageError(`the journal ${file} is of an upload from stdin: its input cannot be read again`, flag);
  const input = head.input ?? o.input;
  let same = false;
  try {
    same = JSON.stringify(fileFingerprint(input)) === JSON.stringify(head.fingerprint);
  } catch {
    same = false;
  }
  if (!same)
    throw new UsageError(
      `the file the upload sent (${input}) is gone or has changed since: the journal cannot say which members it holds`,
      { ...flag, hint: 'use --rebuild to upload the whole file instead' },
    );
  const src = await openHashedInput(ctx, {
    input,
    format: opt.format ?? 'auto',
    columns: name && name !== ctype ? { columns: [{ type, header: name }] } : { type, columns: [] },
    hashed: !!opt.hashed,
    defaultCountry: opt.default_country,
    workers: o.workers,
  });
  if (!src) throw new UsageError(`${input} is empty`, flag);
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const sortDir = sortDirFor(paths);
  try {
    const sorter = new DigestSorter(sortDir);
    for await (const r of src.results()) {
      for (let i = 0; i < r.valid; i++) sorter.addHex(r.frags, hexStart(r.ends[i]!));
      src.giveFrags(r.frags);
    }
    const now = new Date(ctx.clock.now()).toISOString();
    return await writeSnapshot(paths.snapshot, await sorter.finish(), {
      ...who,
      type,
      oldest_sent_at: lineTime(lines) ?? now,
    });
  } finally {
    await src.close();
    fs.rmSync(sortDir, { recursive: true, force: true });
  }
}

function lineTime(lines: string[]): string | undefined {
  try {
    const head: unknown = JSON.parse(lines[0]!);
    return isRecord(head) && typeof head.created_at === 'string' ? head.created_at : undefined;
  } catch {
    return undefined;
  }
}
