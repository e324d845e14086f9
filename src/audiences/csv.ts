// The csv/tsv reader: RFC 4180 records (quoted fields, doubled quotes, delimiters and newlines
// inside quotes; a quote inside an unquoted field is text, as Python's csv module reads it),
// plain functions shared by the hash workers, `audiences inspect` and callers outside the
// upload. It never swallows rows: a quote that is never closed, or a quoted field that runs over
// more than MAX_FIELD_LINES lines, is a fault naming the line where the field starts (unless
// `lenient`, the old reading: the field runs on, and the lines it takes are counted as joined).
// Loaded by the hash workers: keep it free of imports.

/** Line breaks a quoted field may hold before it is taken for a quote that was never closed. */
export const MAX_FIELD_LINES = 100;

/** Where a quoted field goes wrong: `line` is where the field starts (1-based in the text). */
export interface QuoteFault {
  line: number;
  /**
   * unclosed: the input ends inside it; too-long: it holds more than MAX_FIELD_LINES breaks;
   * unbalanced: it runs over lines and text follows its closing quote (the quote that closed it
   * opened a later field: a stray quote turned the file's quoting inside out); row-inside: a
   * line inside it reads as a row of its own (`rowLine`).
   */
  kind: 'unclosed' | 'too-long' | 'unbalanced' | 'row-inside';
  rowLine?: number;
  /** Lines the field runs over (to the end of the text when unclosed). */
  lines: number;
}

export interface ScanCounts {
  /** Physical lines read (a final line without a newline counts). */
  lines: number;
  /** Records whose cells are all empty or white space. */
  blank: number;
  /** Lines that continue a record (newlines inside quoted fields). */
  joined: number;
  /** Strict reading only: the first bad quoted field; scanning stopped at its record. */
  fault?: QuoteFault;
}

/**
 * Reads every record of `text` (whole records; no BOM), calling `onRecord` with the cells and
 * the line the record starts on for each record that is not blank. Stops at the first quote
 * fault unless `lenient`. Line ends are \n or \r\n (a \r before \n is dropped from the cell).
 */
export function scanDelimited(
  text: string,
  delimiter: string,
  lenient: boolean,
  onRecord: (cells: string[], line: number) => void,
  /** Strict reading: whether a line inside a quoted field reads as a row of its own. */
  rowLike?: (line: string) => boolean,
): ScanCounts {
  const c: ScanCounts = { lines: countLines(text), blank: 0, joined: 0 };
  const d = delimiter.charCodeAt(0);
  const len = text.length;
  let pos = 0;
  let line = 1;
  while (pos < len) {
    const startLine = line;
    const cells: string[] = [];
    let blank = true;
    let joined = 0;
    for (;;) {
      let cell: string;
      if (text.charCodeAt(pos) === 34) {
        const fieldLine = line;
        const f = quotedField(text, pos + 1);
        const breaks = countBreaks(f.value);
        line += breaks;
        // a field that runs to the end takes the last line's end with it: not a joined line
        joined += f.unclosed && f.value.endsWith('\n') ? breaks - 1 : breaks;
        if (!lenient && (f.unclosed || breaks > MAX_FIELD_LINES || (breaks > 0 && !fieldEnds(text, f.end, d)))) {
          c.fault = {
            line: fieldLine,
            kind: f.unclosed ? 'unclosed' : breaks > MAX_FIELD_LINES ? 'too-long' : 'unbalanced',
            lines: breaks + 1,
          };
          return c;
        }
        const inside = !lenient && breaks > 0 && rowLike ? rowInside(f.value, rowLike) : 0;
        if (inside) {
          c.fault = { line: fieldLine, kind: 'row-inside', lines: breaks + 1, rowLine: fieldLine + inside };
          return c;
        }
        // relaxed: anything between the closing quote and the delimiter is kept
        let j = f.end;
        while (j < len && text.charCodeAt(j) !== d && text.charCodeAt(j) !== 10) j++;
        cell = f.value + text.slice(f.end, j).replace(/\r$/, '');
        pos = j;
      } else {
        let j = pos;
        while (j < len && text.charCodeAt(j) !== d && text.charCodeAt(j) !== 10) j++;
        cell = text.slice(pos, j);
        if (j < len && text.charCodeAt(j) === 10 && cell.endsWith('\r')) cell = cell.slice(0, -1);
        pos = j;
      }
      cells.push(cell);
      if (blank && cell.trim() !== '') blank = false;
      if (pos >= len) break;
      if (text.charCodeAt(pos) === 10) {
        pos++;
        line++;
        break;
      }
      pos++; // delimiter
    }
    c.joined += joined;
    if (blank) c.blank++;
    else onRecord(cells, startLine);
  }
  return c;
}

