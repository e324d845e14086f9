// One renderer for every command: table on a TTY, tsv when piped; json, jsonl and csv on request;
// --jq over the JSON. Lists are streamed (json prints the array incrementally) except tables,
// which must size columns, and --jq, which needs the whole document. The table renderer
// (output-table.ts, cli-table3) and jq (jq.ts, WebAssembly) load only when used.
import type { IO } from './io.js';
import { UsageError } from './errors.js';
import { escapeForTerminal } from './sanitize.js';
import type { PageState } from './paginate.js';
import { cellValue, fieldOfHeader, getPath, headerName, type Rec } from './records.js';
import { closest } from './suggest.js';
import { stringifyJson } from './json.js';
import { isOneOf } from '../contract/guards.js';

export { cellValue, getPath, type Rec };

export type Format = 'table' | 'json' | 'jsonl' | 'tsv' | 'csv';
export const FORMATS: readonly Format[] = ['table', 'json', 'jsonl', 'tsv', 'csv'];

export interface OutputSettings {
  format?: Format; // explicit -o / --json
  fields?: string[]; // --fields, or --json a,b
  /** --header: a first row with the column names (tsv, csv). */
  header?: boolean;
  /** --jq: a jq program run over the JSON output (all pages of a list with --all). */
  jq?: string;
  /** --include-cursor: json as {"data": [...], "next_cursor": ...}; jsonl ends with a {"next_cursor": ...} line. */
  includeCursor?: boolean;
}

export interface ShapeOptions {
  /** Default columns for table/tsv/csv. */
  columns?: string[];
  /** Every field a record of this kind may have; `--fields` is checked against it. */
  knownFields?: string[];
  /** A paginated list: where it stopped, filled in while the records are read. */
  pages?: PageState;
  /** Table columns kept whole, as ids are (their cells carry an id among other words). */
  whole?: string[];
}

export function parseFormat(value: string | undefined, json?: boolean): Format | undefined {
  if (json) return 'json';
  if (value === undefined) return undefined;
  if (!isOneOf(FORMATS, value)) {
    throw new UsageError(`--output must be one of ${FORMATS.join(', ')} (got "${value}")`, { flag: '--output' });
  }
  return value;
}

export function parseFields(value: string | undefined, flag = '--fields'): string[] | undefined {
  if (value === undefined) return undefined;
  const f = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (f.length === 0) throw new UsageError(`${flag} needs at least one field name`, { flag });
  return f;
}

export function effectiveFormat(io: IO, settings: OutputSettings): Format {
  if (settings.jq !== undefined) return 'json';
  return settings.format ?? (io.isStdoutTTY ? 'table' : 'tsv');
}

function pick(rec: Rec, fields: string[]): Rec {
  const o: Rec = {};
  for (const f of fields) o[f] = getPath(rec, f) ?? null;
  return o;
}

export function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return stringifyJson(v);
  return String(v);
}

