// Reading the input: whole-record chunks of about 1 MiB (never splitting a quoted csv field),
// format sniffing, header detection and the column plan the hash workers follow.
import type { Readable } from 'node:stream';
import { UsageError } from '../core/errors.js';
import { canonicalType, ID_TYPES, TYPE_ALIASES, type IdType } from './normalize.js';
import type { ColumnSpec, InputFormat } from './chunk-processor.js';

export const CHUNK_BYTES = 1 << 19;

/** Copies into a fresh ArrayBuffer so it can be transferred to a worker (stream buffers may be pooled). */
function own(b: Buffer): Uint8Array {
  const out = new Uint8Array(b.length);
  out.set(b);
  return out;
}

/** End (inclusive) of the last complete record: the last newline outside double quotes. */
export function lastRecordEnd(buf: Buffer, quoteAware: boolean): number {
  if (!quoteAware || buf.indexOf(34) < 0) return buf.lastIndexOf(10);
  let inQ = false;
  let last = -1;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (c === 34) inQ = !inQ;
    else if (c === 10 && !inQ) last = i;
  }
  return last;
}

/** Whole-record chunks of at least `target` bytes (the last one may be shorter). */
export async function* readChunks(stream: Readable | NodeJS.ReadableStream, quoteAware: { value: boolean }, target = CHUNK_BYTES): AsyncGenerator<Uint8Array> {
  let carry: Buffer = Buffer.alloc(0);
  for await (const d of stream as AsyncIterable<Buffer | string>) {
    const data = typeof d === 'string' ? Buffer.from(d) : d;
    carry = carry.length ? Buffer.concat([carry, data]) : data;
    if (carry.length < target) continue;
    const end = lastRecordEnd(carry, quoteAware.value);
    if (end < 0) continue;
    yield own(carry.subarray(0, end + 1));
    carry = Buffer.from(carry.subarray(end + 1));
  }
  if (carry.length) yield own(carry);
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
  if (l.startsWith('{') || l.startsWith('"') && l.endsWith('"') && !l.includes(',')) return 'jsonl';
  if (l.includes('\t')) return 'tsv';
  if (l.includes(',')) return 'csv';
  return 'lines';
}

export interface ColumnRequest {
  /** --type T */
  type?: IdType;
  /** --column TYPE=HEADER, in order */
  columns: Array<{ type: IdType; header: string }>;
}

/** Parses repeatable `--column TYPE=HEADER`. */
export function parseColumnFlags(values: string[]): Array<{ type: IdType; header: string }> {
  return values.map((v) => {
    const i = v.indexOf('=');
    const t = i > 0 ? canonicalType(v.slice(0, i)) : undefined;
    if (i <= 0 || !t || !v.slice(i + 1).trim()) {
      throw new UsageError(`--column must be TYPE=HEADER with TYPE one of ${ID_TYPES.join(', ')} (got "${v}")`, { flag: '--column' });
    }
    return { type: t, header: v.slice(i + 1).trim() };
  });
}

function splitHeader(line: string, format: InputFormat): string[] {
  const cells = line.split(format === 'tsv' ? '\t' : ',');
  return cells.map((c) => c.trim().replace(/^"(.*)"$/, '$1').trim());
}

export interface ColumnPlan {
  columns: ColumnSpec[];
  /** The first line is a header and is skipped. */
  header: boolean;
}

/**
 * Decides which cells hold which identifiers. csv/tsv: the first row is a header when it names
 * a type (or a --column header); `--column` needs a header. jsonl: keys are the type names.
 */
export function planColumns(format: InputFormat, firstLine: string, req: ColumnRequest): ColumnPlan {
  if (format === 'jsonl') {
    if (req.columns.length) return { header: false, columns: req.columns.map((c) => ({ type: c.type, name: c.header, keys: [c.header] })) };
    const types: IdType[] = req.type ? [req.type] : [...ID_TYPES];
    return { header: false, columns: types.map((t) => ({ type: t, name: t, keys: keysFor(t) })) };
  }
  if (format === 'lines') {
    if (req.columns.length) throw new UsageError('--column needs csv, tsv or jsonl input with named columns; plain lines hold one value each: use --type', { flag: '--column' });
    if (!req.type) throw new UsageError('plain-line input needs --type (email, phone_number, handle, twitter_id, device_id, partner_user_id)', { flag: '--type' });
    return { header: false, columns: [{ type: req.type, name: req.type, index: 0 }] };
  }
  const cells = splitHeader(firstLine, format);
  const lower = cells.map((c) => c.toLowerCase());
  if (req.columns.length) {
    const columns = req.columns.map((c) => {
      const idx = lower.indexOf(c.header.toLowerCase());
      if (idx < 0) throw new UsageError(`--column ${c.type}=${c.header}: no column "${c.header}" in the header (${cells.join(', ')})`, { flag: '--column' });
      return { type: c.type, name: c.header, index: idx };
    });
    return { header: true, columns };
  }
  const named = lower.map((c) => canonicalType(c.replace(/[\s-]+/g, '_')));
  const isHeader = named.some((t) => t !== undefined);
  if (req.type) {
    if (isHeader) {
      const idx = named.indexOf(req.type);
      if (idx >= 0) return { header: true, columns: [{ type: req.type, name: cells[idx]!, index: idx }] };
      if (cells.length === 1) return { header: true, columns: [{ type: req.type, name: cells[0]!, index: 0 }] };
      throw new UsageError(`--type ${req.type}: the header (${cells.join(', ')}) has no ${req.type} column; name one with --column ${req.type}=HEADER`, { flag: '--column' });
    }
    if (cells.length > 1) throw new UsageError(`the input has ${cells.length} columns and no header naming them: say which holds what with --column TYPE=HEADER`, { flag: '--column' });
    // A one-column file whose first cell is not an identifier of the type (e.g. "Email Address").
    const headerLike = !/[@\d]/.test(cells[0]!) && req.type !== 'handle' && req.type !== 'device_id' && req.type !== 'partner_user_id';
    return { header: headerLike, columns: [{ type: req.type, name: headerLike ? cells[0]! : req.type, index: 0 }] };
  }
  if (!isHeader) throw new UsageError('cannot tell which column holds what: pass --type T or --column TYPE=HEADER', { flag: '--type' });
  const columns: ColumnSpec[] = [];
  named.forEach((t, i) => {
    if (t) columns.push({ type: t, name: cells[i]!, index: i });
  });
  return { header: true, columns };
}

function keysFor(t: IdType): string[] {
  return [t, ...Object.entries(TYPE_ALIASES).filter(([, v]) => v === t).map(([k]) => k)];
}
