// One renderer for every command: table on a TTY, tsv when piped, json / jsonl on request.
// Lists are streamed (json prints the array incrementally) except tables, which must size columns.
import type { IO } from './io.js';
import { UsageError } from './errors.js';
import { escapeForTerminal } from './sanitize.js';

export type Format = 'table' | 'json' | 'jsonl' | 'tsv';
export const FORMATS: readonly Format[] = ['table', 'json', 'jsonl', 'tsv'];

export type Rec = Record<string, unknown>;

export interface OutputSettings {
  format?: Format; // explicit -o / --json
  fields?: string[]; // --fields
}

export interface ShapeOptions {
  /** Default columns for table/tsv. */
  columns?: string[];
  /** Every field a record of this kind may have; `--fields` is checked against it. */
  knownFields?: string[];
}

export function parseFormat(value: string | undefined, json?: boolean): Format | undefined {
  if (json) return 'json';
  if (value === undefined) return undefined;
  if (!(FORMATS as string[]).includes(value)) {
    throw new UsageError(`--output must be one of ${FORMATS.join(', ')} (got "${value}")`, { flag: '--output' });
  }
  return value as Format;
}

export function parseFields(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const f = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (f.length === 0) throw new UsageError('--fields needs at least one field name', { flag: '--fields' });
  return f;
}

export function effectiveFormat(io: IO, settings: OutputSettings): Format {
  return settings.format ?? (io.isStdoutTTY ? 'table' : 'tsv');
}

function getPath(rec: Rec, path: string): unknown {
  if (path in rec) return rec[path];
  let cur: unknown = rec;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Rec)[part];
  }
  return cur;
}

function pick(rec: Rec, fields: string[]): Rec {
  const o: Rec = {};
  for (const f of fields) o[f] = getPath(rec, f) ?? null;
  return o;
}

/** Micros on the wire and in json; money in a table ("543.00 USD"), in the record's currency when it has one. */
function moneyCell(v: unknown, currency: unknown): string {
  if (typeof v !== 'number' || !Number.isInteger(v)) return cell(v);
  return cell(`${(v / 1e6).toFixed(2)}${typeof currency === 'string' && currency ? ` ${currency}` : ''}`);
}

