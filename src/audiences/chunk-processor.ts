// Turns one chunk of raw input (whole records, any format) into ready JSON user fragments:
// the hot path of the upload. It runs inside the hash workers and in unit tests. Output is one
// string of fragments plus their end offsets, so no per-record object crosses threads.
import { isUtf8 } from 'node:buffer';
import { EMAIL_RE, asciiJsonString, looksHashed, prepare, sha256Hex } from './normalize.js';
import type { IdType } from '../contract/audience-users.js';
import { MAX_LEN, sha256x4, slotOffset } from './sha256x4.js';
import { MAX_FIELD_LINES, rowInside, scanDelimited, type QuoteFault } from './csv.js';
import { rowLikeTest } from './columns.js';
import { isRecord } from '../contract/guards.js';

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
  /** Reject a whole row when one of its identifiers is bad (default: keep the good ones). */
  strictRows?: boolean;
  /** csv/tsv: read a quote that is never closed as running on (the old reading), no fault. */
  lenientQuotes?: boolean;
  /** csv/tsv: the header's cells (a row's width), when there is a header. */
  width?: number;
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
  /** Input bytes of the chunk (progress counts what has been processed, not just read). */
  bytes: number;
  /** Physical lines the chunk spans (for line numbers of later chunks). */
  lines: number;
  read: number;
  valid: number;
  /** Blank lines (records with no non-blank cell): not records, but accounted for. */
  blank: number;
  /** Lines that continue a record (newlines inside quoted fields). */
  joined: number;
  /** Identifier values looked at (a row without any counts one): the reject rate's base. */
  values: number;
  /** csv/tsv: a quoted field that is never closed; the chunk stops at its record. */
  fault?: QuoteFault;
  /** [line within chunk (1-based), column, reason]. */
  rejects: Array<[number, string, string]>;
  /** Line within chunk of the first digest-looking value (without --hashed), else 0. */
  digestLine: number;
  digestColumn?: string;
}

const decoder = new TextDecoder('utf-8');
const EMPTY = new Uint8Array(0);
export const NOT_UTF8 = 'not valid UTF-8';
/**
 * Set per chunk: the chunk holds bytes that are not UTF-8. The decoder turns them into U+FFFD,
 * so two different addresses would hash alike; a value with U+FFFD in such a chunk is rejected.
 * (isUtf8 is one fast pass, so valid chunks pay nothing more.)
 */
let badUtf8 = false;
const mangled = (v: string) => badUtf8 && v.includes('\uFFFD');

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
  /** `spares`: buffers given back for reuse (the hash workers'); one large enough is taken. */
  constructor(size: number, spares?: ArrayBuffer[]) {
    const i = spares ? spares.findIndex((b) => b.byteLength >= size) : -1;
    // New buffers get 1/8 to spare: chunk sizes differ by a few bytes, and a buffer given back
    // must fit the next chunk's estimate to be reused at all.
    this.buf =
      i >= 0 ? Buffer.from(spares!.splice(i, 1)[0]!) : Buffer.allocUnsafeSlow(Math.max(1024, size + (size >> 3)));
  }
  reserve(n: number): void {
    if (this.len + n > this.buf.length) {
      const b = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.len + n));
      this.buf.copy(b, 0, 0, this.len);
      this.buf = b;
    }
  }
  write(s: string): void {
    this.reserve(s.length);
    this.len += (this.buf as Buffer & { latin1Write(s: string, off: number): number }).latin1Write(s, this.len);
  }
  done(): Uint8Array {
    return this.len ? this.buf.subarray(0, this.len) : EMPTY;
  }
}

