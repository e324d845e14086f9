// The upload pipeline: read -> normalize + hash (worker threads) -> batch -> send -> journal.
// Memory stays flat: reading waits for the workers, and the workers wait for the senders.
// The parts: hashed-input (reader + worker pool), batcher, dispatcher (concurrency, journal,
// recycling), outcome (exit and journal action); this file wires them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Context } from '../context.js';
import { PartialError, UsageError, errnoCode, errorMessage } from '../core/errors.js';
import { ensurePrivateFolder } from '../core/store-guard.js';
import { Batcher } from './batcher.js';
import type { InputFormat } from './chunk-processor.js';
import { Dispatcher } from './dispatcher.js';
import { gatedResults, openHashedInput, RecordTally, type HashedInput } from './hashed-input.js';
import { parseRejectGate, rejectRate, type RejectGate } from './gate.js';
import type { ColumnRequest } from './input.js';
import { Journal, fileFingerprint } from './journal.js';
import { UPLOAD_BODY_BYTES, USERS_PER_REQUEST, type IdType } from '../contract/audience-users.js';
import { deadlineOutcome, uploadOutcome, type JournalAction } from './outcome.js';
import { Progress } from './progress.js';
import type { Sender } from './sender.js';

export interface UploadOptions {
  target: 'custom_audience' | 'do_not_reach_list';
  accountId?: string;
  listId: string;
  input: string; // a path, or "-" for stdin
  format: 'auto' | InputFormat;
  columns: ColumnRequest;
  allowedTypes?: IdType[];
  hashed: boolean;
  defaultCountry?: string;
  operation: 'Update' | 'Delete';
  effectiveAt?: string;
  expiresAt?: string;
  /** Users per request; undefined: as many as fit in UPLOAD_BODY_BYTES. */
  batchSize?: number;
  concurrency: number;
  dryRun: boolean;
  out?: string;
  journal?: string;
  /** --state-dir / XCTL_STATE_DIR: where the default journal lives (else the config folder). */
  stateDir?: string;
  restart: boolean;
  rejects?: string;
  workers?: number;
  /** Reject a whole row when one of its identifiers is bad (the default keeps the good ones). */
  strictRows?: boolean;
  /** csv/tsv: a quote never closed runs on instead of stopping the run. */
  lenientQuotes?: boolean;
  /** The reject-rate gate (default: 0.2 past 1,000 values). */
  gate?: RejectGate;
}

export interface UploadSummary {
  /** Data lines of the input (after a header): read + blank + joined_lines. */
  lines: number;
  /** Records read (rows). */
  read: number;
  /** Blank lines: not records. */
  blank: number;
  /** Lines inside quoted fields, part of the record before them. */
  joined_lines: number;
  valid: number;
  rejected: number;
  /** Rejected values of all values looked at. */
  reject_rate: number;
  sent: number;
  acknowledged: number;
  batches: number;
  retries: number;
  resumed_batches: number;
  /** Batches the journal acknowledged whose content has changed since: sent again. */
  changed_batches: number;
  seconds: number;
  records_per_s: number;
  /** The input's last line has no newline: it may be cut short (its line). */
  unterminated_last_line?: number;
}

/** The endpoint a batch goes to (docs/contract.md, ads section 4.4). */
export function usersPath(o: Pick<UploadOptions, 'target' | 'accountId' | 'listId'>): string {
  return o.target === 'custom_audience'
    ? `/12/accounts/${o.accountId}/custom_audiences/${o.listId}/users`
    : `/12/batch/accounts/${o.accountId}/do_not_reach_lists/${o.listId}/users`;
}