function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * A table cell: service data with every control character and bidi override made visible. A
 * newline stays (the table wraps it inside the cell's box); a tab would break the alignment.
 */
function cell(v: unknown): string {
  return escapeForTerminal(text(v), { keepLayout: true }).replace(/\t/g, '\\t');
}

function tsvCell(v: unknown): string {
  return escapeForTerminal(text(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r'));
}

function checkFields(fields: string[], known: Iterable<string>): void {
  const k = new Set(known);
  if (k.size === 0) return;
  const bad = fields.filter((f) => !k.has(f) && !k.has(f.split('.')[0]!));
  if (bad.length) {
    throw new UsageError(`unknown field${bad.length > 1 ? 's' : ''} ${bad.join(', ')} for --fields; valid fields: ${[...k].sort().join(', ')}`, {
      flag: '--fields',
    });
  }
}

/** Streams records in the chosen format. Call write() per record, then end(). */
export class RecordWriter {
  private format: Format;
  private fields?: string[];
  private rows: Rec[] = [];
  private count = 0;
  private validated = false;

  constructor(private io: IO, private settings: OutputSettings, private shape: ShapeOptions = {}) {
    this.format = effectiveFormat(io, settings);
    if (settings.fields && shape.knownFields?.length) {
      checkFields(settings.fields, shape.knownFields);
      this.validated = true;
    }
  }

  private columnsFor(rec: Rec): string[] {
    if (this.settings.fields) return this.settings.fields;
    if (!this.fields) this.fields = this.shape.columns?.length ? this.shape.columns : Object.keys(rec);
    return this.fields;
  }

  write(rec: Rec): void {
    if (this.settings.fields && !this.validated) {
      checkFields(this.settings.fields, Object.keys(rec));
      this.validated = true;
    }
    const out = this.settings.fields ? pick(rec, this.settings.fields) : rec;
    switch (this.format) {
      case 'json':
        this.io.raw((this.count === 0 ? '[\n' : ',\n') + indent(JSON.stringify(out, null, 2)));
        break;
      case 'jsonl':
        this.io.raw(JSON.stringify(out) + '\n');
        break;
      case 'tsv':
        this.io.raw(this.columnsFor(rec).map((c) => tsvCell(getPath(rec, c))).join('\t') + '\n');
        break;
      case 'table':
        this.rows.push(rec);
        break;
    }
    this.count++;
  }

  async end(): Promise<number> {
    if (this.format === 'json') this.io.raw(this.count === 0 ? '[]\n' : '\n]\n');
    if (this.format === 'table') {
      if (this.rows.length === 0) {
        this.io.info('(no records)');
      } else {
        const cols = this.columnsFor(this.rows[0]!);
        await printTable(this.io, cols, this.rows.map((r) => cols.map((c) => (/_local_micro$/.test(c) ? moneyCell(getPath(r, c), r.currency) : cell(getPath(r, c))))));
      }
    }
    return this.count;
  }
}

function indent(s: string): string {
  return s.replace(/^/gm, '  ');
}

async function printTable(io: IO, head: string[], rows: string[][]): Promise<void> {
  const { default: Table } = await import('cli-table3');
  const width = Math.max(40, io.stdout.columns ?? 120);
  // Natural widths, then shrink the widest columns until the table fits the terminal; long
  // cells wrap on word boundaries instead of being cut.
  const widths = head.map((h, i) => Math.max(escapeForTerminal(h).length, ...rows.map((r) => longestLine(r[i]!))) + 2);
  const budget = width - (head.length + 1);
  while (widths.reduce((a, b) => a + b, 0) > budget) {
    const max = Math.max(...widths);
    if (max <= 8) break;
    widths[widths.indexOf(max)] = max - 1;
  }
  const t = new Table({
    head: head.map((h) => io.style('bold', escapeForTerminal(h))),
    style: { head: [], border: [] },
    colWidths: widths,
    wordWrap: true,
    wrapOnWordBoundary: true,
  });
  // cli-table3 cuts a word longer than its column ("19000000…"): an id or a URL must stay whole,
  // so such words are broken across lines instead.
  for (const r of rows) t.push(r.map((c, i) => breakLongWords(c, widths[i]! - 2)));
  io.out(t.toString());
}

function breakLongWords(s: string, width: number): string {
  if (width < 1 || longestLine(s) <= width) return s;
  const lines = s.split('\n').map((line) =>
    line
      .split(' ')
      .map((w) => {
        const chars = Array.from(w);
        if (chars.length <= width) return w;
        const parts: string[] = [];
        for (let i = 0; i < chars.length; i += width) parts.push(chars.slice(i, i + width).join(''));
        return parts.join('\n');
      })
      .join(' '),
  );
  return lines.join('\n');
}

function longestLine(s: string): number {
  let m = 0;
  for (const line of s.split('\n')) m = Math.max(m, line.length);
  return m;
}

/** Prints one entity: json as the object, jsonl as one line, tsv as one row, table as key/value. */
export async function printOne(io: IO, settings: OutputSettings, rec: Rec, shape: ShapeOptions = {}): Promise<void> {
  const format = effectiveFormat(io, settings);
  if (settings.fields) checkFields(settings.fields, shape.knownFields?.length ? shape.knownFields : Object.keys(rec));
  const out = settings.fields ? pick(rec, settings.fields) : rec;
  if (format === 'json') return void io.out(JSON.stringify(out, null, 2));
  if (format === 'jsonl') return void io.out(JSON.stringify(out));
  if (format === 'tsv') {
    const cols = settings.fields ?? shape.columns ?? Object.keys(rec);
    return void io.out(cols.map((c) => tsvCell(getPath(rec, c))).join('\t'));
  }
  const { default: Table } = await import('cli-table3');
  const t = new Table({ style: { head: [], border: [] } });
  for (const [k, v] of Object.entries(out)) t.push({ [io.style('bold', escapeForTerminal(k))]: cell(v) });
  io.out(t.toString());
}

/** Writes a list (array or async iterable) through a RecordWriter and returns the count. */
export async function printList(
  io: IO,
  settings: OutputSettings,
  records: Iterable<Rec> | AsyncIterable<Rec>,
  shape: ShapeOptions = {},
): Promise<number> {
  const w = new RecordWriter(io, settings, shape);
  for await (const r of records as AsyncIterable<Rec>) w.write(r);
  return w.end();
}
