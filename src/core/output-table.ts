// Tables for a terminal, sized to its width (loaded only for table output: cli-table3 and this
// layout cost start-up time that json and tsv do not need).
//
// Lists: one line per record, no rule between rows. Ids (id, *_id, *_ids, *_key, media_key,
// profile, and the columns a command names `whole`) are never cut, since they are what users
// copy into the next command; the record's own id (the first column) is never dropped either.
// What a person reads a row by (names, statuses, money, types, URLs) keeps its width while
// anything else can go; free-text columns shrink first (cut with …), then the rightmost are
// dropped (timestamps first, then other records' ids, then the rest, names last), and stderr
// says which were hidden. A single record is a key/value view whose values wrap within the width.
// cli-table3 draws the box from widths computed here (colWidths, compact style); its own
// wrapping and cutting are not used for lists, so an id can never be cut by it.
import Table from 'cli-table3';
import type { IO } from './io.js';
import { escapeForTerminal } from './sanitize.js';
import { cellValue, headerName, isMoneyColumn, type Rec } from './records.js';
import { stringifyJson } from './json.js';

/** Columns whose values are copied whole into other commands. */
export function isIdColumn(name: string): boolean {
  const last = name.split('.').pop()!;
  return /^(id|ids|key|profile|media_key|screen_name|cursor|next_cursor)$/.test(last) || /_(id|ids|key)$/.test(last);
}

/** name, business_name...: what people read a row by; shortened only after the rest is dropped. */
export function isNameColumn(name: string): boolean {
  return /(^|_)name$/.test(name.split('.').pop()!);
}

/** created_at, start_time, end_date...: the first columns a narrow table gives up. */
export function isTimeColumn(name: string): boolean {
  return /(^|_)(at|time|date)$/.test(name.split('.').pop()!);
}

/**
 * What a person reads a row by besides its name (issue 46): a status, money, a type (event
 * types too), a URL. Kept at their width while other columns can be dropped instead.
 */
export function readRank(name: string): 0 | 1 | 2 {
  const last = name.split('.').pop()!;
  if (isMoneyColumn(last) || /(^|_)(status|state|valid|url|selected)$/.test(last)) return 1;
  return /(^|_)(type|types|objective|currency)$/.test(last) ? 2 : 0;
}

/** Terminal width of stdout, else COLUMNS, else 80. */
export function terminalWidth(io: IO): number {
  const c = io.stdout.columns;
  return typeof c === 'number' && c > 0 ? c : (io.envColumns ?? 80);
}

function moneyText(v: unknown, currency: unknown): string {
  if (typeof v !== 'number' || !Number.isInteger(v)) return readable(v);
  return `${(v / 1e6).toFixed(2)}${typeof currency === 'string' && currency ? ` ${currency}` : ''}`;
}

function scalar(v: unknown): string {
  if (typeof v === 'string') return v === '' || /[\s"=,;]/.test(v) ? JSON.stringify(v) : v;
  if (v === null || typeof v !== 'object') return String(v);
  return stringifyJson(v);
}

/**
 * A value for reading: objects as `k=v k=v`, arrays as `a, b`, nested values as short JSON.
 * (json, jsonl, tsv and csv keep the exact JSON.)
 */
export function readable(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== 'object'))
      return v.map((x) => (typeof x === 'string' ? x : String(x))).join(', ');
    return v.map(readable).join('; ');
  }
  if (typeof v === 'object') {
    return Object.entries(v as Rec)
      .map(([k, x]) => `${k}=${scalar(x)}`)
      .join(' ');
  }
  return String(v);
}

function cellText(col: string, rec: Rec): string {
  const v = cellValue(rec, col);
  return safe(isMoneyColumn(col) ? moneyText(v, rec.currency) : readable(v));
}

/** Service data with every control character and bidi override made visible; a tab would break the alignment. */
function safe(s: string): string {
  return escapeForTerminal(s, { keepLayout: true }).replace(/\t/g, '\\t');
}

function wide(c: number): boolean {
  return (
    (c >= 0x1100 && c <= 0x115f) ||
    (c >= 0x2e80 && c <= 0xa4cf && c !== 0x303f) ||
    (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xfe30 && c <= 0xfe4f) ||
    (c >= 0xff00 && c <= 0xff60) ||
    (c >= 0xffe0 && c <= 0xffe6) ||
    (c >= 0x1f300 && c <= 0x1f64f) ||
    (c >= 0x1f900 && c <= 0x1faff) ||
    (c >= 0x20000 && c <= 0x3fffd)
  );
}

/** Columns a string takes on a terminal (wide East Asian characters and emoji count two). */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (
      c < 0x20 ||
      (c >= 0x7f && c < 0xa0) ||
      (c >= 0x300 && c <= 0x36f) ||
      c === 0x200d ||
      (c >= 0xfe00 && c <= 0xfe0f)
    )
      continue;
    w += wide(c) ? 2 : 1;
  }
  return w;
}

