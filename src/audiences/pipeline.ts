// The upload pipeline: read -> normalize + hash (worker threads) -> batch -> send -> journal.
// Memory stays flat: reading waits for the workers, and the workers wait for the senders.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Context } from '../context.js';
import { InterruptedError, PartialError, UsageError, XctlError } from '../core/errors.js';
import { Batcher, type Batch } from './batcher.js';
import type { ChunkResult, InputFormat, ProcessorConfig } from './chunk-processor.js';
import { formatFromName, planColumns, readChunks, readFileChunks, sniffFormat, type ColumnRequest } from './input.js';
import { Journal, fileFingerprint } from './journal.js';
import type { IdType } from '../contract/audience-users.js';
import { Progress } from './progress.js';
import type { BatchFailed, Sender } from './sender.js';

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
  batchSize: number;
  concurrency: number;
  dryRun: boolean;
  out?: string;
  journal?: string;
  restart: boolean;
  rejects?: string;
  workers?: number;
}

export interface UploadSummary {
  read: number;
  valid: number;
  rejected: number;
  sent: number;
  acknowledged: number;
  batches: number;
  retries: number;
  resumed_batches: number;
  seconds: number;
  records_per_s: number;
}

/** The endpoint a batch goes to (ads-api.md section 4.4). */
export function usersPath(o: Pick<UploadOptions, 'target' | 'accountId' | 'listId'>): string {
  return o.target === 'custom_audience'
    ? `/12/accounts/${o.accountId}/custom_audiences/${o.listId}/users`
    : `/12/batch/accounts/${o.accountId}/do_not_reach_lists/${o.listId}/users`;
}

/**
 * One worker per core; a chunk's answer comes back in the order the chunk went in. Buffers go
 * round: a worker hands each input chunk back with its answer (the reader fills it again), and
 * the main thread hands fragment buffers back once batched (a worker writes into them again).
 * Memory then stays flat by construction, rather than waiting for each thread's GC to notice
 * megabytes of dead buffers.
 */
class WorkerPool {
  private workers: Array<{ w: Worker; queue: Array<{ resolve: (r: ChunkResult) => void; reject: (e: Error) => void }> }> = [];
  private spareInputs: ArrayBuffer[] = [];
  private nextSpare = 0;

  constructor(n: number, cfg: ProcessorConfig) {
    for (let i = 0; i < n; i++) {
      // Small heaps: a worker holds only the chunk in hand, and V8 otherwise grows the heap lazily.
      const w = new Worker(new URL('./hash-worker.js', import.meta.url), { workerData: cfg, resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 } });
      const slot = { w, queue: [] as Array<{ resolve: (r: ChunkResult) => void; reject: (e: Error) => void }> };
      w.on('message', (m: ChunkResult & { input?: ArrayBuffer }) => {
        if (m.input) {
          if (this.spareInputs.length < 2) this.spareInputs.push(m.input);
          delete m.input;
        }
        slot.queue.shift()?.resolve(m);
      });
      w.on('error', (e) => {
        for (const q of slot.queue.splice(0)) q.reject(e);
      });
      this.workers.push(slot);
    }
  }

  run(seq: number, buf: Uint8Array): Promise<ChunkResult> {
    let best = this.workers[0]!;
    for (const s of this.workers) if (s.queue.length < best.queue.length) best = s;
    return new Promise((resolve, reject) => {
      best.queue.push({ resolve, reject });
      best.w.postMessage({ seq, buf }, [buf.buffer as ArrayBuffer]);
    });
  }

  /** An input buffer a worker gave back, of at least `size` bytes, if there is one. */
  takeInput(size: number): Buffer | undefined {
    const i = this.spareInputs.findIndex((b) => b.byteLength >= size);
    return i < 0 ? undefined : Buffer.from(this.spareInputs.splice(i, 1)[0]!);
  }

  /** Hands a fragment buffer back to a worker (only buffers of their own can move). */
  giveFrags(frags: Uint8Array): void {
    if (frags.byteLength === 0 || frags.buffer.byteLength <= 8192 || this.workers.length === 0) return;
    const s = this.workers[this.nextSpare++ % this.workers.length]!;
    s.w.postMessage({ spare: frags.buffer }, [frags.buffer as ArrayBuffer]);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((s) => s.w.terminate()));
  }
}

