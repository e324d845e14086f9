// The input side shared by upload, sync and hash: the file (or stdin) read in whole-record
// chunks, its format and column plan decided from the first chunk, and every chunk normalized
// and hashed by the worker pool, with results handed on in input order.
import fs from 'node:fs';
import os from 'node:os';
import type { Context } from '../context.js';
import { PartialError, UsageError, XctlError, errnoCode, errorMessage } from '../core/errors.js';
import { bufferOf } from '../contract/guards.js';
import type { ChunkResult, ColumnSpec, InputFormat, ProcessorConfig } from './chunk-processor.js';
import {
  formatFromName,
  MAX_RECORD_BYTES,
  planColumns,
  readChunks,
  readFileChunks,
  sniffFormat,
  type ColumnPlan,
  type ColumnRequest,
  type CutRule,
} from './input.js';
import { normalizeHeader, rowLikeTest, shellWord, unmappedIdentifiers } from './columns.js';
import { gateError, PRECHECK_VALUES, withinGate, type RejectGate } from './gate.js';
import { findQuoteFault, QUOTE_FAULT_HINT, quoteFaultMessage, scanDelimited, scanQuotes } from './csv.js';
import type { IdType } from '../contract/audience-users.js';
import { WorkerPool } from './worker-pool.js';

export interface HashedInputOptions {
  input: string; // a path, or "-" for stdin
  format: 'auto' | InputFormat;
  columns: ColumnRequest;
  allowedTypes?: IdType[];
  /** The target's name in the error when the input names other types. */
  allowedFor?: string;
  hashed: boolean;
  defaultCountry?: string;
  workers?: number;
  /** Reject a whole row when one of its identifiers is bad. */
  strictRows?: boolean;
  /** csv/tsv: a quote never closed runs on (the old reading) instead of stopping the run. */
  lenientQuotes?: boolean;
  /** A quoted csv/tsv file is read through for quote faults first (runs that send as they read). */
  prescan?: boolean;
}

export interface HashedInput {
  isStdin: boolean;
  /** Input size in bytes (files). */
  totalBytes?: number;
  format: InputFormat;
  columns: ColumnSpec[];
  cfg: ProcessorConfig;
  /** Physical lines before the first chunk's records (the header). */
  lineBase: number;
  /** Input bytes processed so far (progress). */
  bytesDone(): number;
  /** Chunk results in input order; leaving the loop early stops reading. */
  results(): AsyncGenerator<ChunkResult>;
  /** Hands a fragment buffer back to the workers once nothing reads it. */
  giveFrags(frags: Uint8Array): void;
  close(): Promise<void>;
}

