// `audiences hash`: the upload's normalize-and-hash path with the digests printed instead of
// sent: the same reader, worker pool and chunk processor (so the same output and speed), no
// credentials, no network. `--explain` shows, value by value, what the normalizer made of it.
import fs from 'node:fs';
import { once } from 'node:events';
import type { Context } from '../context.js';
import type { ColumnSpec, InputFormat } from './chunk-processor.js';
import { countedResults, csvCell, hexStart, openHashedInput, RecordTally } from './hashed-input.js';
import { formatFromName, planColumns, sniffFormat, type ColumnRequest } from './input.js';
import { normalize, prepare } from './normalize.js';
import { bufferOf, isRecord } from '../contract/guards.js';

export interface HashOptions {
  input: string;
  format: 'auto' | InputFormat;
  columns: ColumnRequest;
  hashed: boolean;
  defaultCountry?: string;
  explain: boolean;
  rejects?: string;
  workers?: number;
  lenientQuotes?: boolean;
}

export interface HashSummary {
  read: number;
  valid: number;
  rejected: number;
}

export async function runHash(ctx: Context, o: HashOptions): Promise<HashSummary> {
  if (o.explain) return explain(ctx, o);
  const src = await openHashedInput(ctx, { ...o });
  if (!src) return { read: 0, valid: 0, rejected: 0 };
  try {
    const tally = new RecordTally(src, o.hashed, o.rejects);
    const write = writer(ctx);
    const types = [...new Set(src.columns.map((c) => c.type))];
    const single = src.columns.length === 1 && types[0] !== 'partner_user_id';
    if (!single) await write(Buffer.from(types.join(',') + '\n'));
    try {
      for await (const r of countedResults(src, tally, ctx.signal)) {
        const f = r.frags;
        if (single) {
          // {"<type>":["<64 hex>"]}, -> <64 hex>\n, straight from the bytes.
          const out = Buffer.allocUnsafe(r.valid * 65);
          for (let i = 0; i < r.valid; i++) {
            const h = hexStart(r.ends[i]!);
            out.set(f.subarray(h, h + 64), i * 65);
            out[i * 65 + 64] = 10;
          }
          src.giveFrags(f);
          await write(out);
          continue;
        }
        let text = '';
        let from = 0;
        for (let i = 0; i < r.valid; i++) {
          const user = JSON.parse(
            Buffer.from(f.buffer, f.byteOffset + from, r.ends[i]! - from - 1).toString('latin1'),
          ) as Record<string, string[]>;
          text += types.map((t) => csvCell((user[t] ?? []).join(';'))).join(',') + '\n';
          from = r.ends[i]!;
        }
        await write(Buffer.from(text));
      }
    } finally {
      await tally.close();
    }
    tally.report(ctx.io);
    return { read: tally.read, valid: tally.valid, rejected: tally.rejected };
  } finally {
    await src.close();
  }
}

/** Writes to stdout, waiting when the reader is slower (a pipe to a slow consumer). */
function writer(ctx: Context): (b: Buffer) => Promise<void> {
  const out = ctx.io.stdout;
  return async (b) => {
    if (b.length && !out.write(b)) await once(out, 'drain');
  };
}

/**
 * One tab-separated line per value: line, column, type, the input as given, its normalized form,
 * and the digest sent (or the reason it is rejected). Runs on the main thread: it is for
 * people reading a few records, not for millions.
 */
async function explain(ctx: Context, o: HashOptions): Promise<HashSummary> {
  const write = writer(ctx);
  const s: HashSummary = { read: 0, valid: 0, rejected: 0 };
  const show = (v: string) => JSON.stringify(v).slice(1, -1); // control characters never reach the terminal raw
  const stream = o.input === '-' ? ctx.io.stdin : fs.createReadStream(o.input);
  let format: InputFormat | undefined =
    o.format !== 'auto' ? o.format : o.input === '-' ? undefined : formatFromName(o.input);
  let columns: ColumnSpec[] | undefined;
  for await (const rec of records(rawLines(stream), () => format)) {
    if (!columns) {
      format ??= sniffFormat(rec.text);
      const plan = planColumns(format, rec.text.replace(/^\uFEFF/, ''), o.columns);
      columns = plan.columns;
      await write(Buffer.from('line\tcolumn\ttype\tinput\tnormalized\tsent\n'));
      if (plan.header) continue;
    }
    const line = rec.line;
    if (rec.text.trim() === '') continue;
    // A csv/tsv row of empty cells (`,,,`) is blank, as upload and inspect count it.
    if (
      (format === 'csv' || format === 'tsv') &&
      splitRecord(rec.text, format === 'tsv' ? '\t' : ',').every((c) => c.trim() === '')
    )
      continue;
    s.read++;
    const cells = cellsOf(rec.line === 1 ? rec.text.replace(/^\uFEFF/, '') : rec.text, format!, columns);
    if (typeof cells === 'string') {
      s.rejected++;
      await write(Buffer.from(`${line}\t-\t-\t${show(rec.text)}\t\trejected: ${cells}\n`));
      continue;
    }
    let ok = true;
    let any = false;
    let out = '';
    columns.forEach((c, i) => {
      const raw = cells[i] ?? '';
      if (raw.trim() === '') return;
      any = true;
      const n = o.hashed || c.type === 'partner_user_id' ? undefined : normalize(c.type, raw.trim(), o.defaultCountry);
      // Bytes that are not UTF-8 decode to U+FFFD: upload rejects such a value, never hashes it.
      const p: ReturnType<typeof prepare> =
        rec.bad && raw.includes('\uFFFD')
          ? { reason: 'not valid UTF-8' }
          : prepare(c.type, raw, o.hashed, o.defaultCountry);
      const verdict =
        'value' in p
          ? p.value
          : 'digest' in p
            ? 'rejected: looks like a SHA-256 digest already (pass --hashed)'
            : `rejected: ${p.reason}`;
      if (!('value' in p)) ok = false;
      const normalized =
        n && 'value' in n ? n.value : 'value' in p && (o.hashed || c.type === 'partner_user_id') ? p.value : '';
      out += `${line}\t${show(c.name)}\t${c.type}\t${show(raw)}\t${show(normalized)}\t${show(verdict)}\n`;
    });
    if (!any) {
      ok = false;
      out += `${line}\t-\t-\t${show(rec.text)}\t\trejected: no identifier in this row\n`;
    }
    if (ok) s.valid++;
    else s.rejected++;
    await write(Buffer.from(out));
  }
  return s;
}