/** A quoted field's value from just after its opening quote; `end` is just after its closing quote. */
function quotedField(text: string, from: number): { value: string; end: number; unclosed: boolean } {
  let v = '';
  let i = from;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return { value: v + text.slice(i), end: text.length, unclosed: true };
    v += text.slice(i, q);
    if (text.charCodeAt(q + 1) !== 34) return { value: v, end: q + 1, unclosed: false };
    v += '"';
    i = q + 2;
  }
}

/** The first line (counted from the field's first, 0) inside a field that reads as a row, or 0. */
export function rowInside(value: string, rowLike: (line: string) => boolean): number {
  const lines = value.split('\n');
  for (let i = 1; i < lines.length; i++) if (rowLike(lines[i]!.replace(/\r$/, ''))) return i;
  return 0;
}

/** A closing quote at `i` is followed by the delimiter, a line end or the end of the text. */
function fieldEnds(text: string, i: number, d: number): boolean {
  const ch = text.charCodeAt(i);
  return i >= text.length || ch === d || ch === 10 || ch === 13;
}

function countBreaks(s: string): number {
  let n = 0;
  for (let k = s.indexOf('\n'); k >= 0; k = s.indexOf('\n', k + 1)) n++;
  return n;
}

export function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.length > 0 && !text.endsWith('\n') ? n + 1 : n;
}

export interface ParsedRecord {
  /** 1-based line the record starts on. */
  line: number;
  cells: string[];
}

/**
 * The whole text as records (a leading BOM dropped), with the counts: the reader as one call,
 * for callers that hold the file in memory (inspect, apply, tests).
 */
export function parseDelimited(
  text: string,
  delimiter = ',',
  lenient = false,
): { records: ParsedRecord[] } & ScanCounts {
  const records: ParsedRecord[] = [];
  const counts = scanDelimited(text.replace(/^\uFEFF/, ''), delimiter, lenient, (cells, line) =>
    records.push({ line, cells }),
  );
  return { records, ...counts };
}

/** The message of a quote fault, with `base` lines before the text (the header, earlier chunks). */
export function quoteFaultMessage(f: QuoteFault, base = 0): string {
  const at = `line ${f.line + base}`;
  if (f.kind === 'unclosed')
    return `${at}: a quoted field starts here and its quote is never closed (it runs to the end of the input, ${f.lines} lines)`;
  if (f.kind === 'too-long')
    return `${at}: a quoted field starts here and runs over ${f.lines} lines (more than ${MAX_FIELD_LINES + 1}): its quote is probably never closed`;
  if (f.kind === 'row-inside')
    return `${at}: a quoted field starts here and takes in line ${f.rowLine! + base}, which reads as a row of its own: its quote is probably never closed`;
  return `${at}: a quoted field starts here, runs over ${f.lines} lines and is closed by a quote with text right after it: its own quote is probably never closed`;
}

export const QUOTE_FAULT_HINT =
  'close the quote (or double a quote inside a quoted field: ""), or pass --lenient-quotes to read the field as it runs on (the lines it takes are counted and reported)';

/**
 * End (inclusive) of the last complete record in `buf`: the last newline outside a quoted field.
 * A quote opens a field only at a field's start (after a newline or the delimiter), as the
 * reader sees it; a stray quote inside an unquoted field is text and changes nothing.
 */
