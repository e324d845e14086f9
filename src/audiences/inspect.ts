// `audiences inspect`: a quality report of what an upload of a file would send, offline. The
// file is read by the upload's own reader and column plan, value by value on the main thread:
// rows and blank lines, per column its type and coverage, values per type, duplicates, what
// normalization changed, reject reasons with example lines, likely typo domains, the phone
// numbers' countries, and the requests and time at the platform's rate limit.
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { UNHASHED_TYPE, UPLOAD_BODY_BYTES, type IdType } from '../contract/audience-users.js';
import type { ColumnSpec, InputFormat } from './chunk-processor.js';
import { unmappedIdentifiers } from './columns.js';
import { quoteFaultMessage, scanDelimited, type QuoteFault } from './csv.js';
import { DEFAULT_GATE_MIN_VALUES, DEFAULT_MAX_REJECT_RATE, rejectRate, withinGate, type RejectGate } from './gate.js';
import { formatFromName, planColumns, readChunks, sniffFormat, type ColumnPlan, type ColumnRequest } from './input.js';
import { looksHashed, normalize, normalizePartnerUserId, type Normalized } from './normalize.js';
import { isRecord } from '../contract/guards.js';
import { UsageError } from '../core/errors.js';

/** docs/contract.md, ads section 8: 1500 upload requests per minute. */
export const UPLOAD_RATE = { requests: 1500, windowSeconds: 60 };

/** Mail domains people mistype; a near miss of one is reported as a likely typo. */
export const COMMON_DOMAINS = [
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'yahoo.co.uk',
  'ymail.com',
  'hotmail.com',
  'hotmail.co.uk',
  'outlook.com',
  'live.com',
  'icloud.com',
  'aol.com',
  'comcast.net',
  'protonmail.com',
  'proton.me',
  'gmx.com',
  'gmx.de',
  'web.de',
  'yandex.ru',
  'mail.ru',
  'orange.fr',
  'btinternet.com',
  'verizon.net',
  'att.net',
  'sbcglobal.net',
  'msn.com',
  'me.com',
  'mail.com',
];

export interface InspectOptions {
  input: string;
  format: 'auto' | InputFormat;
  columns: ColumnRequest;
  hashed: boolean;
  defaultCountry?: string;
  lenientQuotes?: boolean;
  gate?: RejectGate;
}

export interface InspectReport {
  file: string;
  format: InputFormat;
  lines: number;
  rows: number;
  blank: number;
  joined_lines: number;
  columns: Array<{
    name: string;
    type: IdType | null;
    ignored?: boolean;
    filled: number;
    coverage: number;
    looks_like?: string;
  }>;
  values: Partial<Record<IdType, { values: number; valid: number; rejected: number }>>;
  duplicates: { exact: number; after_normalization: number };
  normalization_changed: {
    count: number;
    examples: Array<{ line: number; type: IdType; input: string; normalized: string }>;
  };
  rejects: Array<{ reason: string; column: string; count: number; lines: number[] }>;
  reject_rate: number;
  gate: string;
  typo_domains: Array<{ domain: string; count: number; likely: string }>;
  phone_countries: Array<{ country: string; count: number }>;
  users: number;
  requests: number;
  seconds_at_rate_limit: number;
  quote_fault?: string;
  /**
   * The input does not end with a newline: its last row may be cut mid-value (an export that
   * failed part-way). Its line; upload reports it too.
   */
  unterminated_last_line?: number;
}