export async function runUpload(ctx: Context, o: UploadOptions): Promise<UploadSummary> {
  const started = performance.now();
  const io = ctx.io;
  const isStdin = o.input === '-';
  let totalBytes: number | undefined;
  if (!isStdin) {
    try {
      const st = fs.statSync(o.input);
      if (st.isDirectory()) throw new UsageError(`${o.input} is a directory`, { flag: '<file>' });
      totalBytes = st.size;
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`cannot read ${o.input}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, { flag: '<file>' });
    }
  }

  // The format decides whether chunks must respect quotes; known before the first chunk is cut.
  let format: InputFormat | undefined = o.format !== 'auto' ? o.format : isStdin ? undefined : formatFromName(o.input);
  const quoteAware = { value: format === 'csv' || format === 'tsv' };
  let bytesDone = 0;
  const sniff = (d: Uint8Array) => {
    if (format === undefined) {
      const s = Buffer.from(d.buffer, d.byteOffset, Math.min(d.length, 65536)).toString('utf8');
      format = sniffFormat(s.split('\n')[0] ?? '');
      quoteAware.value = format === 'csv' || format === 'tsv';
    }
  };
  // The worker pool starts once the column plan is known; the reader asks it for spare buffers.
  const poolRef: { pool?: WorkerPool } = {};
  const chunks = isStdin
    ? readChunks(
        (async function* () {
          for await (const d of ctx.io.stdin as AsyncIterable<Buffer>) {
            sniff(d);
            yield d;
          }
        })() as unknown as NodeJS.ReadableStream,
        quoteAware,
      )
    : readFileChunks(o.input, quoteAware, sniff, undefined, (n) => poolRef.pool?.takeInput(n));

  const first = await chunks.next();
  const stats: UploadSummary = { read: 0, valid: 0, rejected: 0, sent: 0, acknowledged: 0, batches: 0, retries: 0, resumed_batches: 0, seconds: 0, records_per_s: 0 };
  if (first.done) {
    io.warn('the input is empty: nothing to upload');
    return stats;
  }
  format ??= 'lines';
  let firstChunk = first.value;
  const firstText = Buffer.from(firstChunk.buffer, firstChunk.byteOffset, Math.min(firstChunk.length, 65536)).toString('utf8');
  const firstLine = firstText.split('\n')[0]!.replace(/\r$/, '');
  const plan = planColumns(format, firstLine, o.columns);
  if (o.allowedTypes) {
    const bad = plan.columns.filter((c) => !o.allowedTypes!.includes(c.type));
    if (format === 'jsonl' && !o.columns.type && o.columns.columns.length === 0) plan.columns = plan.columns.filter((c) => o.allowedTypes!.includes(c.type));
    else if (bad.length) {
      throw new UsageError(`do-not-reach lists take only ${o.allowedTypes.join(' and ')} identifiers (the input names ${bad.map((c) => c.type).join(', ')})`, { flag: '--column' });
    }
  }
  let lineBase = 0;
  if (plan.header) {
    const nl = firstChunk.indexOf(10);
    firstChunk = nl < 0 ? new Uint8Array(0) : firstChunk.slice(nl + 1);
    lineBase = 1;
    io.info(`header: ${plan.columns.map((c) => `${c.name} -> ${c.type}`).join(', ')}`);
  }
  const cfg: ProcessorConfig = { format, columns: plan.columns, hashed: o.hashed, defaultCountry: o.defaultCountry };

  const batchOptions = {
    target: o.target,
    account: o.accountId,
    list: o.listId,
    format,
    columns: plan.columns.map((c) => `${c.type}=${c.name}`),
    hashed: o.hashed,
    default_country: o.defaultCountry,
    operation: o.operation,
    effective_at: o.effectiveAt,
    expires_at: o.expiresAt,
    batch_size: o.batchSize,
  };

  // Journal: the default lives in the config folder, keyed by the input path and the options.
  let journal: Journal | undefined;
  let journalIsDefault = false;
  if (!o.dryRun) {
    let file = o.journal;
    if (!file && !isStdin) {
      const key = crypto.createHash('sha256').update(JSON.stringify({ input: path.resolve(ctx.cwd, o.input), ...batchOptions })).digest('hex').slice(0, 24);
      file = path.join(path.dirname((await ctx.store()).path), 'journals', `upload-${key}.jsonl`);
      journalIsDefault = true;
    }
    if (file) {
      journal = Journal.open(file, { fingerprint: isStdin ? { stdin: true } : fileFingerprint(o.input), options: batchOptions }, { restart: o.restart });
      if (journal.resumed && journal.acked.size > 0) {
        let users = 0;
        for (const a of journal.acked.values()) users += a.users;
        io.info(`resuming from journal ${file}: ${journal.acked.size} batches (${users} records) already acknowledged${journal.completed ? '; the upload had completed' : ''}`);
      }
    } else io.info('reading stdin without --journal: an interrupted upload cannot be resumed');
  }

  const batcher = new Batcher({ maxUsers: o.batchSize }, { operationType: o.operation, effectiveAt: o.effectiveAt, expiresAt: o.expiresAt }, (run) => poolRef.pool?.giveFrags(run.frags));

  const rejectsOut = o.rejects ? fs.createWriteStream(o.rejects) : undefined;
  rejectsOut?.write('line,column,reason\n');
  const shownRejects: string[] = [];
  const out = o.dryRun && o.out ? fs.createWriteStream(o.out) : undefined;

  // Sending: a child context whose HTTP client ignores Ctrl-C, so batches in flight finish
  // (drain) while no new batch starts; a second Ctrl-C still ends the process at once.
  let sender: Sender | undefined;
  if (!o.dryRun) {
    // Loaded only to send: the HTTP client (undici) is a sizeable share of a dry run's start-up.
    const { Sender } = await import('./sender.js');
    const sendCtx = new Context({ streams: { stdin: io.stdin, stdout: io.stdout, stderr: io.stderr }, env: ctx.env, globals: ctx.globals, clock: ctx.clock, cwd: ctx.cwd, version: ctx.version });
    sender = new Sender({
      http: await sendCtx.http(),
      path: usersPath(o),
      io: sendCtx.io,
      stopSignal: ctx.signal,
      sleep: (ms, s) => ctx.clock.sleep(ms, s),
      now: () => ctx.clock.now(),
      maxAttempts: 8,
      retryBaseMs: ctx.env.XCTL_RETRY_BASE_MS ? Number(ctx.env.XCTL_RETRY_BASE_MS) : 500,
      maxWaitMs: ctx.maxWaitSec() * 1000,
    });
  }

  let inflight = 0;
  const waiters: Array<() => void> = [];
  const active = new Set<Promise<void>>();
  let failure: BatchFailed | undefined;
  let inputError: XctlError | undefined;
  const stopped = () => ctx.signal.aborted || !!failure || !!inputError;

  const handleBatch = async (b: Batch): Promise<void> => {
    if (out) {
      stats.sent += b.users;
      stats.batches++;
      out.write(b.body, () => batcher.recycle(b.body));
      if (!out.write('\n')) await new Promise<void>((r) => out.once('drain', () => r()));
      return;
    }
    const prev = journal?.acked.get(b.index);
    if (prev) {
      if (prev.users !== b.users || prev.head !== b.head) {
        inputError = new UsageError(`batch ${b.index} differs from the one the journal acknowledged: the input or its order changed`, {
          flag: '--restart',
          hint: 'pass --restart to upload from the top',
        });
        return;
      }
      stats.resumed_batches++;
      stats.acknowledged += b.users;
      batcher.recycle(b.body);
      return;
    }
    if (o.dryRun) {
      stats.sent += b.users;
      stats.batches++;
      batcher.recycle(b.body);
      return;
    }
    while (inflight >= o.concurrency) await new Promise<void>((r) => waiters.push(r));
    if (stopped()) return batcher.recycle(b.body);
    inflight++;
    stats.sent += b.users;
    const p = sender!
      .send(b)
      .then(
        () => {
          // Acknowledged: the service read the whole body, so nothing still writes from it.
          batcher.recycle(b.body);
          journal?.ack(b.index, b.users, b.head);
          stats.acknowledged += b.users;
          stats.batches++;
        },
        (e: BatchFailed) => {
          if (!failure && (e.message !== 'stopped' || !ctx.signal.aborted)) failure = e;
        },
      )
      .finally(() => {
        inflight--;
        active.delete(p);
        waiters.shift()?.();
      });
    active.add(p);
  };

  const consume = async (r: ChunkResult): Promise<void> => {
    bytesDone += r.bytes;
    stats.read += r.read;
    stats.valid += r.valid;
    stats.rejected += r.rejects.length;
    if (r.digestLine && !o.hashed) {
      const line = lineBase + r.digestLine;
      const msg = `line ${line}${r.digestColumn ? ` (${r.digestColumn})` : ''} looks like a SHA-256 digest: it would be hashed twice`;
      inputError =
        stats.sent > 0 || stats.resumed_batches > 0
          ? new PartialError(msg, { hint: 'pass --hashed if the input is already hashed; batches before it were sent and are in the journal' })
          : new UsageError(msg, { flag: '--hashed', hint: 'pass --hashed if the input is already hashed (values are then checked and lowercased, not hashed again)' });
      return;
    }
    for (const [rel, col, reason] of r.rejects) {
      const line = lineBase + rel;
      if (rejectsOut) rejectsOut.write(`${line},${csvCell(col)},${csvCell(reason)}\n`);
      else if (shownRejects.length < 5) shownRejects.push(`line ${line} (${col}): ${reason}`);
    }
    lineBase += r.lines;
    if (r.valid === 0) return poolRef.pool?.giveFrags(r.frags);
    for (const b of batcher.push(r)) {
      await handleBatch(b);
      if (stopped()) return;
    }
  };

  const nWorkers = o.workers ?? Math.max(1, Math.min(os.availableParallelism(), 8));
  const pool = (poolRef.pool = new WorkerPool(nWorkers, cfg));
  const progress = new Progress(
    io,
    () => ({ read: stats.read, acknowledged: o.dryRun ? stats.sent : stats.acknowledged, bytesRead: bytesDone, totalBytes, elapsedMs: performance.now() - started }),
    Number(ctx.env.XCTL_PROGRESS_INTERVAL_MS ?? 5000),
    o.dryRun ? 'packed' : 'acknowledged',
  );
  try {
    const pending = new Map<number, Promise<ChunkResult>>();
    let seq = 0;
    let nextOut = 0;
    // Results are consumed in input order: two chunks per worker (and one spare) keep a worker busy
    // while the main thread waits for a slower one's older chunk.
    const maxOutstanding = nWorkers * 2 + 1;
    const drainOne = async () => {
      const r = await pending.get(nextOut)!;
      pending.delete(nextOut++);
      await consume(r);
    };
    pending.set(seq, pool.run(seq, firstChunk));
    seq++;
    for (;;) {
      if (stopped()) break;
      while (pending.size >= maxOutstanding && !stopped()) await drainOne();
      if (stopped()) break;
      const n = await chunks.next();
      if (n.done) break;
      pending.set(seq, pool.run(seq, n.value));
      seq++;
    }
    while (pending.size > 0 && !stopped()) await drainOne();
    if (!stopped()) {
      const last = batcher.flush();
      if (last) await handleBatch(last);
    }
    await Promise.all([...active]);
  } finally {
    progress.stop();
    await pool.close();
    await chunks.return(undefined);
    await Promise.all([rejectsOut, out].filter((s): s is fs.WriteStream => !!s).map((s) => new Promise((r) => s.end(r))));
  }

  stats.seconds = Math.round((performance.now() - started) / 10) / 100;
  stats.records_per_s = stats.seconds > 0 ? Math.round(stats.read / stats.seconds) : stats.read;
  stats.retries = sender?.retries ?? 0;
  if (stats.rejected > 0) {
    io.warn(`${stats.rejected} rejected record${stats.rejected === 1 ? '' : 's'}${o.rejects ? ` written to ${o.rejects}` : ''}`);
    for (const s of shownRejects) io.err(`  ${s}`);
    if (!o.rejects && stats.rejected > shownRejects.length) io.err(`  ... and ${stats.rejected - shownRejects.length} more (keep them all with --rejects FILE)`);
  }

  const resumeHint = journal
    ? `re-run the same command to resume from the journal ${journal.file}`
    : isStdin
      ? 'stdin input cannot resume without --journal: run again with --journal FILE'
      : 'run again';
  const done = o.dryRun ? `${stats.read} records read` : `${stats.acknowledged} of ${stats.valid} valid records acknowledged`;
  if (inputError) {
    if (journal && journal.acked.size === 0) journal.remove();
    else journal?.close();
    throw inputError;
  }
  if (ctx.signal.aborted) {
    journal?.close();
    io.err(o.dryRun ? `stopped: ${done}` : `stopped after draining the batches in flight: ${done}; ${resumeHint}`);
    throw new InterruptedError('interrupted');
  }
  if (failure) {
    const kept = journal && journal.acked.size > 0;
    if (journal && !kept) journal.remove();
    else journal?.close();
    const cause = failure.cause;
    if (failure.fatal && cause instanceof XctlError) {
      if (kept) cause.hint = `${cause.hint ? cause.hint + '; ' : ''}${done}; ${resumeHint}`;
      throw cause;
    }
    throw new PartialError(`gave up on batch ${failure.batch}: ${cause.message}; ${done}`, { hint: kept || stats.acknowledged > 0 ? resumeHint : 'nothing was acknowledged: run the same command again' });
  }
  if (journal) {
    if (journalIsDefault) journal.remove();
    else {
      journal.markDone();
      journal.close();
    }
  }
  return stats;
}

function csvCell(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
