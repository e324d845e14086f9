// Turns one chunk of raw input (whole records, any format) into ready JSON user fragments:
// the hot path of the upload. It runs inside the hash workers and in unit tests. Output is one
// string of fragments plus their end offsets, so no per-record object crosses threads.
import { parse as parseCsvSync } from 'csv-parse/sync';
import { asciiJsonString, prepare, type IdType } from './normalize.js';

export type InputFormat = 'lines' | 'csv' | 'tsv' | 'jsonl';

export interface ColumnSpec {
  type: IdType;
  /** What the user called it (header or key), for rejects. */
  name: string;
  /** csv/tsv column position. */
  index?: number;
  /** jsonl keys to look up, first present wins. */
  keys?: string[];
}

export interface ProcessorConfig {
  format: InputFormat;
  columns: ColumnSpec[];
  hashed: boolean;
  defaultCountry?: string;
}

export interface ChunkResult {
  seq: number;
  /**
   * User objects as ASCII bytes, each followed by a comma: `{"email":["..."]},{"email":["..."]},`.
   * Bytes, not a string: transferred to the main thread without a copy and sent as they are.
   */
  frags: Uint8Array;
  /** End offset in `frags` of each user, in input order. */
  ends: Int32Array;
  /** Physical lines the chunk spans (for line numbers of later chunks). */
  lines: number;
  read: number;
  valid: number;
  /** [line within chunk (1-based), column, reason]. */
  rejects: Array<[number, string, string]>;
  /** Line within chunk of the first digest-looking value (without --hashed), else 0. */
  digestLine: number;
  digestColumn?: string;
}

const decoder = new TextDecoder('utf-8');
const EMPTY = new Uint8Array(0);

/** Fragments are pure ASCII (asciiJsonString), so latin1 is a byte-exact encoding. */
function bytes(s: string): Uint8Array {
  return s.length ? Buffer.from(s, 'latin1') : EMPTY;
}

/**
 * Fragments written straight into bytes as they are made: nothing per record outlives its
 * iteration, so the young-generation GC stays cheap (a growing string would promote every
 * fragment). The buffer is its own ArrayBuffer, so it can be transferred.
 */
class ByteOut {
  buf: Buffer;
  len = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafeSlow(Math.max(1024, size));
  }
  write(s: string): void {
    if (this.len + s.length > this.buf.length) {
      const n = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.len + s.length));
      this.buf.copy(n, 0, 0, this.len);
      this.buf = n;
    }
    this.len += (this.buf as Buffer & { latin1Write(s: string, off: number): number }).latin1Write(s, this.len);
  }
  done(): Uint8Array {
    return this.len ? this.buf.subarray(0, this.len) : EMPTY;
  }
}

export function processChunk(seq: number, buf: Uint8Array, cfg: ProcessorConfig): ChunkResult {
  const text = decoder.decode(buf);
  const r: ChunkResult = { seq, frags: EMPTY, ends: new Int32Array(1024), lines: 0, read: 0, valid: 0, rejects: [], digestLine: 0 };
  if (cfg.format === 'lines' || (cfg.columns.length === 1 && cfg.format !== 'jsonl' && cfg.columns[0]!.index === 0 && !text.includes(cfg.format === 'tsv' ? '\t' : ',') && !text.includes('"'))) {
    singleColumnLines(text, cfg, r);
  } else if (cfg.format === 'jsonl') {
    rows(text, cfg, r, jsonlCells);
  } else {
    const delim = cfg.format === 'tsv' ? '\t' : ',';
    if (!text.includes('"')) rows(text, cfg, r, (line) => line.split(delim));
    else csvRows(text, cfg, r, delim);
  }
  r.ends = r.ends.slice(0, r.valid);
  return r;
}

function pushEnd(r: ChunkResult, end: number): void {
  if (r.valid === r.ends.length) {
    const n = new Int32Array(r.ends.length * 2);
    n.set(r.ends);
    r.ends = n;
  }
  r.ends[r.valid++] = end;
}