/** Optimal string alignment distance, stopping early past `max`. */
export function editDistance(a: string, b: string, max = 2): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The common domain a mail domain likely meant (gmial.com -> gmail.com), if it is a near miss. */
export function likelyDomain(domain: string): string | undefined {
  if (COMMON_DOMAINS.includes(domain)) return undefined;
  let best: string | undefined;
  let bestD = 3;
  for (const c of COMMON_DOMAINS) {
    if (c.length < 8) continue; // short names are a letter away from real domains of their own
    const d = editDistance(domain, c, 2);
    const allowed = c.length >= 10 ? 2 : 1;
    if (d <= allowed && d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

const EXAMPLES = 3;
/** Upload's reason for a value whose bytes are not UTF-8 (chunk-processor.ts NOT_UTF8). */
export const NOT_UTF8 = 'not valid UTF-8';

const requirePhones = () =>
  createRequire(import.meta.url)('libphonenumber-js/min') as typeof import('libphonenumber-js/min');

/** Everything counted, value by value. */
class Tally {
  rows = 0;
  users = 0;
  valuesLooked = 0;
  rejectedValues = 0;
  readonly filled: number[];
  readonly values: InspectReport['values'] = {};
  /** Values seen, per type: as given (trimmed) and normalized. */
  private readonly exact = new Map<IdType, Set<string>>();
  private readonly norm = new Map<IdType, Set<string>>();
  dupExact = 0;
  dupNorm = 0;
  changed = 0;
  readonly changedEx: InspectReport['normalization_changed']['examples'] = [];
  readonly rejects = new Map<string, { reason: string; column: string; count: number; lines: number[] }>();
  readonly typos = new Map<string, { count: number; likely: string }>();
  readonly phones: string[] = [];
  /** The chunk being read holds bytes that are not UTF-8: a value with U+FFFD is rejected, as upload does. */
  badUtf8 = false;

  constructor(
    readonly columns: ColumnSpec[],
    width: number,
    private readonly o: InspectOptions,
  ) {
    this.filled = Array<number>(width).fill(0);
  }

  row(cells: string[], line: number, cellIndex: (c: ColumnSpec, i: number) => number): void {
    this.rows++;
    cells.forEach((c, i) => {
      if (i < this.filled.length && c.trim() !== '') this.filled[i]!++;
    });
    let sent = false;
    let any = false;
    this.columns.forEach((col, i) => {
      const raw = cells[cellIndex(col, i)] ?? '';
      if (raw.trim() === '') return;
      any = true;
      if (this.value(col, raw, line)) sent = true;
    });
    if (!any) this.reject('no identifier in this row', this.columns.map((c) => c.name).join('|'), line, true);
    if (sent) this.users++;
  }

  private value(col: ColumnSpec, raw: string, line: number): boolean {
    const t = col.type;
    const v = this.values[t] ?? { values: 0, valid: 0, rejected: 0 };
    this.values[t] = v;
    v.values++;
    this.valuesLooked++;
    const trimmed = raw.trim();
    const exact = this.exact.get(t) ?? this.exact.set(t, new Set()).get(t)!;
    const norm = this.norm.get(t) ?? this.norm.set(t, new Set()).get(t)!;
    const key = trimmed;
    const dupRaw = exact.has(key);
    if (dupRaw) this.dupExact++;
    else exact.add(key);
    const p: Normalized =
      this.badUtf8 && trimmed.includes('\uFFFD')
        ? { reason: NOT_UTF8 }
        : normalizedValue(t, trimmed, this.o.hashed, this.o.defaultCountry);
    if ('reason' in p) {
      this.reject(p.reason, col.name, line);
      v.rejected++;
      return false;
    }
    v.valid++;
    const n = p.value;
    const nkey = n;
    if (norm.has(nkey)) {
      if (!dupRaw) this.dupNorm++;
    } else norm.add(nkey);
    if (!this.o.hashed && n !== trimmed) {
      this.changed++;
      if (this.changedEx.length < EXAMPLES) this.changedEx.push({ line, type: t, input: trimmed, normalized: n });
    }
    if (t === 'email' && !this.o.hashed) this.domain(n);
    if (t === 'phone_number' && !this.o.hashed) this.phones.push(n);
    return true;
  }

  /** Domains looked up already, typo or not (a file has few domains and many addresses). */
  private readonly domains = new Map<string, { count: number; likely: string } | null>();

  private domain(email: string): void {
    const d = email.slice(email.lastIndexOf('@') + 1);
    let hit = this.domains.get(d);
    if (hit === undefined) {
      const likely = likelyDomain(d);
      hit = likely ? { count: 0, likely } : null;
      this.domains.set(d, hit);
      if (hit) this.typos.set(d, hit);
    }
    if (hit) hit.count++;
  }

  reject(reason: string, column: string, line: number, wholeRow = false): void {
    if (wholeRow) this.valuesLooked++;
    this.rejectedValues++;
    const k = `${column}\0${reason}`;
    const r = this.rejects.get(k) ?? { reason, column, count: 0, lines: [] };
    r.count++;
    if (r.lines.length < EXAMPLES) r.lines.push(line);
    this.rejects.set(k, r);
  }
}

/** What upload would hash (or send as is), by prepare's rules without the hashing. */
function normalizedValue(t: IdType, v: string, hashed: boolean, dc?: string): Normalized {
  if (t === UNHASHED_TYPE) return normalizePartnerUserId(v);
  if (hashed) {
    const d = v.toLowerCase();
    return looksHashed(d)
      ? { value: d }
      : { reason: 'not a SHA-256 digest (64 hex characters), but --hashed was given' };
  }
  if (looksHashed(v)) return { reason: 'looks like a SHA-256 digest (pass --hashed)' };
  return normalize(t, v, dc);
}

/** Cells of a jsonl line by the columns' keys, in column order; a reason when it is not an object. */
function jsonCells(line: string, columns: ColumnSpec[]): string[] | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'not valid JSON';
  }
  if (typeof v === 'string' && columns.length === 1) return [v];
  if (!isRecord(v)) return 'not a JSON object';
  const o = v;
  return columns.map((c) => {
    const x = (c.keys ?? [c.name]).map((k) => o[k]).find((y) => y !== undefined && y !== null);
    return x === undefined ? '' : typeof x === 'string' ? x : JSON.stringify(x);
  });
}

/** Where a reading stands between chunks. */
interface ReadState {
  lineBase: number;
  lines: number;
  blank: number;
  joined: number;
  fault?: string;
  sample: string[][];
}

/** One chunk's records into the tally. */
function readChunk(
  text: string,
  format: InputFormat,
  plan: ColumnPlan,
  t: Tally,
  s: ReadState,
  lenient: boolean,
): void {
  const keep = (cells: string[]) => {
    if (s.sample.length < 200) s.sample.push(cells);
  };
  if (format === 'csv' || format === 'tsv') {
    const c = scanDelimited(text, format === 'tsv' ? '\t' : ',', lenient, (cells, line) => {
      keep(cells);
      t.row(cells, s.lineBase + line, (col) => col.index ?? 0);
    });
    s.lines += c.lines;
    s.blank += c.blank;
    s.joined += c.joined;
    if (c.fault) s.fault = quoteFaultMessage(c.fault as QuoteFault, s.lineBase);
    s.lineBase += c.lines;
    return;
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((raw, i) => {
    const l = raw.replace(/\r$/, '');
    const line = s.lineBase + i + 1;
    const cells = l.trim() === '' ? undefined : format === 'jsonl' ? jsonCells(l, plan.columns) : [l];
    if (cells === undefined) s.blank++;
    else if (typeof cells === 'string') {
      t.rows++;
      t.reject(cells, '-', line, true);
    } else t.row(cells, line, (_, k) => (format === 'jsonl' ? k : 0));
  });
  s.lines += lines.length;
  s.lineBase += lines.length;
}

/** Reads the input (a file's or stdin's bytes) through and reports; `name` is what it is called. */
export async function inspectInput(
  stream: Readable | NodeJS.ReadableStream,
  name: string,
  o: InspectOptions,
): Promise<InspectReport> {
  let format: InputFormat | undefined =
    o.format !== 'auto' ? o.format : name === '-' ? undefined : formatFromName(name);
  const cut = { value: format === 'csv' || format === 'tsv', delimiter: format === 'tsv' ? 9 : 44 };
  const decoder = new TextDecoder('utf-8');
  let plan: ColumnPlan | undefined;
  let t: Tally | undefined;
  const s: ReadState = { lineBase: 0, lines: 0, blank: 0, joined: 0, sample: [] };
  let last = 0;
  for await (const chunk of readChunks(stream, cut)) {
    if (chunk.length) last = chunk[chunk.length - 1]!;
    let text = decoder.decode(chunk);
    if (!plan) {
      const first = text.split('\n')[0]!.replace(/\r$/, '');
      format ??= sniffFormat(first);
      plan = planColumns(format, first, o.columns);
      // A jsonl row's cells are the columns' values in column order (no header cells).
      t = new Tally(plan.columns, plan.cells?.length ?? plan.columns.length, o);
      if (plan.header) {
        text = text.slice(text.indexOf('\n') + 1 || text.length);
        s.lineBase = 1;
      }
    }
    t!.badUtf8 = !isUtf8(chunk);
    readChunk(text, format!, plan, t!, s, !!o.lenientQuotes);
    if (s.fault) break;
  }
  if (!plan || !t)
    throw new UsageError(`${name === '-' ? 'stdin' : name} is empty (0 bytes): there is nothing to inspect or upload`, {
      flag: '<file>',
    });
  const r = report(name, format!, plan, t, s, o.gate);
  if (last !== 10 && !s.fault && s.lines > 0) r.unterminated_last_line = s.lineBase;
  return r;
}

function report(
  file: string,
  format: InputFormat,
  plan: ColumnPlan,
  t: Tally,
  s: ReadState,
  gate?: RejectGate,
): InspectReport {
  const used = new Set(plan.columns.map((c) => c.index ?? 0));
  const looks = new Map(
    unmappedIdentifiers(plan.cells ?? [], used, plan.ignoredIndex ?? new Set(), s.sample).map((u) => [u.index, u]),
  );
  const cells = plan.cells ?? plan.columns.map((c) => c.name);
  const columns = cells.map((name, i) => {
    const col = plan.cells ? plan.columns.find((c) => (c.index ?? 0) === i) : plan.columns[i];
    const u = looks.get(i);
    return {
      name,
      type: col?.type ?? null,
      ...(plan.ignoredIndex?.has(i) ? { ignored: true } : {}),
      filled: t.filled[i] ?? 0,
      coverage: t.rows ? Math.round(((t.filled[i] ?? 0) / t.rows) * 1000) / 1000 : 0,
      ...(u ? { looks_like: `${u.type} (${u.hits} of ${u.sampled} sampled)` } : {}),
    };
  });
  const g = gate ?? { max: DEFAULT_MAX_REJECT_RATE, minValues: DEFAULT_GATE_MIN_VALUES, explicit: false };
  // An upload's default request is a full body: a user object is {"type":["<64 hex>",...]},
  // (counted as if each value had a type of its own: an upper bound).
  let bytes = t.users * 3;
  for (const [type, v] of Object.entries(t.values)) bytes += (v?.valid ?? 0) * (type.length + 5 + 67);
  const requests = Math.ceil(bytes / UPLOAD_BODY_BYTES);
  const r: InspectReport = {
    file,
    format,
    lines: s.lines,
    rows: t.rows,
    blank: s.blank,
    joined_lines: s.joined,
    columns,
    values: t.values,
    duplicates: { exact: t.dupExact, after_normalization: t.dupNorm },
    normalization_changed: { count: t.changed, examples: t.changedEx },
    rejects: [...t.rejects.values()].sort((a, b) => b.count - a.count),
    reject_rate: rejectRate(t.valuesLooked, t.rejectedValues),
    gate: withinGate(g, t.valuesLooked, t.rejectedValues) ? 'pass' : `refuse (more than ${g.max} rejected)`,
    typo_domains: [...t.typos].map(([domain, v]) => ({ domain, ...v })).sort((a, b) => b.count - a.count),
    phone_countries: phoneCountries(t.phones),
    users: t.users,
    requests,
    seconds_at_rate_limit: Math.round((requests / UPLOAD_RATE.requests) * UPLOAD_RATE.windowSeconds * 10) / 10,
  };
  if (s.fault) r.quote_fault = s.fault;
  return r;
}

/** Countries of E.164 digits (as normalized), most first. */
function phoneCountries(phones: string[]): Array<{ country: string; count: number }> {
  if (!phones.length) return [];
  const lib = requirePhones();
  const m = new Map<string, number>();
  for (const p of phones) {
    const c = lib.parsePhoneNumberFromString('+' + p)?.country ?? 'unknown';
    m.set(c, (m.get(c) ?? 0) + 1);
  }
  return [...m].map(([country, count]) => ({ country, count })).sort((a, b) => b.count - a.count);
}

/** A file's bytes as a stream (the command opens it; stdin comes as it is). */
export function fileStream(file: string): fs.ReadStream {
  return fs.createReadStream(file);
}
