// Reading the input: whole-record chunks of about 1 MiB (never splitting a quoted csv field),
// format sniffing, header detection and the column plan the hash workers follow.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, XctlError } from '../core/errors.js';
import { bufferOf } from '../contract/guards.js';
import { canonicalType, ID_TYPES, TYPE_ALIASES, type IdType } from '../contract/audience-users.js';
import type { ColumnSpec, InputFormat } from './chunk-processor.js';
import { headerType, sameHeader } from './columns.js';
import { lastRecordEnd, scanDelimited } from './csv.js';

export const CHUNK_BYTES = 1 << 19;

/** Copies into a fresh ArrayBuffer so it can be transferred to a worker (stream buffers may be pooled). */
function own(b: Buffer): Uint8Array {
  const out = new Uint8Array(b.length);
  out.set(b);
  return out;
}

export { lastRecordEnd };

/**
 * How the reader cuts records: quote-aware for csv/tsv (with its delimiter). In a strict read a
 * record that grows past `maxRecordBytes` is handed on as it is, cut: the workers then report
 * the quote that was never closed instead of the reader holding the rest of the input.
 */
export interface CutRule {
  value: boolean;
  delimiter?: number;
  maxRecordBytes?: number;
}

/** A strict read's largest record: a quoted field this long is a quote never closed. */
export const MAX_RECORD_BYTES = 16 << 20;

/** Whole-record chunks of at least `target` bytes (the last one may be shorter). */
export async function* readChunks(
  stream: AsyncIterable<unknown>,
  quoteAware: CutRule,
  target = CHUNK_BYTES,
): AsyncGenerator<Uint8Array> {
  let carry: Buffer = Buffer.alloc(0);
  for await (const d of stream) {
    const data = bufferOf(d);
    carry = carry.length ? Buffer.concat([carry, data]) : data;
    if (carry.length < target) continue;
    let end = lastRecordEnd(carry, quoteAware.value, quoteAware.delimiter);
    if (end < 0 && carry.length >= (quoteAware.maxRecordBytes ?? Infinity)) end = carry.length - 1;
    if (end < 0) continue;
    yield own(carry.subarray(0, end + 1));
    carry = Buffer.from(carry.subarray(end + 1));
  }
  if (carry.length) yield own(carry);
}

/**
 * Whole-record chunks read straight from a file into buffers of their own (no stream buffers,
 * no concatenation): each chunk is read once and then transferred to a worker without a copy.
 * `onRead` reports progress and sees the first bytes before the first chunk is cut.
 */
export async function* readFileChunks(
  file: string,
  quoteAware: CutRule,
  onRead: (bytes: Uint8Array) => void,
  target = CHUNK_BYTES,
  /** A buffer of at least n bytes to fill again (one the hash workers gave back), if any. */
  spare?: (n: number) => Buffer | undefined,
): AsyncGenerator<Uint8Array> {
  const fh = await fs.promises.open(file, 'r');
  try {
    // A file cut short while it is read (an output pointed at it, a rotation) must not end the
    // run as a success: every byte it had at the start has to arrive.
    const size = (await fh.stat()).size;
    let total = 0;
    let carry: Uint8Array = new Uint8Array(0);
    for (;;) {
      // Room for a carried partial record besides `target`, so a buffer given back fits again.
      const buf = spare?.(carry.length + target) ?? Buffer.allocUnsafeSlow(carry.length + target + (target >> 3));
      buf.set(carry, 0);
      const { bytesRead } = await fh.read(buf, carry.length, target, null);
      if (bytesRead > 0) onRead(buf.subarray(carry.length, carry.length + bytesRead));
      const filled = carry.length + bytesRead;
      total += bytesRead;
      if (bytesRead === 0) {
        if (total < size) throw new InputShrank(file, total, size);
        if (filled) yield buf.subarray(0, filled);
        return;
      }
      let end = lastRecordEnd(buf.subarray(0, filled), quoteAware.value, quoteAware.delimiter);
      if (end < 0 && filled >= (quoteAware.maxRecordBytes ?? Infinity)) end = filled - 1;
      if (end < 0) {
        // no record end yet (a very long line or quoted field): keep reading into a bigger buffer
        carry = buf.subarray(0, filled);
        continue;
      }
      carry = Uint8Array.prototype.slice.call(buf, end + 1, filled) as Uint8Array;
      yield buf.subarray(0, end + 1);
    }
  } finally {
    await fh.close();
  }
}