/** Cut to `width` columns, ending in … when cut. */
export function truncate(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = displayWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return out + '…';
}

/** Per column: the box's "│ " and " ", plus the closing "│" once. */
const PER_COLUMN = 3;
/** A free-text column is not shrunk below this (or its natural width when smaller). */
const MIN_TEXT = 8;
/** Free text is first shrunk down to this, before headers are cut. */
const ROOMY_TEXT = 20;
/** A name is cut below this (or its natural width when smaller) only once nothing else can go. */
const NAME_ROOM = 24;
/** Statuses, money, types and URLs: kept up to this while something else can go. */
const READ_ROOM = 48;
/** A header wider than its values may be cut down to this. */
const _MIN_HEAD = 6;
/** Values without spaces up to this width (times, numbers, enums) are kept whole or dropped, never cut. */
const WORD = 24;

export interface Column {
  name: string;
  head: string;
  cells: string[];
  /** Never cut, never dropped. */
  id: boolean;
  /** Another record's id (funding_instrument_id, webhook_id): never cut, dropped after timestamps. */
  foreign?: boolean;
  /** A name: kept whole while other columns can be dropped instead, then cut, then dropped. */
  named?: boolean;
  /**
   * What a row is read by besides its name: 1 a status, money, a URL; 2 a type. Kept whole (up
   * to READ_ROOM) while other columns can go; types go before statuses and money.
   */
  read?: 0 | 1 | 2;
  natural: number;
  /** The width down to which only the header is cut. */
  headFloor: number;
  /** The narrowest it may get (its values cut with …). */
  min: number;
}

/** Takes `over` columns from the widest columns above their minimum, one at a time (ties share). */
function shrink(widths: number[], mins: number[], over: number): number {
  while (over > 0) {
    let best = -1;
    for (let i = 0; i < widths.length; i++)
      if (widths[i]! > mins[i]! && (best < 0 || widths[i]! > widths[best]!)) best = i;
    if (best < 0) break;
    widths[best] = widths[best]! - 1;
    over--;
  }
  return over;
}

/**
 * Which columns to show and how wide: all at their natural width when they fit; else free-text
 * columns shrink (widest first) to a roomy width; else headers wider than their values are cut;
 * else free text shrinks to its minimum; else the
 * rightmost column that is not an id is dropped and the layout starts again. Ids keep their
 * width even when that overflows the terminal. Names keep theirs, up to NAME_ROOM, as long as
 * another column (not an id, not a name) can be dropped instead (issue 29: three accounts read
 * "Sandbox …").
 */
export function layout(columns: Column[], width: number): { shown: Column[]; widths: number[]; hidden: string[] } {
  let shown = columns.slice();
  const hidden: string[] = [];
  for (;;) {
    const widths = shown.map((c) => c.natural);
    let over = widths.reduce((a, b) => a + b, 0) + PER_COLUMN * shown.length + 1 - width;
    // A name, a status, money, a type keeps its room while a column that goes before it is shown.
    const room = (c: Column) => (c.named ? NAME_ROOM : c.read ? READ_ROOM : 0);
    const kept = (c: Column) => shown.some((d) => !d.id && rankOf(d) < rankOf(c));
    const floor = (c: Column, w: number) => (room(c) && kept(c) ? Math.max(w, Math.min(c.natural, room(c))) : w);
    over = shrink(
      widths,
      shown.map((c) => floor(c, c.min < c.headFloor ? Math.max(c.min, Math.min(c.natural, ROOMY_TEXT)) : c.natural)),
      over,
    );
    over = shrink(
      widths,
      shown.map((c, i) => floor(c, Math.min(widths[i]!, c.headFloor))),
      over,
    );
    over = shrink(
      widths,
      shown.map((c) => floor(c, c.min)),
      over,
    );
    if (over <= 0) return { shown, widths, hidden };
    const drop = columnToDrop(shown);
    if (drop < 0) return { shown, widths, hidden };
    hidden.unshift(shown[drop]!.name);
    shown = shown.filter((_, i) => i !== drop);
  }
}

/**
 * The order columns go in, first to last: timestamps, other records' ids, the rest (metrics...),
 * types, statuses/money/URLs, names; the record's own id (and what a command keeps whole) never.
 */
function rankOf(c: Column): number {
  if (isTimeColumn(c.name)) return 0;
  if (c.foreign) return 1;
  if (c.named) return 5;
  return c.read === 1 ? 4 : c.read === 2 ? 3 : 2;
}

/** The rightmost column of the lowest rank; -1 when only ids are left. */
function columnToDrop(shown: Column[]): number {
  let best = -1;
  for (let i = 0; i < shown.length; i++)
    if (!shown[i]!.id && (best < 0 || rankOf(shown[i]!) <= rankOf(shown[best]!))) best = i;
  return best;
}