export function processChunk(seq: number, buf: Uint8Array, cfg: ProcessorConfig, spares?: ArrayBuffer[]): ChunkResult {
  const r: ChunkResult = {
    seq,
    frags: EMPTY,
    ends: endsScratch,
    bytes: buf.byteLength,
    lines: 0,
    read: 0,
    valid: 0,
    blank: 0,
    joined: 0,
    values: 0,
    rejects: [],
    digestLine: 0,
  };
  // The delimiter and quote tests run on the bytes: ASCII never occurs inside a UTF-8 sequence.
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  badUtf8 = !isUtf8(b);
  const oneColumn =
    cfg.columns.length === 1 &&
    cfg.format !== 'jsonl' &&
    cfg.columns[0]!.index === 0 &&
    b.indexOf(cfg.format === 'tsv' ? 9 : 44) < 0 &&
    b.indexOf(34) < 0;
  if (
    cfg.columns.length === 1 &&
    cfg.columns[0]!.type === 'email' &&
    !cfg.hashed &&
    (cfg.format === 'lines' || oneColumn)
  ) {
    emailLines(b, cfg, r, spares);
    r.ends = r.ends.slice(0, r.valid);
    r.values = r.read;
    return r;
  }
  if (
    !badUtf8 &&
    (cfg.format === 'csv' || cfg.format === 'tsv') &&
    cfg.columns.length === 1 &&
    cfg.columns[0]!.type === 'email' &&
    cfg.columns[0]!.index !== undefined &&
    !cfg.hashed
  ) {
    if (csvEmails(b, cfg, r, spares)) {
      r.ends = r.ends.slice(0, r.valid);
      return r;
    }
    // a quote fault (or a quote never closed): the string reader says what and where
    Object.assign(r, { frags: EMPTY, ends: endsScratch, lines: 0, read: 0, valid: 0, blank: 0, joined: 0 });
    Object.assign(r, { values: 0, rejects: [], digestLine: 0, digestColumn: undefined });
  }
  const text = decoder.decode(buf);
  if (cfg.format === 'lines' || oneColumn) {
    singleColumnLines(text, cfg, r, spares);
    r.values = r.read;
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

/**
 * Ends are collected in one array per thread, grown when needed and reused, then copied out at
 * their exact size (the copy is what goes to the main thread). The email path allocates nothing
 * per record, so a hash worker rarely collects garbage: buffers dropped per chunk would pile up
 * as external memory until it did (tens of MB of peak RSS on large inputs).
 */
let endsScratch = new Int32Array(1 << 15);

function pushEnd(r: ChunkResult, end: number): void {
  if (r.valid === r.ends.length) {
    const n = new Int32Array(r.ends.length * 2);
    n.set(r.ends);
    r.ends = endsScratch = n;
  }
  r.ends[r.valid++] = end;
}

/** Calls fn for each line (without its \r\n) with its 1-based number; returns the line count. */
function forEachLine(text: string, fn: (raw: string, line: number) => void): number {
  let pos = 0;
  let line = 0;
  const len = text.length;
  while (pos < len) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = len;
    line++;
    let end = nl;
    if (end > pos && text.charCodeAt(end - 1) === 13) end--;
    fn(text.slice(pos, end), line);
    pos = nl + 1;
  }
  return line;
}

/** One identifier per line (plain lines, or a one-column file without quotes), any type. */
function singleColumnLines(text: string, cfg: ProcessorConfig, r: ChunkResult, spares?: ArrayBuffer[]): void {
  const col = cfg.columns[0]!;
  const prefix = `{"${col.type}":[`;
  const isPartner = col.type === 'partner_user_id';
  // Values average ~25 bytes in, ~77 out: start near the final size to avoid regrowth.
  const out = new ByteOut(text.length * 3 + 4096, spares);
  r.lines = forEachLine(text, (raw, line) => {
    if (raw.length === 0 || raw.trim().length === 0) return void r.blank++; // not records
    r.read++;
    if (mangled(raw)) return void r.rejects.push([line, col.name, NOT_UTF8]);
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
  });
  r.frags = out.done();
}

const EMAIL_PREFIX = Buffer.from('{"email":["', 'latin1');
const EMAIL_SUFFIX = Buffer.from('"]},', 'latin1');
const EMAIL_FRAG = EMAIL_PREFIX.length + 64 + EMAIL_SUFFIX.length;
/** Lines decoded one at a time keep a U+FEFF inside the input, as decoding the whole chunk did. */
const lineDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Normalized values (ASCII, lowercased) are copied here and hashed through a view of the exact
 * length: one view per length, made once, so a record costs no allocation before the hash.
 */
let scratch = Buffer.allocUnsafeSlow(256);
let views: Buffer[] = [];
function valueView(n: number): Buffer {
  if (n > scratch.length) {
    scratch = Buffer.allocUnsafeSlow(Math.max(n, scratch.length * 2));
    views = [];
  }
  return (views[n] ??= scratch.subarray(0, n));
}

/**
 * The email rules on bytes, shared by the two hottest paths (one email per line, and one email
 * column of a csv/tsv file; not pre-hashed): the same rules as normalizeEmail and prepare (trim,
 * lowercase, EMAIL_RE, digest check, SHA-256 hex) without decoding the chunk, slicing strings or
 * making result objects. An ASCII value is checked and lowercased byte by byte; a value with any
 * other byte takes the string rules (the caller's), so Unicode trimming and lowercasing stay
 * exactly String.prototype's. Values of up to MAX_LEN bytes are lowercased straight into the
 * multi-buffer hasher's slots and hashed a batch at a time; longer ones (and every value without
 * WebAssembly SIMD) take crypto.hash. Fragments keep input order: a batch is written out before
 * any value that does not go through it.
 */
class EmailSink {
  private readonly x4 = sha256x4();
  private readonly mem = this.x4?.mem;
  private pending = 0;
  constructor(
    readonly out: ByteOut,
    private readonly r: ChunkResult,
    readonly name: string,
  ) {}

  /**
   * The value b[start, end) (trimmed of ASCII white space, not empty) of `line`: hashed, or
   * rejected, or noted as a digest. False when it holds a byte that is not ASCII: nothing is
   * done, and the batch is written out, so the caller's string rules keep the order.
   */
  add(b: Buffer, start: number, end: number, line: number): boolean {
    const r = this.r;
    const n = end - start;
    const mem = this.mem;
    const batched = mem !== undefined && n <= MAX_LEN;
    // where the lowercased value goes: the next free slot of the batch, or the scratch
    const v = batched ? mem : valueView(n);
    const o = batched ? slotOffset(this.pending) : 0;
    // One pass: lowercase into the slot, and note what EMAIL_RE and looksHashed need.
    let ats = 0;
    let atPos = -1;
    let space = false;
    let hex = n === 64;
    let dots = 0; // in the domain (EMAIL_RE): at least one, no empty label (-Infinity then)
    for (let i = 0; i < n; i++) {
      let c = b[start + i]!;
      if (c >= 65 && c <= 90) c += 32;
      else if (c > 127) {
        if (batched) mem.fill(0, o, o + i); // the hasher pads on zeros: leave the slot as it was
        this.flush();
        return false;
      } else if (c === 64) {
        ats++;
        atPos = i;
      } else if (c === 46 && ats === 1)
        dots = i === atPos + 1 || i === n - 1 || b[start + i - 1] === 46 ? Number.NEGATIVE_INFINITY : dots + 1;
      else if (isAsciiSpace(c)) space = true;
      if (hex && !((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) hex = false;
      v[o + i] = c;
    }
    const accepted = !hex && ats === 1 && atPos !== 0 && atPos !== n - 1 && !space && dots > 0;
    if (batched) {
      if (accepted) {
        this.x4!.lens[this.pending++] = n;
        if (this.pending === BATCH) this.flush();
        return true;
      }
      mem.fill(0, o, o + n);
    }
    if (hex) {
      if (!r.digestLine) {
        r.digestLine = line;
        r.digestColumn = this.name;
      }
    } else if (!accepted) r.rejects.push([line, this.name, 'not an email address']);
    else {
      this.flush();
      writeEmail(this.out, r, sha256Hex(v));
    }
    return true;
  }

  /** Hashes the values waiting in the batch and writes their fragments. */
  flush(): void {
    const x4 = this.x4;
    if (this.pending === 0 || !x4) return;
    x4.hash(this.pending);
    for (let i = 0; i < this.pending; i++) writeEmailHex(this.out, this.r, x4.hexViews[i]!);
    this.pending = 0;
  }
}

/** One email per line, not pre-hashed: the lines path, on the bytes (EmailSink). */
function emailLines(b: Buffer, cfg: ProcessorConfig, r: ChunkResult, spares?: ArrayBuffer[]): void {
  const name = cfg.columns[0]!.name;
  // ~25 bytes in, 79 out per record.
  const sink = new EmailSink(new ByteOut(Math.ceil(b.length * 3.3) + 4096, spares), r, name);
  let pos = 0;
  let line = 0;
  const len = b.length;
  // Decoding the chunk as a whole dropped a leading byte order mark.
  if (len >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) pos = 3;
  while (pos < len) {
    let nl = b.indexOf(10, pos);
    if (nl < 0) nl = len;
    line++;
    const lineStart = pos;
    let start = pos;
    let end = nl;
    pos = nl + 1;
    // trim ASCII whitespace (and \r) by index
    while (start < end && isAsciiSpace(b[start]!)) start++;
    while (end > start && isAsciiSpace(b[end - 1]!)) end--;
    if (start === end) {
      r.blank++; // blank lines are not records
      continue;
    }
    if (sink.add(b, start, end, line)) r.read++;
    else emailValue(lineDecoder.decode(b.subarray(lineStart, nl)), line, name, r, sink.out);
  }
  sink.flush();
  r.frags = sink.out.done();
  r.lines = line;
}

/** A line with non-ASCII bytes, by the string rules of normalizeEmail and prepare. */
function emailValue(raw: string, line: number, name: string, r: ChunkResult, out: ByteOut): void {
  let v = raw.trim();
  if (v.length === 0) return void r.blank++; // blank lines are not records
  r.read++;
  if (mangled(v)) return void r.rejects.push([line, name, NOT_UTF8]);
  v = v.toLowerCase();
  if (looksHashed(v)) {
    if (!r.digestLine) {
      r.digestLine = line;
      r.digestColumn = name;
    }
    return;
  }
  if (!EMAIL_RE.test(v)) {
    r.rejects.push([line, name, 'not an email address']);
    return;
  }
  writeEmail(out, r, sha256Hex(v));
}

/**
 * One email column of a csv/tsv file (not pre-hashed), read on the bytes: the records and cells
 * of scanDelimited (csv.ts), the row rules of emitRow, without decoding the chunk or making a
 * string per cell. Only the email cell is looked at (EmailSink); the other cells are only
 * checked for a blank row. False when the chunk holds a quote fault or a quote never closed:
 * nothing of it is kept, and the string reader (csvRows) reads the chunk again, to say what and
 * where. The caller has checked that the chunk is UTF-8.
 */
function csvEmails(b: Buffer, cfg: ProcessorConfig, r: ChunkResult, spares?: ArrayBuffer[]): boolean {
  const col = cfg.columns[0]!;
  const want = col.index!;
  const d = cfg.format === 'tsv' ? 9 : 44;
  const strict = !cfg.lenientQuotes;
  const rowLike = strict ? rowLikeOf(cfg, String.fromCharCode(d)) : undefined;
  const len = b.length;
  // Decoding the chunk as a whole dropped a leading byte order mark.
  const from = len >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  // A CRM export's row (a name, the email, more columns) is longer than its fragment (79 bytes):
  // the buffer grows for files of email-only rows, once (buffers are reused).
  const sink = new EmailSink(new ByteOut(len + 4096, spares), r, col.name);
  // Cells are found with indexOf (a native scan costs a fraction of a loop over the bytes in
  // JavaScript): the next newline, delimiter and quote at or after some position already passed
  // (len when none), each searched again only once the reading has gone past it.
  let nl = -1;
  let dl = -1;
  let quote = -1;
  let pos = from;
  let line = 1;
  while (pos < len) {
    const startLine = line;
    let blank = true;
    let cell = 0;
    // the email cell: bytes [vs, ve), or a string when it must be unescaped (vstr)
    let vs = -1;
    let ve = -1;
    let vstr: string | undefined;
    for (;;) {
      if (nl < pos) nl = orLen(b.indexOf(10, pos), len);
      if (cell > want && !blank) {
        // The rest of the record is not read: it ends at the newline unless a field opens with a quote.
        if (quote < pos) quote = orLen(b.indexOf(34, pos), len);
        if (quote > nl) {
          pos = nl;
          break;
        }
      }
      let j: number;
      if (b[pos] === 34) {
        // a quoted field: to its closing quote (a doubled quote is one quote of the value)
        const close = closingQuote(b, pos);
        const doubled = hadDoubled;
        if (close < 0) return bail(sink, spares);
        let breaks = 0;
        while (nl < close) {
          breaks++;
          nl = orLen(b.indexOf(10, nl + 1), len);
        }
        if (breaks > 0) {
          line += breaks;
          r.joined += breaks;
          if (strict && overLines(b, pos, close, breaks, d, rowLike)) return bail(sink, spares);
        }
        // relaxed: anything between the closing quote and the delimiter is kept (a \r before
        // the line's end aside)
        j = close + 1;
        while (j < len && b[j] !== d && b[j] !== 10) j++;
        const tail = j - (close + 1) - (b[j - 1] === 13 && j > close + 1 ? 1 : 0);
        if (cell === want) {
          if (doubled || tail > 0)
            vstr = unquote(b, pos + 1, close, doubled) + b.toString('utf8', close + 1, close + 1 + tail);
          else {
            vs = pos + 1;
            ve = close;
          }
        } else if (blank && !(cellBlank(b, pos + 1, close) && cellBlank(b, close + 1, close + 1 + tail))) blank = false;
      } else {
        if (dl < pos) dl = orLen(b.indexOf(d, pos), len);
        j = Math.min(dl, nl);
        if (cell === want) {
          vs = pos;
          ve = j;
        } else if (blank && !cellBlank(b, pos, j)) blank = false;
      }
      pos = j;
      cell++;
      if (pos >= len || b[pos] === 10) break;
      pos++; // the delimiter
    }
    if (pos < len) {
      pos++; // the newline
      line++;
    }
    emailRecord(b, vs, ve, vstr, blank, startLine, r, sink);
  }
  sink.flush();
  r.frags = sink.out.done();
  r.lines = line - 1 + (len > from && b[len - 1] !== 10 ? 1 : 0);
  return true;
}

const orLen = (i: number, len: number) => (i < 0 ? len : i);

/** Set by closingQuote: the field holds a doubled quote. */
let hadDoubled = false;

/** The closing quote of the quoted field opened at `open`, or -1 when the input ends first. */
function closingQuote(b: Buffer, open: number): number {
  hadDoubled = false;
  for (let k = open + 1; ; ) {
    const q = b.indexOf(34, k);
    if (q < 0 || b[q + 1] !== 34) return q;
    hadDoubled = true;
    k = q + 2;
  }
}

/**
 * A quoted field over `breaks` lines that the strict reading refuses (scanDelimited's faults):
 * too many lines, text after its closing quote, or a line inside it that reads as a row.
 */
function overLines(
  b: Buffer,
  open: number,
  close: number,
  breaks: number,
  d: number,
  rowLike: ((line: string) => boolean) | undefined,
): boolean {
  const next = b[close + 1];
  const ends = close + 1 >= b.length || next === d || next === 10 || next === 13;
  if (breaks > MAX_FIELD_LINES || !ends) return true;
  return !!rowLike && rowInside(unquote(b, open + 1, close, hadDoubled), rowLike) > 0;
}

/**
 * A record's end: counted as blank, or its email cell read (bytes [vs, ve), or `vstr` when it
 * had to be unescaped; vs < 0 and no vstr: the record has no such cell).
 */
function emailRecord(
  b: Buffer,
  vs: number,
  ve: number,
  vstr: string | undefined,
  blank: boolean,
  line: number,
  r: ChunkResult,
  sink: EmailSink,
): void {
  // trimmed of ASCII white space (and \r) by index
  if (vs >= 0) {
    while (vs < ve && isAsciiSpace(b[vs]!)) vs++;
    while (ve > vs && isAsciiSpace(b[ve - 1]!)) ve--;
  }
  if (blank && (vstr !== undefined ? vstr.trim() === '' : vs >= ve || cellBlank(b, vs, ve))) return void r.blank++;
  r.read++;
  r.values++;
  if (vstr === undefined && vs < ve) {
    if (sink.add(b, vs, ve, line)) return;
    vstr = b.toString('utf8', vs, ve);
  }
  emailCell(vstr ?? '', line, sink.name, r, sink);
}

/** An email cell by the string rules (emitRow's, with prepare): a cell that is not plain ASCII. */
function emailCell(raw: string, line: number, name: string, r: ChunkResult, sink: EmailSink): void {
  if (raw.trim() === '') return void r.rejects.push([line, name, 'no identifier in this row']);
  const p = prepare('email', raw, false);
  if ('digest' in p) {
    if (!r.digestLine) {
      r.digestLine = line;
      r.digestColumn = name;
    }
  } else if ('reason' in p) r.rejects.push([line, name, p.reason]);
  else {
    sink.flush();
    writeEmail(sink.out, r, p.value);
  }
}

/** Whether b[start, end) is empty or white space only (String.prototype.trim's). */
function cellBlank(b: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = b[i]!;
    if (c > 127) return b.toString('utf8', start, end).trim() === '';
    if (!isAsciiSpace(c)) return false;
  }
  return true;
}

/** A quoted field's value, b[start, end) between its quotes, a doubled quote read as one. */
function unquote(b: Buffer, start: number, end: number, doubled: boolean): string {
  const s = b.toString('utf8', start, end);
  return doubled ? s.replaceAll('""', '"') : s;
}

/** Gives up a chunk's work: the batch is emptied (its slots zeroed) and the buffer given back. */
function bail(sink: EmailSink, spares?: ArrayBuffer[]): false {
  sink.flush();
  if (spares && sink.out.buf.buffer.byteLength > 8192) spares.push(sink.out.buf.buffer as ArrayBuffer);
  return false;
}

/** Values hashed per call of the multi-buffer hasher: enough to spread the call, few enough to stay in cache. */
const BATCH = 256;

/** writeEmail with the digest's hex as bytes (a view into the hasher's memory). */
function writeEmailHex(out: ByteOut, r: ChunkResult, hex: Uint8Array): void {
  if (out.len + EMAIL_FRAG > out.buf.length) out.reserve(EMAIL_FRAG);
  const b = out.buf;
  let o = out.len;
  for (let i = 0; i < EMAIL_PREFIX.length; i++) b[o++] = EMAIL_PREFIX[i]!;
  b.set(hex, o);
  o += 64;
  for (let i = 0; i < EMAIL_SUFFIX.length; i++) b[o++] = EMAIL_SUFFIX[i]!;
  out.len = o;
  pushEnd(r, o);
}

/** Writes `{"email":["<hex>"]},` straight into the output bytes (fixed size). */
function writeEmail(out: ByteOut, r: ChunkResult, hex: string): void {
  if (out.len + EMAIL_FRAG > out.buf.length) out.reserve(EMAIL_FRAG);
  const b = out.buf;
  let o = out.len;
  for (let i = 0; i < EMAIL_PREFIX.length; i++) b[o++] = EMAIL_PREFIX[i]!;
  o += (b as Buffer & { latin1Write(s: string, off: number): number }).latin1Write(hex, o);
  for (let i = 0; i < EMAIL_SUFFIX.length; i++) b[o++] = EMAIL_SUFFIX[i]!;
  out.len = o;
  pushEnd(r, o);
}
/** The ASCII part of String.prototype.trim's whitespace: space, \t, \n, \v, \f, \r. */
function isAsciiSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function jsonlCells(line: string, cfg: ProcessorConfig): string[] | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'not valid JSON';
  }
  if (typeof v === 'string' && cfg.columns.length === 1) return [v];
  if (!isRecord(v)) return 'not a JSON object';
  const o = v;
  return cfg.columns.map((c) => {
    for (const k of c.keys ?? [c.name]) {
      const x = o[k];
      if (x === undefined || x === null) continue;
      // ids stay strings; a number in JSON is read back from its source text only when safe.
      return typeof x === 'string'
        ? x
        : typeof x === 'number' && Number.isSafeInteger(x)
          ? String(x)
          : JSON.stringify(x);
    }
    return '';
  });
}