/** The input ended before the size it had when the upload started. */
export class InputShrank extends XctlError {
  constructor(file: string, read: number, size: number) {
    super(`${file} shrank while it was read: ${read} of its ${size} bytes arrived`, {
      hint: 'something truncated or rewrote the input during the upload (an --out, --rejects or --journal pointed at it?); nothing after that point was read',
    });
  }
}

/**
 * Output files are opened (truncated) before the input is read: one that is the input, or the
 * journal, would destroy it mid-read. Compared by device and inode, so links and other spellings
 * of the same path are caught; a missing folder is a usage error before anything is sent.
 */
export function checkOutputPaths(
  input: string | undefined,
  outputs: Array<[flag: string, file: string | undefined]>,
  journal?: string,
): void {
  const id = (f: string) => {
    try {
      const st = fs.statSync(f);
      return `${st.dev}:${st.ino}`;
    } catch {
      return undefined;
    }
  };
  const inputId = input && input !== '-' ? id(input) : undefined;
  const journalId = journal ? id(journal) : undefined;
  const seen = new Map<string, string>();
  for (const [flag, file] of outputs) {
    if (!file) continue;
    const dir = path.dirname(path.resolve(file));
    let dst: fs.Stats | undefined;
    try {
      dst = fs.statSync(dir);
    } catch {
      dst = undefined;
    }
    // The journal's folder is created for it; --out and --rejects need theirs.
    if (!dst?.isDirectory() && flag !== '--journal')
      throw new UsageError(`${flag} ${file}: the folder ${dir} does not exist`, { flag });
    const fid = id(file);
    if (fid && fs.statSync(file).isDirectory()) throw new UsageError(`${flag} ${file} is a directory`, { flag });
    if (fid && fid === inputId)
      throw new UsageError(`${flag} ${file} is the input file: writing it would destroy the input while it is read`, {
        flag,
      });
    if (fid && fid === journalId && flag !== '--journal')
      throw new UsageError(`${flag} ${file} is the journal: writing it would destroy the record of what was sent`, {
        flag,
      });
    const key = fid ?? path.resolve(file);
    if (seen.has(key)) throw new UsageError(`${flag} and ${seen.get(key)} name the same file (${file})`, { flag });
    seen.set(key, flag);
  }
  if (journalId && journalId === inputId)
    throw new UsageError(`--journal ${journal} is the input file`, { flag: '--journal' });
}

export function formatFromName(file: string): InputFormat | undefined {
  const f = file.toLowerCase().replace(/\.gz$/, '');
  if (f.endsWith('.csv')) return 'csv';
  if (f.endsWith('.tsv') || f.endsWith('.tab')) return 'tsv';
  if (f.endsWith('.jsonl') || f.endsWith('.ndjson')) return 'jsonl';
  if (f.endsWith('.txt')) return 'lines';
  return undefined;
}

export function sniffFormat(firstLine: string): InputFormat {
  const l = firstLine.trim();
  if (l.startsWith('{') || (l.startsWith('"') && l.endsWith('"') && !l.includes(','))) return 'jsonl';
  if (l.includes('\t')) return 'tsv';
  if (l.includes(',')) return 'csv';
  return 'lines';
}

export interface ColumnRequest {
  /** --type T */
  type?: IdType;
  /** --column TYPE=HEADER, in order */
  columns: Array<{ type: IdType; header: string }>;
  /** --ignore-column NAME: header cells never sent nor taken for identifiers. */
  ignore?: string[];
}