/**
 * Records with the line they start on, line by line from the stream: a csv/tsv record whose
 * quotes are still open takes the next line too (a newline inside a quoted field).
 */
async function* records(
  lines: AsyncIterable<{ text: string; bad: boolean }>,
  format: () => InputFormat | undefined,
): AsyncGenerator<{ line: number; text: string; bad: boolean }> {
  let n = 0;
  let acc: string | undefined;
  let bad = false;
  let start = 0;
  for await (const { text: l, bad: b } of lines) {
    n++;
    if (acc === undefined) {
      start = n;
      bad = false;
    }
    acc = acc === undefined ? l : acc + '\n' + l;
    bad ||= b;
    const f = format();
    if ((f === 'csv' || f === 'tsv') && (acc.split('"').length - 1) % 2 === 1) continue;
    yield { line: start, text: acc, bad };
    acc = undefined;
  }
  if (acc !== undefined) yield { line: start, text: acc, bad };
}

/** Lines of the raw bytes (a CR before the newline dropped), each decoded, and whether its bytes were not UTF-8. */
async function* rawLines(stream: AsyncIterable<unknown>): AsyncGenerator<{ text: string; bad: boolean }> {
  const fatal = new TextDecoder('utf-8', { fatal: true });
  const lenient = new TextDecoder('utf-8');
  const line = (b: Buffer) => {
    const l = b.length && b[b.length - 1] === 13 ? b.subarray(0, b.length - 1) : b;
    try {
      return { text: fatal.decode(l), bad: false };
    } catch {
      return { text: lenient.decode(l), bad: true };
    }
  };
  let carry = Buffer.alloc(0);
  for await (const d of stream) {
    const data = carry.length ? Buffer.concat([carry, bufferOf(d)]) : bufferOf(d);
    let from = 0;
    for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10, from)) {
      yield line(data.subarray(from, nl));
      from = nl + 1;
    }
    carry = Buffer.from(data.subarray(from));
  }
  if (carry.length) yield line(carry);
}

/** The cells the columns read, in column order, or the reason the record cannot be read. */
function cellsOf(rec: string, format: InputFormat, columns: ColumnSpec[]): string[] | string {
  if (format === 'lines') return [rec];
  if (format === 'jsonl') {
    let v: unknown;
    try {
      v = JSON.parse(rec);
    } catch {
      return 'not valid JSON';
    }
    if (typeof v === 'string' && columns.length === 1) return [v];
    if (!isRecord(v)) return 'not a JSON object';
    const obj = v;
    return columns.map((c) => {
      for (const k of c.keys ?? [c.name]) {
        const x = obj[k];
        if (x === undefined || x === null) continue;
        return typeof x === 'string'
          ? x
          : typeof x === 'number' && Number.isSafeInteger(x)
            ? String(x)
            : JSON.stringify(x);
      }
      return '';
    });
  }
  const cells = splitRecord(rec, format === 'tsv' ? '\t' : ',');
  return columns.map((c) => cells[c.index ?? 0] ?? '');
}

/** RFC 4180 fields of one record: quoted fields, doubled quotes, delimiters inside quotes. */
function splitRecord(rec: string, d: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q = false;
  for (let i = 0; i < rec.length; i++) {
    const ch = rec[i]!;
    if (q) {
      if (ch === '"' && rec[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') q = false;
      else cur += ch;
    } else if (ch === '"' && cur === '') q = true;
    else if (ch === d) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}