export async function runUpload(ctx: Context, o: UploadOptions): Promise<UploadSummary> {
  const started = performance.now();
  const io = ctx.io;
  const stats = emptyUploadSummary();
  const src = await openHashedInput(ctx, { ...o, allowedFor: 'do-not-reach lists', prescan: true });
  // A 0-byte input is what a failed export leaves: refused as inspect and sync refuse it.
  if (!src)
    throw new UsageError(`${o.input === '-' ? 'stdin' : o.input} is empty (0 bytes): nothing was sent`, {
      flag: '<file>',
      hint: 'check the export that wrote it',
    });
  const batchOptions = batchOptionsOf(o, src);
  let journal: Journal | undefined;
  let journalIsDefault = false;
  let sender: Sender | undefined;
  try {
    ({ journal, isDefault: journalIsDefault } = await openUploadJournal(ctx, o, src.isStdin, batchOptions));
    if (!o.dryRun) sender = await uploadSender(ctx, usersPath(o));
  } catch (e) {
    journal?.close();
    await src.close();
    throw e;
  }

  const batcher = new Batcher(
    // Full bodies unless --batch-size asks for fewer users: the rate limit counts requests.
    { maxUsers: o.batchSize ?? USERS_PER_REQUEST.max, maxBytes: UPLOAD_BODY_BYTES },
    { operationType: o.operation, effectiveAt: o.effectiveAt, expiresAt: o.expiresAt },
    (run) => src.giveFrags(run.frags),
  );
  const tally = new RecordTally(src, o.hashed, o.rejects);
  const out = o.dryRun && o.out ? fs.createWriteStream(o.out) : undefined;
  const dispatcher = new Dispatcher({
    concurrency: o.concurrency,
    signal: ctx.signal,
    send: sender && ((b) => sender.send(b)),
    out,
    journal,
    recycle: (body) => batcher.recycle(body),
  });
  const t = dispatcher.tally;
  const progress = new Progress(
    io,
    () => ({
      read: tally.read,
      valid: tally.valid,
      acknowledged: o.dryRun ? t.sent : t.acknowledged,
      bytesRead: src.bytesDone(),
      totalBytes: src.totalBytes,
      elapsedMs: performance.now() - started,
      batches: t.batches + t.resumed_batches,
      batchSize: o.batchSize ?? batcher.fullUsers,
    }),
    Number(ctx.env.XCTL_PROGRESS_INTERVAL_MS ?? 5000),
    o.dryRun ? 'packed' : 'acknowledged',
  );
  try {
    await pumpBatches(src, tally, batcher, dispatcher, o.gate ?? parseRejectGate(undefined));
  } finally {
    progress.stop();
    await src.close();
    await Promise.all([tally.close(), out ? new Promise((r) => out.end(r)) : undefined]);
  }

  const counts = {
    lines: tally.lines,
    read: tally.read,
    blank: tally.blank,
    joined_lines: tally.joined,
    valid: tally.valid,
    rejected: tally.rejected,
    reject_rate: rejectRate(tally.values, tally.rejected),
  };
  Object.assign(stats, counts, t, { changed_batches: dispatcher.changedBatches });
  stats.seconds = Math.round((performance.now() - started) / 10) / 100;
  stats.records_per_s = stats.seconds > 0 ? Math.round(stats.read / stats.seconds) : stats.read;
  stats.retries = sender?.retries ?? 0;
  tally.report(io);
  const cut = tally.unterminated(io, o.input === '-' ? '-' : path.resolve(ctx.cwd, o.input));
  if (cut) stats.unterminated_last_line = cut;
  if (stats.changed_batches > 0)
    io.warn(
      `${stats.changed_batches} batch${stats.changed_batches === 1 ? '' : 'es'} acknowledged before had changed in the input and ${stats.changed_batches === 1 ? 'was' : 'were'} sent again`,
    );
  endUpload(ctx, o, { stats, journal, journalIsDefault, dispatcher, isStdin: src.isStdin });
  return stats;
}

/**
 * How the upload ends: a failed journal stops it (resumable), else the outcome (exit code, the
 * journal kept or removed, a notice) of what was acknowledged.
 */
function endUpload(
  ctx: Context,
  o: UploadOptions,
  r: { stats: UploadSummary; journal?: Journal; journalIsDefault: boolean; dispatcher: Dispatcher; isStdin: boolean },
): void {
  const { stats, journal, dispatcher } = r;
  if (journal?.failed) {
    // The disk filled (or failed) under the journal: stop, resumable, with the reason.
    const err = journal.failed;
    journal.close();
    const done = `${stats.acknowledged} of ${stats.valid} valid records acknowledged`;
    const partial = new PartialError(`${err.message}; ${done}`, {
      hint: `free some space, then re-run the same command to resume from the journal ${journal.file}`,
    });
    partial.summary = { ...stats };
    throw partial;
  }

  const end = uploadOutcome({
    dryRun: o.dryRun,
    interrupted: ctx.signal.aborted,
    failure: dispatcher.failure,
    inputError: dispatcher.inputError,
    journal: journal && { file: journal.file, ackedBatches: journal.acked.size, isDefault: r.journalIsDefault },
    isStdin: r.isStdin,
    read: stats.read,
    valid: stats.valid,
    acknowledged: stats.acknowledged,
  });
  applyJournalAction(journal, end.journal);
  if (end.notice) ctx.io.err(end.notice);
  const error = deadlineOutcome(end.error, ctx.signal);
  if (error) {
    error.summary = { ...stats };
    throw error;
  }
}

function emptyUploadSummary(): UploadSummary {
  return {
    lines: 0,
    read: 0,
    blank: 0,
    joined_lines: 0,
    valid: 0,
    rejected: 0,
    reject_rate: 0,
    sent: 0,
    acknowledged: 0,
    batches: 0,
    retries: 0,
    resumed_batches: 0,
    changed_batches: 0,
    seconds: 0,
    records_per_s: 0,
  };
}

/** The options a journal is keyed by: resuming with other options would send other batches. */
function batchOptionsOf(o: UploadOptions, src: HashedInput): Record<string, unknown> {
  return {
    target: o.target,
    account: o.accountId,
    list: o.listId,
    format: src.format,
    columns: src.columns.map((c) => `${c.type}=${c.name}`),
    hashed: o.hashed,
    default_country: o.defaultCountry,
    operation: o.operation,
    effective_at: o.effectiveAt,
    expires_at: o.expiresAt,
    batch_size: o.batchSize,
    body_bytes: UPLOAD_BODY_BYTES,
    strict_rows: o.strictRows || undefined,
  };
}