/** The hot path: one identifier per line (plain lines, or a one-column file without quotes). */
function singleColumnLines(text: string, cfg: ProcessorConfig, r: ChunkResult): void {
  const col = cfg.columns[0]!;
  const prefix = `{"${col.type}":[`;
  const isPartner = col.type === 'partner_user_id';
  // Emails average ~25 bytes in, ~77 out: start near the final size to avoid regrowth.
  const out = new ByteOut(text.length * 3 + 4096);
  let pos = 0;
  let line = 0;
  const len = text.length;
  while (pos < len) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = len;
    line++;
    let end = nl;
    if (end > pos && text.charCodeAt(end - 1) === 13) end--;
    const raw = text.slice(pos, end);
    pos = nl + 1;
    if (raw.length === 0 || raw.trim().length === 0) continue; // blank lines are not records
    r.read++;
    const p = prepare(col.type, raw, cfg.hashed, cfg.defaultCountry);
    if ('value' in p) {
      // One native write per record: the call, not the bytes, is what costs here.
      out.write(isPartner ? prefix + asciiJsonString(p.value) + ']},' : prefix + '"' + p.value + '"]},');
      pushEnd(r, out.len);
    } else if ('digest' in p) {
      if (!r.digestLine) {
        r.digestLine = line;
        r.digestColumn = col.name;
      }
    } else r.rejects.push([line, col.name, p.reason]);
  }
  r.frags = out.done();
  r.lines = line;
}

function jsonlCells(line: string, cfg: ProcessorConfig): string[] | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'not valid JSON';
  }
  if (typeof v === 'string' && cfg.columns.length === 1) return [v];
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  return cfg.columns.map((c) => {
    for (const k of c.keys ?? [c.name]) {
      const x = o[k];
      if (x === undefined || x === null) continue;
      // ids stay strings; a number in JSON is read back from its source text only when safe.
      return typeof x === 'string' ? x : typeof x === 'number' && Number.isSafeInteger(x) ? String(x) : JSON.stringify(x);
    }
    return '';
  });
}

/** One user object from the row's cells: empty cells are skipped, any bad value rejects the row. */
function emitRow(cells: string[], line: number, cfg: ProcessorConfig, r: ChunkResult, out: { frags: string }): void {
  r.read++;
  const byType = new Map<IdType, string[]>();
  for (let i = 0; i < cfg.columns.length; i++) {
    const c = cfg.columns[i]!;
    const raw = c.index !== undefined && cfg.format !== 'jsonl' ? cells[c.index] : cells[i];
    if (raw === undefined || raw.trim() === '') continue;
    const p = prepare(c.type, raw, cfg.hashed, cfg.defaultCountry);
    if ('digest' in p) {
      if (!r.digestLine) {
        r.digestLine = line;
        r.digestColumn = c.name;
      }
      return;
    }
    if ('reason' in p) {
      r.rejects.push([line, c.name, p.reason]);
      return;
    }
    const list = byType.get(c.type) ?? [];
    list.push(c.type === 'partner_user_id' ? asciiJsonString(p.value) : `"${p.value}"`);
    byType.set(c.type, list);
  }
  if (byType.size === 0) {
    r.rejects.push([line, cfg.columns.map((c) => c.name).join('|'), 'no identifier in this row']);
    return;
  }
  let f = '{';
  let first = true;
  for (const [t, vals] of byType) {
    f += `${first ? '' : ','}"${t}":[${[...new Set(vals)].join(',')}]`;
    first = false;
  }
  out.frags += f + '},';
  pushEnd(r, out.frags.length);
}

function rows(text: string, cfg: ProcessorConfig, r: ChunkResult, cellsOf: (line: string, cfg: ProcessorConfig) => string[] | string): void {
  const out = { frags: '' };
  let pos = 0;
  let line = 0;
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    line++;
    let end = nl;
    if (end > pos && text.charCodeAt(end - 1) === 13) end--;
    const raw = text.slice(pos, end);
    pos = nl + 1;
    if (raw.trim() === '') continue;
    const cells = cellsOf(raw, cfg);
    if (typeof cells === 'string') {
      r.read++;
      r.rejects.push([line, '-', cells]);
      continue;
    }
    emitRow(cells, line, cfg, r, out);
  }
  r.frags = bytes(out.frags);
  r.lines = line;
}

/** Quoted csv/tsv (RFC 4180: quotes, doubled quotes, newlines inside quotes) through csv-parse. */
function csvRows(text: string, cfg: ProcessorConfig, r: ChunkResult, delimiter: string): void {
  const out = { frags: '' };
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parseCsvSync(text, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, info: true }) as never;
  } catch (e) {
    // A malformed chunk: fall back to splitting lines so the bad rows are reported, not lost.
    rows(text, cfg, r, (line) => line.split(delimiter));
    void e;
    return;
  }
  for (const rec of records) {
    if (rec.record.every((c) => c.trim() === '')) continue;
    // info.lines is the line where the record ends; records spanning lines report their last line.
    emitRow(rec.record, rec.info.lines, cfg, r, out);
  }
  r.frags = bytes(out.frags);
  r.lines = countLines(text);
}

function countLines(text: string): number {
  let n = 0;
  let i = -1;
  while ((i = text.indexOf('\n', i + 1)) >= 0) n++;
  return text.length > 0 && !text.endsWith('\n') ? n + 1 : n;
}