/** The input, read up to its first chunk (undefined when it is empty). Workers start on `results()`. */
export async function openHashedInput(ctx: Context, o: HashedInputOptions): Promise<HashedInput | undefined> {
  const isStdin = o.input === '-';
  const totalBytes = isStdin ? undefined : sizeOf(o.input);

  // The format decides whether chunks must respect quotes; known before the first chunk is cut.
  let format: InputFormat | undefined = o.format !== 'auto' ? o.format : isStdin ? undefined : formatFromName(o.input);
  const quoteAware: CutRule = { value: false, maxRecordBytes: o.lenientQuotes ? undefined : MAX_RECORD_BYTES };
  const cutBy = (f: InputFormat | undefined) => {
    quoteAware.value = f === 'csv' || f === 'tsv';
    quoteAware.delimiter = f === 'tsv' ? 9 : 44;
  };
  cutBy(format);
  const done = { bytes: 0 };
  const sniff = (d: Uint8Array) => {
    if (format === undefined) {
      const s = Buffer.from(d.buffer, d.byteOffset, Math.min(d.length, 65536)).toString('utf8');
      format = sniffFormat(s.split('\n')[0] ?? '');
      cutBy(format);
    }
  };
  // The worker pool starts once the column plan is known; the reader asks it for spare buffers.
  const poolRef: { pool?: WorkerPool } = {};
  const chunks = isStdin
    ? readChunks(
        (async function* () {
          for await (const c of ctx.io.stdin) {
            const d = bufferOf(c);
            sniff(d);
            yield d;
          }
        })(),
        quoteAware,
      )
    : readFileChunks(o.input, quoteAware, sniff, undefined, (n) => poolRef.pool?.takeInput(n));

  const first = await chunks.next();
  if (first.done) return undefined;
  let ok = false;
  try {
    format ??= 'lines';
    let firstChunk = first.value;
    const firstText = Buffer.from(
      firstChunk.buffer,
      firstChunk.byteOffset,
      Math.min(firstChunk.length, 65536),
    ).toString('utf8');
    const firstLine = firstText.split('\n')[0]!.replace(/\r$/, '');
    const plan = planColumns(format, firstLine, o.columns);
    if (o.allowedTypes) limitTypes(plan, format, o, o.allowedTypes);
    let lineBase = 0;
    if (plan.header) {
      const nl = firstChunk.indexOf(10);
      firstChunk = nl < 0 ? new Uint8Array(0) : firstChunk.slice(nl + 1);
      lineBase = 1;
      checkUnmapped(plan, format, firstText);
      const said = describeColumns(plan, o.columns);
      if (said) ctx.io.info(said);
    }
    const cfg: ProcessorConfig = {
      format,
      columns: plan.columns,
      hashed: o.hashed,
      defaultCountry: o.defaultCountry,
      strictRows: o.strictRows,
      lenientQuotes: o.lenientQuotes,
      width: plan.cells?.length,
    };
    if (o.prescan && !isStdin && !o.lenientQuotes && (format === 'csv' || format === 'tsv')) {
      // No quoted field holds a line break: every newline ends a record, and chunks are cut at
      // the last one without looking at quotes (a file changed since cut inside a field would
      // stop at a quote fault, not lose a row).
      if (!(await prescanQuotes(o.input, cfg)).multiLine) quoteAware.value = false;
    }
    const nWorkers = o.workers ?? Math.max(1, Math.min(os.availableParallelism(), 8));
    const fmt = format;
    ok = true;
    return {
      isStdin,
      totalBytes,
      format: fmt,
      columns: plan.columns,
      cfg,
      lineBase,
      bytesDone: () => done.bytes,
      giveFrags: (f) => poolRef.pool?.giveFrags(f),
      async *results() {
        const pool = (poolRef.pool = new WorkerPool(nWorkers, cfg));
        yield* inOrder(pool, firstChunk, chunks, nWorkers, done);
      },
      async close() {
        await poolRef.pool?.close();
        await chunks.return(undefined);
      },
    };
  } finally {
    if (!ok) await chunks.return(undefined);
  }
}