/**
 * Headers cut to their widths; two that would read the same once cut (audience_size,
 * audience_type -> "audie…") are abbreviated word by word from the left instead (audi_size, a_type).
 */
export function headers(heads: string[], widths: number[]): string[] {
  const cut = heads.map((h, i) => truncate(h, widths[i]!));
  return cut.map((c, i) => {
    if (c === heads[i] || cut.filter((x) => x === c).length < 2) return c;
    const words = heads[i]!.split('_');
    for (let k = 1; k < words.length; k++) {
      // The leading k words as long as they can be (audi_size), down to one letter (a_size).
      for (let n = Math.max(...words.slice(0, k).map((w) => w.length)) - 1; n >= 1; n--) {
        const short = [...words.slice(0, k).map((w) => w.slice(0, n)), ...words.slice(k)].join('_');
        if (displayWidth(short) <= widths[i]!) return short;
      }
    }
    return c;
  });
}

/**
 * A list of records as a table that fits the terminal (see the top of this file). `whole`:
 * columns kept whole as ids are (a cell that carries an id among other words).
 */
export function printTable(io: IO, names: string[], recs: Rec[], o: { whole?: string[] } = {}): void {
  const columns: Column[] = names.map((name, i) => {
    const whole = isIdColumn(name) || !!o.whole?.includes(name);
    // The first column, when an id, is the record's own: never dropped. Other records' ids may go.
    const id = whole && (i === 0 || !/(^|_)(id|ids)$|^media_key$/.test(name.split('.').pop()!));
    const foreign = whole && !id;
    // One line per record: a newline in a value shows as ⏎.
    const cells = recs.map((r) => cellText(name, r).replace(/\r?\n/g, '⏎'));
    const head = safe(headerName(name));
    const longest = Math.max(0, ...cells.map(displayWidth));
    const natural = Math.max(longest, displayWidth(head));
    // Headers stay whole: what a table shows, --fields accepts (no "a_size" for audience_size).
    const headFloor = Math.max(longest, displayWidth(head));
    const text = !whole && cells.some((c) => c.includes(' ') || displayWidth(c) > WORD);
    const min = text ? Math.min(headFloor, MIN_TEXT) : headFloor;
    return { name, head, cells, id, foreign, named: isNameColumn(name), read: readRank(name), natural, headFloor, min };
  });
  const { shown, widths, hidden } = layout(columns, terminalWidth(io));
  const t = new Table({
    head: headers(
      shown.map((c) => c.head),
      widths,
    ).map((h) => io.style('bold', h)),
    style: { head: [], border: [], compact: true },
    colWidths: widths.map((w) => w + 2),
    wordWrap: false,
  });
  for (let r = 0; r < recs.length; r++) t.push(shown.map((c, i) => truncate(c.cells[r]!, widths[i]!)));
  io.out(t.toString());
  if (hidden.length)
    io.info(
      `(${hidden.length} column${hidden.length > 1 ? 's' : ''} hidden: ${hidden.map(headerName).join(', ')}; use -o json or --fields)`,
    );
}

/** One record as key/value rows within the terminal width; long values wrap. */
export function printRecord(io: IO, rec: Rec): void {
  const width = terminalWidth(io);
  const keys = Object.keys(rec);
  const heads = keys.map((k) => safe(headerName(k)));
  const keyWidth = Math.min(Math.max(1, ...heads.map(displayWidth)), Math.floor(width / 2));
  const values = keys.map((k) => cellText(k, rec));
  const longest = Math.max(1, ...values.flatMap((v) => v.split(/\r?\n/).map(displayWidth)));
  const valueWidth = Math.min(longest, Math.max(10, width - keyWidth - 2 * PER_COLUMN - 1));
  const t = new Table({ style: { head: [], border: [], compact: true }, colWidths: [keyWidth + 2, valueWidth + 2] });
  keys.forEach((k, i) => t.push([io.style('bold', truncate(heads[i]!, keyWidth)), wrap(values[i]!, valueWidth)]));
  io.out(t.toString());
}

/** Wraps on spaces within `width`; a word longer than the width (an id, a URL) is broken, never cut. */
export function wrap(s: string, width: number): string {
  const out: string[] = [];
  for (const para of s.split(/\r?\n/)) {
    let line = '';
    for (const word of para.split(' ')) {
      const parts: string[] = [];
      let part = '';
      for (const ch of word) {
        if (displayWidth(part + ch) > width) {
          parts.push(part);
          part = '';
        }
        part += ch;
      }
      parts.push(part);
      for (const [j, p] of parts.entries()) {
        if (line === '') line = p;
        else if (j === 0 && displayWidth(line) + 1 + displayWidth(p) <= width) line += ' ' + p;
        else {
          out.push(line);
          line = p;
        }
      }
    }
    out.push(line);
  }
  return out.join('\n');
}