/**
 * The upload proper: hashed records through the reject gate into batches, each dispatched (sent,
 * or written with --dry-run --out) until the input ends or the dispatcher stops.
 */
async function pumpBatches(
  src: HashedInput,
  tally: RecordTally,
  batcher: Batcher,
  dispatcher: Dispatcher,
  gate: RejectGate,
): Promise<void> {
  const t = dispatcher.tally;
  const results = gatedResults(
    src,
    tally,
    gate,
    () => t.sent > 0 || t.resumed_batches > 0,
    (e) => dispatcher.stop(e),
  );
  read: for await (const r of results) {
    if (dispatcher.stopped()) break;
    if (r.valid === 0) {
      src.giveFrags(r.frags);
      continue;
    }
    for (const b of batcher.push(r)) {
      await dispatcher.dispatch(b);
      if (dispatcher.stopped()) break read;
    }
  }
  if (!dispatcher.stopped()) {
    const last = batcher.flush();
    if (last) await dispatcher.dispatch(last);
  }
  await dispatcher.settle();
}

/** The journal: the default lives in the config folder, keyed by the input path and the options. */
async function openUploadJournal(
  ctx: Context,
  o: UploadOptions,
  isStdin: boolean,
  batchOptions: Record<string, unknown>,
): Promise<{ journal?: Journal; isDefault: boolean }> {
  if (o.dryRun) return { isDefault: false };
  let file = o.journal;
  let isDefault = false;
  if (!file && !isStdin) {
    const key = crypto
      .createHash('sha256')
      .update(JSON.stringify({ input: path.resolve(ctx.cwd, o.input), ...batchOptions }))
      .digest('hex')
      .slice(0, 24);
    const root = o.stateDir ?? (await ctx.store()).folder('the upload journal', '--journal FILE');
    file = path.join(root, 'journals', `upload-${key}.jsonl`);
    isDefault = true;
    checkJournalDir(path.dirname(file), !!o.stateDir);
  }
  if (!file) {
    ctx.io.info('reading stdin without --journal: an interrupted upload cannot be resumed');
    return { isDefault };
  }
  const journal = Journal.open(
    file,
    {
      fingerprint: isStdin ? { stdin: true } : fileFingerprint(o.input),
      options: batchOptions,
      input: isStdin ? undefined : path.resolve(ctx.cwd, o.input),
    },
    { restart: o.restart },
  );
  if (journal.resumed && journal.acked.size > 0) {
    let users = 0;
    for (const a of journal.acked.values()) users += a.users;
    ctx.io.info(
      `resuming from journal ${file}: ${journal.acked.size} batches (${users} records) already acknowledged${journal.completed ? '; the upload had completed' : ''}`,
    );
  }
  return { journal, isDefault };
}

/**
 * The default journal's folder must be creatable before anything is sent (a read-only HOME on a
 * CI runner): the error names the folder and the ways to put the journal elsewhere.
 */
function checkJournalDir(dir: string, fromStateDir: boolean): void {
  try {
    ensurePrivateFolder(dir);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = errnoCode(e) ?? errorMessage(e);
    throw new UsageError(`cannot create the upload journal in ${dir} (${code}): nothing was sent`, {
      flag: '--journal',
      hint: `pass --journal FILE${fromStateDir ? ', or a writable --state-dir / XCTL_STATE_DIR' : ', or --state-dir DIR (XCTL_STATE_DIR) for every journal'}`,
    });
  }
}

/**
 * The sender runs on a child context whose HTTP client ignores Ctrl-C, so batches in flight
 * finish (drain) while no new batch starts; a second Ctrl-C still ends the process at once.
 */
export async function uploadSender(ctx: Context, usersPath: string): Promise<Sender> {
  // Loaded only to send: the HTTP client is a sizeable share of a dry run's start-up.
  const { Sender } = await import('./sender.js');
  const io = ctx.io;
  const sendCtx = new Context({
    streams: { stdin: io.stdin, stdout: io.stdout, stderr: io.stderr },
    env: ctx.env,
    globals: ctx.globals,
    clock: ctx.clock,
    cwd: ctx.cwd,
    version: ctx.version,
    // The same transport (a test's HTTP registry; undefined in a real run: the network).
    transport: ctx.transport,
  });
  return new Sender({
    http: await sendCtx.http(),
    path: usersPath,
    io: sendCtx.io,
    stopSignal: ctx.signal,
    sleep: (ms, s) => ctx.clock.sleep(ms, s),
    now: () => ctx.clock.now(),
    maxAttempts: 8,
    retryBaseMs: ctx.env.XCTL_RETRY_BASE_MS ? Number(ctx.env.XCTL_RETRY_BASE_MS) : 500,
    maxWaitMs: ctx.maxWaitSec() * 1000,
  });
}

export function applyJournalAction(journal: Journal | undefined, action: JournalAction): void {
  if (!journal) return;
  if (action === 'remove') journal.remove();
  else if (action === 'done') {
    journal.markDone();
    journal.close();
  } else journal.close();
}