/** Parses repeatable `--column TYPE=HEADER`. */
export function parseColumnFlags(values: string[]): Array<{ type: IdType; header: string }> {
  return values.map((v) => {
    const i = v.indexOf('=');
    const t = i > 0 ? canonicalType(v.slice(0, i)) : undefined;
    if (i <= 0 || !t || !v.slice(i + 1).trim()) {
      throw new UsageError(`--column must be TYPE=HEADER with TYPE one of ${ID_TYPES.join(', ')} (got "${v}")`, {
        flag: '--column',
      });
    }
    return { type: t, header: v.slice(i + 1).trim() };
  });
}

/** The first record's cells, read as the reader reads records (quotes, a BOM dropped). */
export function headerCells(line: string, format: InputFormat): string[] {
  let cells: string[] = [];
  scanDelimited(line.replace(/^\uFEFF/, ''), format === 'tsv' ? '\t' : ',', true, (c) => {
    if (!cells.length) cells = c;
  });
  return cells.map((c) => c.trim());
}

export interface ColumnPlan {
  columns: ColumnSpec[];
  /** The first line is a header and is skipped. */
  header: boolean;
  /** The header's cells (csv/tsv with a header). */
  cells?: string[];
  /** Header cells not sent, with --ignore-column's by name. */
  ignored?: string[];
  /** Positions of the columns --ignore-column named. */
  ignoredIndex?: Set<number>;
  /** The columns were found in the header (no --type, no --column). */
  auto?: boolean;
}

/**
 * Decides which cells hold which identifiers. csv/tsv: the first row is a header when it names
 * a type (or a --column header); `--column` needs a header. jsonl: keys are the type names.
 */
export function planColumns(format: InputFormat, firstLine: string, req: ColumnRequest): ColumnPlan {
  if (format === 'jsonl') {
    if (req.columns.length)
      return { header: false, columns: req.columns.map((c) => ({ type: c.type, name: c.header, keys: [c.header] })) };
    const types: IdType[] = req.type ? [req.type] : [...ID_TYPES];
    return { header: false, columns: types.map((t) => ({ type: t, name: t, keys: keysFor(t) })) };
  }
  if (format === 'lines') return planLines(firstLine, req);
  const cells = headerCells(firstLine, format);
  const ignoredIndex = ignoredColumns(cells, req.ignore ?? []);
  const rest = (used: ColumnSpec[]) => cells.filter((_, i) => !used.some((c) => c.index === i));
  if (req.columns.length) {
    const columns = req.columns.map((c) => {
      let idx = cells.findIndex((h) => h.toLowerCase() === c.header.toLowerCase());
      if (idx < 0) idx = cells.findIndex((h) => sameHeader(h, c.header));
      if (idx < 0)
        throw new UsageError(
          `--column ${c.type}=${c.header}: no column "${c.header}" in the header (${cells.join(', ')})`,
          { flag: '--column' },
        );
      return { type: c.type, name: c.header, index: idx };
    });
    return { header: true, columns, cells, ignored: rest(columns), ignoredIndex };
  }
  const named = cells.map((c, i) => (ignoredIndex.has(i) ? undefined : headerType(c)));
  const isHeader = named.some((t) => t !== undefined) || ignoredIndex.size > 0;
  if (req.type) return planTyped(req.type, cells, named, isHeader, ignoredIndex);
  if (!isHeader) {
    throw new UsageError(
      `cannot tell which column holds what: the first row (${shown(cells)}) names no identifier type`,
      {
        flag: '--type',
        hint: `pass --column TYPE=HEADER for each column to send (e.g. --column email=${JSON.stringify(cells.find((c) => /mail/i.test(c)) ?? cells[0] ?? 'HEADER')}), --type T for a one-column file, or rename the header cells (${HEADER_NAMES})`,
      },
    );
  }
  const columns: ColumnSpec[] = [];
  named.forEach((t, i) => {
    if (t) columns.push({ type: t, name: cells[i]!, index: i });
  });
  return { header: true, columns, cells, ignored: rest(columns), ignoredIndex, auto: true };
}