export function lastRecordEnd(buf: Uint8Array, quoteAware: boolean, delimiter = 44): number {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (!quoteAware || b.indexOf(34) < 0) return b.lastIndexOf(10);
  const start = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  // The spans outside quoted fields, as [from, to) pairs; the answer is in the last one holding
  // a newline (looked for from the end: one search, where a search per span cost a search per field).
  const spans: number[] = [];
  let from = start;
  let i = start;
  for (;;) {
    const q = b.indexOf(34, i);
    if (q < 0) {
      spans.push(from, b.length);
      break;
    }
    const opens = q === start || b[q - 1] === 10 || b[q - 1] === delimiter;
    if (!opens) {
      i = q + 1;
      continue;
    }
    spans.push(from, q);
    let close = -1;
    for (let j = q + 1; ; ) {
      const c = b.indexOf(34, j);
      // open past the buffer (or a last quote that may be half of a doubled one)
      if (c < 0 || c === b.length - 1) break;
      if (b[c + 1] === 34) {
        j = c + 2;
        continue;
      }
      close = c;
      break;
    }
    if (close < 0) break;
    from = i = close + 1;
  }
  for (let k = spans.length - 2; k >= 0; k -= 2) {
    if (spans[k + 1]! <= spans[k]!) continue;
    const nl = b.lastIndexOf(10, spans[k + 1]! - 1);
    if (nl >= spans[k]!) return nl;
  }
  return -1;
}

/**
 * The first quote fault of `buf` (whole records), found on the bytes without building records:
 * the pre-send read of a whole file. The same rules and lines as scanDelimited's strict read.
 */
export function findQuoteFault(
  buf: Uint8Array,
  delimiter: number,
  rowLike?: (line: string) => boolean,
): QuoteFault | undefined {
  const r = scanQuotes(buf, delimiter, rowLike, { first: true, opens: true, final: true });
  return typeof r === 'number' ? undefined : r;
}

/**
 * findQuoteFault on a piece of a file read as it comes (not whole records): a fault, or where
 * to go on from (the first quote whose field may run past the piece; the piece's length when
 * none does). `first`: the piece starts the file; `opens`: a quote at its start opens a field
 * (the file's start, a field's start: the previous piece's answer, or a piece after a newline
 * or a delimiter); `final`: it ends the file. Lines are counted from the piece's start.
 */
export function scanQuotes(
  buf: Uint8Array,
  delimiter: number,
  rowLike: ((line: string) => boolean) | undefined,
  at: { first: boolean; opens: boolean; final: boolean },
  /** Set when a quoted field holds a line break (else every newline ends a record). */
  seen?: { multiLine: boolean },
): QuoteFault | number {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const start = at.first && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  const final = at.final;
  const newlines = (from: number, to: number) => {
    let n = 0;
    for (let i = b.indexOf(10, from); i >= 0 && i < to; i = b.indexOf(10, i + 1)) n++;
    return n;
  };
  // Lines are counted only to name a fault: a clean read searches quotes, and a newline per field.
  const lineAt = (i: number) => 1 + newlines(start, i);
  // The first newline at or after a position already passed (b.length when none).
  let nl = -1;
  let pos = start;
  for (;;) {
    const q = b.indexOf(34, pos);
    if (q < 0) return b.length;
    if (!(q === start ? at.opens : b[q - 1] === 10 || b[q - 1] === delimiter)) {
      pos = q + 1; // a quote inside an unquoted field is text
      continue;
    }
    let close = -1;
    for (let j = q + 1; ; ) {
      const c = b.indexOf(34, j);
      if (c < 0) break;
      if (b[c + 1] === 34) {
        j = c + 2;
        continue;
      }
      close = c;
      break;
    }
    // Not final: the field may close (or its closing quote be half of a doubled one, or be
    // followed by text) in what comes next.
    if (!final && (close < 0 || close + 1 >= b.length)) return q;
    if (close < 0) return { line: lineAt(q), kind: 'unclosed', lines: newlines(q, b.length) + 1 };
    if (nl < q) {
      nl = b.indexOf(10, q);
      if (nl < 0) nl = b.length;
    }
    pos = close + 1;
    if (nl > close) continue; // on one line: nothing to check
    if (seen) seen.multiLine = true;
    const breaks = newlines(q, close);
    if (breaks > MAX_FIELD_LINES) return { line: lineAt(q), kind: 'too-long', lines: breaks + 1 };
    const after = b[close + 1];
    if (!(after === undefined || after === delimiter || after === 10 || after === 13))
      return { line: lineAt(q), kind: 'unbalanced', lines: breaks + 1 };
    const inside = rowLike ? rowInside(b.toString('utf8', q + 1, close).replace(/""/g, '"'), rowLike) : 0;
    if (inside) {
      const line = lineAt(q);
      return { line, kind: 'row-inside', lines: breaks + 1, rowLine: line + inside };
    }
  }
}