/**
 * One user object from the row's cells; empty cells are skipped. A bad value is rejected on its
 * own (line, column, reason) and the row keeps its good identifiers; with strictRows any bad
 * value rejects the whole row.
 */
function emitRow(cells: string[], line: number, cfg: ProcessorConfig, r: ChunkResult, out: { frags: string }): void {
  r.read++;
  const byType = new Map<IdType, string[]>();
  let bad = 0;
  for (let i = 0; i < cfg.columns.length; i++) {
    const c = cfg.columns[i]!;
    const raw = c.index !== undefined && cfg.format !== 'jsonl' ? cells[c.index] : cells[i];
    if (raw === undefined || raw.trim() === '') continue;
    r.values++;
    const p = mangled(raw) ? { reason: NOT_UTF8 } : prepare(c.type, raw, cfg.hashed, cfg.defaultCountry);
    if ('digest' in p) {
      if (!r.digestLine) {
        r.digestLine = line;
        r.digestColumn = c.name;
      }
      return;
    }
    if ('reason' in p) {
      r.rejects.push([line, c.name, p.reason]);
      if (cfg.strictRows) return;
      bad++;
      continue;
    }
    const list = byType.get(c.type) ?? [];
    list.push(c.type === 'partner_user_id' ? asciiJsonString(p.value) : `"${p.value}"`);
    byType.set(c.type, list);
  }
  if (byType.size === 0) {
    if (!bad) r.values++;
    if (!bad) r.rejects.push([line, cfg.columns.map((c) => c.name).join('|'), 'no identifier in this row']);
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

function rows(
  text: string,
  cfg: ProcessorConfig,
  r: ChunkResult,
  cellsOf: (line: string, cfg: ProcessorConfig) => string[] | string,
): void {
  const out = { frags: '' };
  r.lines = forEachLine(text, (raw, line) => {
    if (raw.trim() === '') return void r.blank++;
    const cells = cellsOf(raw, cfg);
    if (typeof cells === 'string') {
      r.read++;
      r.values++;
      r.rejects.push([line, '-', cells]);
      return;
    }
    // a line of delimiters only (",,") is blank, as the quoted reader counts it
    if (cfg.format !== 'jsonl' && cells.every((c) => c.trim() === '')) return void r.blank++;
    emitRow(cells, line, cfg, r, out);
  });
  r.frags = bytes(out.frags);
}

/** The row test of the worker's one config (made once). */
let rowLikeCache: { cfg: ProcessorConfig; test: ((line: string) => boolean) | undefined } | undefined;
function rowLikeOf(cfg: ProcessorConfig, delimiter: string): ((line: string) => boolean) | undefined {
  if (rowLikeCache?.cfg !== cfg) rowLikeCache = { cfg, test: rowLikeTest(cfg.columns, delimiter, cfg.width) };
  return rowLikeCache.test;
}

/**
 * Quoted csv/tsv, read by the shared reader (csv.ts). Line numbers are where each record
 * starts; a quote fault ends the chunk at the record it starts (the run stops there).
 */
function csvRows(text: string, cfg: ProcessorConfig, r: ChunkResult, delimiter: string): void {
  const out = { frags: '' };
  const rowLike = rowLikeOf(cfg, delimiter);
  const c = scanDelimited(
    text,
    delimiter,
    !!cfg.lenientQuotes,
    (cells, line) => emitRow(cells, line, cfg, r, out),
    rowLike,
  );
  r.frags = bytes(out.frags);
  r.lines = c.lines;
  r.blank += c.blank;
  r.joined += c.joined;
  r.fault = c.fault;
}