/** --ignore-column NAME (repeatable): the header cells it names; one that names none is an error. */
function ignoredColumns(cells: string[], names: string[]): Set<number> {
  const out = new Set<number>();
  for (const n of names) {
    let idx = cells.findIndex((h) => h.toLowerCase() === n.trim().toLowerCase());
    if (idx < 0) idx = cells.findIndex((h) => sameHeader(h, n));
    if (idx < 0)
      throw new UsageError(`--ignore-column ${n}: no column "${n}" in the header (${cells.join(', ')})`, {
        flag: '--ignore-column',
      });
    out.add(idx);
  }
  return out;
}

/** csv/tsv with --type T: the columns the header names T, or the only column. */
function planTyped(
  type: IdType,
  cells: string[],
  named: Array<IdType | undefined>,
  isHeader: boolean,
  ignoredIndex: Set<number>,
): ColumnPlan {
  if (isHeader) {
    const columns = cells.flatMap((name, index) => (named[index] === type ? [{ type, name, index }] : []));
    const rest = () => cells.filter((_, i) => !columns.some((c) => c.index === i));
    if (columns.length) return { header: true, columns, cells, ignored: rest(), ignoredIndex };
    if (cells.length === 1) return { header: true, columns: [{ type, name: cells[0]!, index: 0 }], cells, ignored: [] };
    throw new UsageError(
      `--type ${type}: the header (${cells.join(', ')}) has no ${type} column; name one with --column ${type}=HEADER`,
      { flag: '--column' },
    );
  }
  if (cells.length > 1) {
    throw new UsageError(
      `the input has ${cells.length} columns and its first row (${shown(cells)}) names none of them: say which holds what with --column TYPE=HEADER`,
      {
        flag: '--column',
        hint: `--column needs a header row: add one naming the columns (${HEADER_NAMES}), or name yours, e.g. --column ${type}=HEADER`,
      },
    );
  }
  // A one-column file whose first cell is not an identifier of the type (e.g. "Email Address").
  const headerLike =
    !/[@\d]/.test(cells[0]!) && type !== 'handle' && type !== 'device_id' && type !== 'partner_user_id';
  return { header: headerLike, columns: [{ type, name: headerLike ? cells[0]! : type, index: 0 }] };
}

/** Plain lines: one value each; a first line naming a type is a header. */
function planLines(firstLine: string, req: ColumnRequest): ColumnPlan {
  // A one-column csv read from stdin sniffs as plain lines: its header ("email") is a header
  // here too, as it is when the same file is named on the command line.
  const cell = headerCells(firstLine, 'csv')[0] ?? '';
  const named = headerType(cell);
  if (req.columns.length) {
    if (named && req.columns.length === 1 && sameHeader(req.columns[0]!.header, cell)) {
      return { header: true, columns: [{ type: req.columns[0]!.type, name: cell, index: 0 }] };
    }
    throw new UsageError(
      '--column needs csv, tsv or jsonl input with named columns; plain lines hold one value each: use --type',
      { flag: '--column' },
    );
  }
  const type = req.type ?? named;
  if (!type) {
    throw new UsageError(
      `plain-line input needs --type (${ID_TYPES.join(', ')}): its first line is ${shown([firstLine])}, which names no type`,
      {
        flag: '--type',
        hint: `say what each line holds, e.g. --type email; or start the file with a header line naming it (${HEADER_NAMES})`,
      },
    );
  }
  if (named && named === type) return { header: true, columns: [{ type, name: cell, index: 0 }], auto: !req.type };
  return { header: false, columns: [{ type, name: type, index: 0 }] };
}

/** The header names that name a type by themselves. */
const HEADER_NAMES = [...ID_TYPES, ...Object.keys(TYPE_ALIASES)].join(', ');

/** Header cells as found, quoted and cut short: the error shows what was read, on one line. */
function shown(cells: string[]): string {
  const quoted = cells.slice(0, 8).map((c) => JSON.stringify(c.length > 40 ? `${c.slice(0, 37)}...` : c));
  return quoted.join(', ') + (cells.length > 8 ? `, ... (${cells.length} columns)` : '');
}

function keysFor(t: IdType): string[] {
  return [
    t,
    ...Object.entries(TYPE_ALIASES)
      .filter(([, v]) => v === t)
      .map(([k]) => k),
  ];
}