/** The size of an input file, or the usage error of one that cannot be read. */
function sizeOf(input: string): number {
  try {
    const st = fs.statSync(input);
    if (st.isDirectory()) throw new UsageError(`${input} is a directory`, { flag: '<file>' });
    return st.size;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read ${input}: ${errnoCode(e) === 'ENOENT' ? 'no such file' : errorMessage(e)}`, {
      flag: '<file>',
    });
  }
}

/**
 * The chunks hashed by the pool, handed on in input order: two chunks per worker (and one spare)
 * keep a worker busy while the main thread waits for a slower one's older chunk.
 */
async function* inOrder(
  pool: WorkerPool,
  firstChunk: Uint8Array,
  chunks: AsyncGenerator<Uint8Array>,
  nWorkers: number,
  done: { bytes: number },
): AsyncGenerator<ChunkResult> {
  const pending = new Map<number, Promise<ChunkResult>>();
  let seq = 0;
  let nextOut = 0;
  const maxOutstanding = nWorkers * 2 + 1;
  const take = async () => {
    const r = await pending.get(nextOut)!;
    pending.delete(nextOut++);
    done.bytes += r.bytes;
    return r;
  };
  pending.set(seq, pool.run(seq, firstChunk));
  seq++;
  for (;;) {
    while (pending.size >= maxOutstanding) yield await take();
    const n = await chunks.next();
    if (n.done) break;
    pending.set(seq, pool.run(seq, n.value));
    seq++;
  }
  while (pending.size > 0) yield await take();
}

/**
 * Counts records and places rejects by input line: to a rejects csv when asked, else the first
 * five for the summary. A digest-looking value without --hashed is an input error.
 */
export class RecordTally {
  read = 0;
  valid = 0;
  rejected = 0;
  /** Data lines (after the header): read + blank + joined once the input is read through. */
  lines = 0;
  blank = 0;
  /** Lines continuing a record (inside quoted fields). */
  joined = 0;
  /** Identifier values looked at: the reject rate's base. */
  values = 0;
  readonly shown: string[] = [];
  /** The first rejected rows, "line N (column): reason", whether or not --rejects keeps them all. */
  readonly firstRejects: string[] = [];
  private lineBase: number;
  private readonly out?: fs.WriteStream;
  /** A write to the rejects file failed (disk full): the run stops with the reason. */
  private writeError?: XctlError;

  constructor(
    input: Pick<HashedInput, 'lineBase'>,
    private readonly hashed: boolean,
    private readonly rejectsFile?: string,
  ) {
    this.lineBase = input.lineBase;
    this.out = rejectsFile ? fs.createWriteStream(rejectsFile) : undefined;
    this.out?.write('line,column,reason\n');
    this.out?.on('error', (e: NodeJS.ErrnoException) => {
      this.writeError ??= new PartialError(`cannot write --rejects ${rejectsFile}: ${e.code ?? e.message}`, {
        hint: 'free some space or choose another file, then run the same command again',
      });
    });
  }

  /**
   * Takes one chunk's counts and rejects; returns the input error that must stop the run, if
   * any. `sentBefore`: batches went out before this chunk (the error is then partial).
   */
  take(r: ChunkResult, sentBefore: boolean): XctlError | undefined {
    if (this.writeError) return this.writeError;
    this.read += r.read;
    this.valid += r.valid;
    this.rejected += r.rejects.length;
    this.blank += r.blank;
    this.joined += r.joined;
    this.values += r.values;
    this.lines += r.lines;
    if (r.digestLine && !this.hashed) {
      const line = this.lineBase + r.digestLine;
      const msg = `line ${line}${r.digestColumn ? ` (${r.digestColumn})` : ''} looks like a SHA-256 digest: it would be hashed twice`;
      return sentBefore
        ? new PartialError(msg, {
            hint: 'pass --hashed if the input is already hashed; batches before it were sent and are in the journal',
          })
        : new UsageError(msg, {
            flag: '--hashed',
            hint: 'pass --hashed if the input is already hashed (values are then checked and lowercased, not hashed again)',
          });
    }
    for (const [rel, col, reason] of r.rejects) {
      const line = this.lineBase + rel;
      if (this.firstRejects.length < 10) this.firstRejects.push(`line ${line} (${col}): ${reason}`);
      if (this.out) this.out.write(`${line},${csvCell(col)},${csvCell(reason)}\n`);
      else if (this.shown.length < 5) this.shown.push(`line ${line} (${col}): ${reason}`);
    }
    if (r.fault) {
      const msg = quoteFaultMessage(r.fault, this.lineBase);
      return sentBefore
        ? new PartialError(`${msg}; the run stopped there`, {
            hint: 'batches before it were sent and are in the journal: re-run the same command with --lenient-quotes to resume reading the field as it runs on, or fix the quote and re-run with --restart (users sent again are not added twice)',
          })
        : new UsageError(`${msg}: nothing was sent`, { flag: '--lenient-quotes', hint: QUOTE_FAULT_HINT });
    }
    this.lineBase += r.lines;
    return undefined;
  }

  /** The number of the last line read (header included). */
  get lastLine(): number {
    return this.lineBase;
  }

  /**
   * A file whose last byte is not a newline: its last row may be cut mid-value (an export that
   * failed part-way). Said on stderr; returns that line's number (stdin is not looked at).
   */
  unterminated(io: Context['io'], input: string): number | undefined {
    if (input === '-' || this.lines === 0) return undefined;
    let last = 10;
    try {
      const fd = fs.openSync(input, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const b = Buffer.alloc(1);
        if (size > 0 && fs.readSync(fd, b, 0, 1, size - 1) === 1) last = b[0]!;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
    // A gzip file ends with its trailer, not with the text's last byte.
    if (last === 10 || /\.gz$/i.test(input)) return undefined;
    io.warn(`line ${this.lineBase}, the last, has no newline: the file may be cut short (a failed export)`);
    return this.lineBase;
  }

  /** Says how many records were rejected and where they are (stderr). */
  report(io: Context['io']): void {
    if (this.joined > 0)
      io.info(`${this.joined} line${this.joined === 1 ? '' : 's'} joined into quoted fields (newlines inside quotes)`);
    if (this.rejected === 0) return;
    io.warn(
      `${this.rejected} rejected record${this.rejected === 1 ? '' : 's'}${this.rejectsFile ? ` written to ${this.rejectsFile}` : ''}`,
    );
    for (const s of this.shown) io.err(`  ${s}`);
    if (!this.rejectsFile && this.rejected > this.shown.length)
      io.err(`  ... and ${this.rejected - this.shown.length} more (keep them all with --rejects FILE)`);
  }

  close(): Promise<void> {
    const out = this.out;
    return out ? new Promise((r) => out.end(r)) : Promise.resolve();
  }
}

/** The results, each counted by the tally first: bad input throws, Ctrl-C ends the loop. */
export async function* countedResults(
  src: HashedInput,
  tally: RecordTally,
  signal: AbortSignal,
): AsyncGenerator<ChunkResult> {
  for await (const r of src.results()) {
    const bad = tally.take(r, false);
    if (bad) throw bad;
    if (signal.aborted) return;
    yield r;
  }
}

/** Where the 64 hex characters of a one-identifier fragment `{"<type>":["<hex>"]},` ending at `end` start. */
export function hexStart(end: number): number {
  return end - 68;
}

export function csvCell(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Reads a quoted csv/tsv file through for the first quote fault before anything is sent: a quote
 * never closed anywhere in the file is exit 2 with nothing sent, not a run stopped half way.
 * The file is read as it comes, each quote searched once (a field that may run past a piece is
 * searched again with the next); a fault, or a field longer than a record may be, is read again
 * cut as the run cuts it, which names it. Says whether a quoted field holds a line break.
 */
export async function prescanQuotes(file: string, cfg: ProcessorConfig): Promise<{ multiLine: boolean }> {
  const delimiter = cfg.format === 'tsv' ? '\t' : ',';
  const d = delimiter.charCodeAt(0);
  const rowLike = rowLikeTest(cfg.columns, delimiter, cfg.width);
  const seen = { multiLine: false };
  if (!(await hasQuote(file))) return seen;
  let suspect = false;
  const fh = await fs.promises.open(file, 'r');
  try {
    const block = Buffer.allocUnsafe(1 << 20);
    let carry: Buffer | undefined;
    let first = true;
    let last = 10; // the byte before the next piece
    for (;;) {
      const { bytesRead } = await fh.read(block, 0, block.length, null);
      const final = bytesRead === 0;
      if (final && !carry) break;
      const read = block.subarray(0, bytesRead);
      const piece = carry ? (final ? carry : Buffer.concat([carry, read])) : read;
      const opens = first || carry !== undefined || last === 10 || last === d;
      const r = scanQuotes(piece, d, rowLike, { first, opens, final }, seen);
      first = false;
      last = piece[piece.length - 1]!;
      if (typeof r !== 'number') {
        suspect = true;
        break;
      }
      if (final) break;
      carry = r < piece.length ? Buffer.from(piece.subarray(r)) : undefined; // a copy: the block is read into again
      if (carry && carry.length > MAX_RECORD_BYTES) {
        suspect = true;
        break;
      }
    }
  } finally {
    await fh.close();
  }
  if (suspect) {
    await namedQuoteFault(file, d, rowLike);
    seen.multiLine = true; // (no fault after all: a field longer than a piece)
  }
  return seen;
}

/** The first quote fault of a file, read in the run's chunks: exit 2 naming it (if there is one). */
async function namedQuoteFault(file: string, d: number, rowLike: ((line: string) => boolean) | undefined) {
  let offset = 0;
  const cut: CutRule = { value: true, delimiter: d, maxRecordBytes: MAX_RECORD_BYTES };
  for await (const chunk of readFileChunks(file, cut, () => {})) {
    const fault = chunk.indexOf(34) < 0 ? undefined : findQuoteFault(chunk, d, rowLike);
    // Lines are counted only to name one.
    if (fault)
      throw new UsageError(`${quoteFaultMessage(fault, await newlinesBefore(file, offset))}: nothing was sent`, {
        flag: '--lenient-quotes',
        hint: QUOTE_FAULT_HINT,
      });
    offset += chunk.length;
  }
}

/** Whether a file holds a double quote at all: one read into one reused buffer. */
async function hasQuote(file: string): Promise<boolean> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return false;
      if (buf.subarray(0, bytesRead).includes(34)) return true;
    }
  } finally {
    await fh.close();
  }
}

/** Newlines in the first `end` bytes of a file (chunks end at a newline: its lines before them). */
async function newlinesBefore(file: string, end: number): Promise<number> {
  if (end <= 0) return 0;
  let n = 0;
  for await (const c of fs.createReadStream(file, { end: end - 1, highWaterMark: 1 << 20 })) {
    const d = bufferOf(c);
    for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) n++;
  }
  return n;
}

/**
 * A target that takes only some types (do-not-reach lists): found columns (jsonl keys, header
 * names) of other types are left out and listed as ignored; named ones are an error.
 */
function limitTypes(plan: ColumnPlan, format: InputFormat, o: HashedInputOptions, allowed: IdType[]): void {
  const bad = plan.columns.filter((c) => !allowed.includes(c.type));
  const target = o.allowedFor ?? 'this target';
  if ((format === 'jsonl' || plan.auto) && !o.columns.type && o.columns.columns.length === 0) {
    plan.columns = plan.columns.filter((c) => allowed.includes(c.type));
    plan.ignored = [...(plan.ignored ?? []), ...bad.map((c) => c.name)];
    if (!plan.columns.length) {
      throw new UsageError(
        `${target} take only ${allowed.join(' and ')} identifiers: the input has none (it names ${bad.map((c) => c.type).join(', ')})`,
        { flag: '--column' },
      );
    }
  } else if (bad.length) {
    throw new UsageError(
      `${target} take${o.allowedFor ? '' : 's'} only ${allowed.join(' and ')} identifiers (the input names ${bad.map((c) => c.type).join(', ')})`,
      { flag: '--column' },
    );
  }
}

/** The sample of rows the unmapped-column check reads: the first ones of the first chunk. */
const SAMPLE_ROWS = 200;

/**
 * Found columns only (no --type, no --column): a column left out whose sampled values look like
 * emails or phone numbers is an error naming it (exit 2, before anything is sent).
 */
export function checkUnmapped(plan: ColumnPlan, format: InputFormat, firstText: string): void {
  if (!plan.auto || !plan.cells || (format !== 'csv' && format !== 'tsv')) return;
  const rows: string[][] = [];
  const body = firstText.slice(firstText.indexOf('\n') + 1);
  // The sample ends at a line break: a record cut by the 64 KiB window is not read.
  scanDelimited(body.slice(0, body.lastIndexOf('\n') + 1), format === 'tsv' ? '\t' : ',', true, (cells) => {
    if (rows.length < SAMPLE_ROWS) rows.push(cells);
  });
  const used = new Set(plan.columns.map((c) => c.index!));
  const found = unmappedIdentifiers(plan.cells, used, plan.ignoredIndex ?? new Set(), rows);
  if (!found.length) return;
  const f = found[0]!;
  const what = f.type === 'email' ? 'email addresses' : 'phone numbers';
  const others =
    found.length > 1
      ? ` (and ${found
          .slice(1)
          .map((c) => JSON.stringify(c.name))
          .join(', ')})`
      : '';
  throw new UsageError(
    `column "${f.name}"${others} is not mapped to any type, but ${f.hits} of its ${f.sampled} sampled values look like ${what}: nothing was sent`,
    {
      flag: '--column',
      hint: `send it with --column ${f.type}=${shellWord(f.name)} (list every column to send, e.g. ${plan.columns
        .map((c) => `--column ${c.type}=${shellWord(c.name)}`)
        .concat(`--column ${f.type}=${shellWord(f.name)}`)
        .join(' ')}), or skip it with --ignore-column ${shellWord(f.name)}`,
    },
  );
}

/**
 * The stderr line saying which column is read as what and which are ignored; none when --type
 * already says it all (one column named as the type, nothing ignored).
 */
export function describeColumns(plan: ColumnPlan, req: ColumnRequest): string | undefined {
  const ignored = plan.ignored ?? [];
  const c0 = plan.columns[0];
  if (
    req.type &&
    plan.columns.length === 1 &&
    ignored.length === 0 &&
    c0 &&
    normalizeHeader(c0.name) === normalizeHeader(c0.type)
  )
    return undefined;
  const shownIgnored = ignored.length > 12 ? [...ignored.slice(0, 12), `... (${ignored.length} in all)`] : ignored;
  return `header: ${plan.columns.map((c) => `${c.name} -> ${c.type}`).join(', ')}${ignored.length ? `; ignored: ${shownIgnored.join(', ')}` : ''}`;
}

/**
 * The results for a run that sends as it reads: each counted by the tally, the first
 * PRECHECK_VALUES values read and checked (bad input, the reject-rate gate) before any result
 * is handed on, then the running rate checked after each chunk. Bad input calls `stop` and ends.
 */
export async function* gatedResults(
  src: Pick<HashedInput, 'results'>,
  tally: RecordTally,
  gate: RejectGate,
  sentBefore: () => boolean,
  stop: (e: XctlError) => void,
): AsyncGenerator<ChunkResult> {
  const held: ChunkResult[] = [];
  let checking = true;
  const over = (sent: boolean) =>
    withinGate(gate, tally.values, tally.rejected) ? undefined : gateError(gate, tally.values, tally.rejected, sent);
  for await (const r of src.results()) {
    const sent = !checking && sentBefore();
    const bad = tally.take(r, sent) ?? (checking && tally.values < PRECHECK_VALUES ? undefined : over(sent));
    if (bad) return stop(bad);
    if (!checking) {
      yield r;
      continue;
    }
    held.push(r);
    if (tally.values < PRECHECK_VALUES) continue;
    checking = false;
    yield* held.splice(0);
  }
  if (checking) {
    const bad = over(false);
    if (bad) return stop(bad);
    yield* held;
  }
}