function tsvCell(v: unknown): string {
  return escapeForTerminal(
    text(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r'),
  );
}

/**
 * RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled. Cells starting with
 * = + - @ are not prefixed (the project has no spreadsheet-injection policy; csv is data, and a
 * prefix would change negative numbers). Control characters other than CR/LF are escaped like
 * every other output.
 */
function csvCell(v: unknown): string {
  const s = escapeForTerminal(text(v), { keepLayout: true }).replace(/\t/g, '\\t');
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function rowLine(format: 'tsv' | 'csv', cells: unknown[]): string {
  return format === 'csv' ? cells.map(csvCell).join(',') + '\r\n' : cells.map(tsvCell).join('\t') + '\n';
}

/**
 * The --fields names as fields: a table header is taken for the field it shows (daily_budget for
 * daily_budget_amount_local_micro: what a table shows, --fields accepts); an unknown name is an
 * error listing the valid ones, with the closest as a did-you-mean.
 */
function checkFields(fields: string[], known: Iterable<string>): string[] {
  const k = new Set(known);
  if (k.size === 0) return fields;
  const ok = (f: string) => k.has(f) || k.has(f.split('.')[0]!);
  const out = fields.map((f) => (ok(f) ? f : fieldOfHeader(f, k)));
  const bad = out.filter((f) => !ok(f));
  if (bad.length) {
    const names = new Set([...k, ...[...k].map(headerName)]);
    const near = closest(bad[0]!, names, 1)[0];
    throw new UsageError(
      `unknown field${bad.length > 1 ? 's' : ''} ${bad.join(', ')} for --fields; valid fields: ${[...k].sort().join(', ')}`,
      { flag: '--fields', hint: near ? `did you mean ${near}?` : undefined },
    );
  }
  return out;
}

/** A value for a shell command line: as is when plain, else single-quoted. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_\-.=:/+@%,]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Streams records in the chosen format. Call write() per record, then end(). */
export class RecordWriter {
  private format: Format;
  private fields?: string[];
  private rows: Rec[] = [];
  private count = 0;
  private validated = false;
  /** --fields as fields (checkFields), once checked. */
  private picked?: string[];

  constructor(
    private io: IO,
    private settings: OutputSettings,
    private shape: ShapeOptions = {},
  ) {
    this.format = effectiveFormat(io, settings);
    if (settings.fields && shape.knownFields?.length) {
      this.picked = checkFields(settings.fields, shape.knownFields);
      this.validated = true;
    }
  }

  private columnsFor(rec: Rec | undefined): string[] {
    if (this.settings.fields) return this.picked ?? this.settings.fields;
    if (!this.fields && (rec || this.shape.columns?.length))
      this.fields = this.shape.columns?.length ? this.shape.columns : Object.keys(rec!);
    return this.fields ?? [];
  }

  /** json with --include-cursor is an object, its records one level deeper. */
  private get wrapped(): boolean {
    return !!this.settings.includeCursor && this.settings.jq === undefined;
  }

  /**
   * A record as JSON; on a terminal its C1 and bidi characters (which JSON leaves as they are)
   * escaped as `\uXXXX`, which parses to the same value.
   */
  private json(rec: unknown, space?: number): string {
    const s = stringifyJson(rec, space);
    return this.io.isStdoutTTY ? escapeForTerminal(s, { keepLayout: true }) : s;
  }

  write(rec: Rec): void {
    if (this.settings.fields && !this.validated) {
      this.picked = checkFields(this.settings.fields, Object.keys(rec));
      this.validated = true;
    }
    const out = this.picked ? pick(rec, this.picked) : rec;
    switch (this.format) {
      case 'json':
        if (this.settings.jq !== undefined) this.rows.push(out);
        else if (this.wrapped)
          this.io.raw((this.count === 0 ? '{\n  "data": [\n' : ',\n') + indent(this.json(out, 2), '    '));
        else this.io.raw((this.count === 0 ? '[\n' : ',\n') + indent(this.json(out, 2), '  '));
        break;
      case 'jsonl':
        this.io.raw(this.json(out) + '\n');
        break;
      case 'tsv':
      case 'csv': {
        const cols = this.columnsFor(rec);
        if (this.count === 0 && this.settings.header) this.io.raw(rowLine(this.format, cols));
        this.io.raw(
          rowLine(
            this.format,
            cols.map((c) => cellValue(rec, c)),
          ),
        );
        break;
      }
      case 'table':
        this.rows.push(rec);
        break;
    }
    this.count++;
  }

  async end(): Promise<number> {
    const pages = this.shape.pages;
    const next = pages?.next ?? null;
    switch (this.format) {
      case 'json':
        if (this.settings.jq !== undefined) {
          await printJq(
            this.io,
            this.settings.jq,
            this.settings.includeCursor ? { data: this.rows, next_cursor: next } : this.rows,
          );
        } else if (this.wrapped) {
          this.io.raw(
            `${this.count === 0 ? '{\n  "data": []' : '\n  ]'},\n  "next_cursor": ${stringifyJson(next)}\n}\n`,
          );
        } else this.io.raw(this.count === 0 ? '[]\n' : '\n]\n');
        break;
      case 'jsonl':
        if (this.settings.includeCursor) this.io.raw(stringifyJson({ next_cursor: next }) + '\n');
        break;
      case 'tsv':
      case 'csv':
        if (this.count === 0 && this.settings.header && this.columnsFor(undefined).length)
          this.io.raw(rowLine(this.format, this.columnsFor(undefined)));
        break;
      case 'table':
        if (this.rows.length === 0) {
          this.io.info('(no records)');
        } else {
          const { printTable } = await import('./output-table.js');
          printTable(this.io, this.columnsFor(this.rows[0]!), this.rows, { whole: this.shape.whole });
        }
        break;
    }
    // Where to go on: on a terminal, unless the cursor is already in the output.
    const cursorShown = this.settings.includeCursor && (this.format === 'json' || this.format === 'jsonl');
    if (pages?.more && !cursorShown && (this.io.isStdoutTTY || this.io.isStderrTTY)) {
      const how =
        pages.next !== undefined && pages.flag
          ? `, or ${pages.flag} ${shellWord(pages.next)}`
          : pages.next === undefined
            ? ', or a larger --limit'
            : '';
      this.io.info(`more results: --all${how}`);
    }
    return this.count;
  }
}

function indent(s: string, pad: string): string {
  return s.replace(/^/gm, pad);
}

/** Prints one entity: json as the object, jsonl as one line, tsv/csv as one row, table as key/value. */
export async function printOne(io: IO, settings: OutputSettings, rec: Rec, shape: ShapeOptions = {}): Promise<void> {
  const format = effectiveFormat(io, settings);
  const fields = settings.fields
    ? checkFields(settings.fields, shape.knownFields?.length ? shape.knownFields : Object.keys(rec))
    : undefined;
  const out = fields ? pick(rec, fields) : rec;
  if (settings.jq !== undefined) return printJq(io, settings.jq, out);
  if (format === 'json') return void io.out(stringifyJson(out, 2));
  if (format === 'jsonl') return void io.out(stringifyJson(out));
  if (format === 'tsv' || format === 'csv') {
    const cols = fields ?? shape.columns ?? Object.keys(rec);
    if (settings.header) io.raw(rowLine(format, cols));
    return void io.raw(
      rowLine(
        format,
        cols.map((c) => cellValue(rec, c)),
      ),
    );
  }
  const { printRecord } = await import('./output-table.js');
  printRecord(io, out);
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

/**
 * A JSON document that is not a record or a list of records (a raw API answer): --jq over it,
 * else indented json or one jsonl line. On a terminal its control characters are made visible
 * (JSON escapes: the same value, and nothing a terminal acts on).
 */
export async function printJson(io: IO, settings: OutputSettings, value: unknown): Promise<void> {
  if (settings.jq !== undefined) return printJq(io, settings.jq, value);
  const s = settings.format === 'jsonl' ? stringifyJson(value) : stringifyJson(value, 2);
  io.out(escapeForTerminal(s, { keepLayout: true }));
}

/** One event of a stream (NDJSON text) through --jq: what jq prints for it, each event on its own. */
export async function printJqText(io: IO, program: string, jsonText: string): Promise<void> {
  const { runJq } = await import('./jq.js');
  const out = await runJq(program, jsonText);
  if (out) io.out(io.isStdoutTTY ? escapeForTerminal(out, { keepLayout: true }) : out);
}

/** Runs --jq over `value` and prints what jq prints (strings raw, like `jq -r` and gh's --jq). */
export async function printJq(io: IO, program: string, value: unknown): Promise<void> {
  const { runJq } = await import('./jq.js');
  const out = await runJq(program, stringifyJson(value));
  if (out) io.out(io.isStdoutTTY ? escapeForTerminal(out, { keepLayout: true }) : out);
}
