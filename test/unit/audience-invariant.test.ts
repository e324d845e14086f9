// The upload's contract, as a property over generated csv files with planted faults (stray and
// unclosed quotes, bad emails, blank and white-space lines, notes over several lines, CRLF, a
// BOM): a run that ends without an error has sent every data row, rejected it with a reason
// naming its line, or reported it blank. The real parts run: the chunker (small chunks), the
// header plan, the chunk processor, the tally with its rejects file, and the gate.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { processChunk, type ChunkResult } from '../../src/audiences/chunk-processor.js';
import { parseRejectGate } from '../../src/audiences/gate.js';
import { gatedResults, RecordTally } from '../../src/audiences/hashed-input.js';
import { planColumns, readChunks } from '../../src/audiences/input.js';
import { findQuoteFault, scanDelimited, scanQuotes } from '../../src/audiences/csv.js';
import { rowLikeTest } from '../../src/audiences/columns.js';
import { sha256Hex } from '../../src/audiences/normalize.js';
import type { XctlError } from '../../src/core/errors.js';

interface Row {
  email: string;
  name: string;
  note: string;
  /** A blank line (or one of white space) instead of a row. */
  blank?: string;
}

const q = (v: string) => (/[",\r\n]/.test(v) || v.startsWith(' ') ? `"${v.replace(/"/g, '""')}"` : v);
const text = fc
  .array(fc.constantFrom('a', 'b', ' ', ',', '\n', '\r\n', '"', 'é', '-'), { maxLength: 6 })
  .map((a) => a.join(''));

const rowArb = (i: number) =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record<Row>({
        email: fc.constantFrom(`U${i}@Example.com`, ` u${i}@example.com `, `bad${i}`, ''),
        name: fc.constantFrom(`N${i}`, `Ann "A" ${i}`),
        note: text,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '  ', ',,').map((blank): Row => ({ email: '', name: '', note: '', blank })),
    },
  );

const fileArb = fc.integer({ min: 1, max: 30 }).chain((n) =>
  fc.record({
    rows: fc.tuple(...Array.from({ length: n }, (_, i) => rowArb(i))),
    crlf: fc.boolean(),
    bom: fc.boolean(),
    /** Where a stray opening quote goes in a name (-1: none). */
    stray: fc.integer({ min: -1, max: n - 1 }),
    target: fc.constantFrom(1, 16, 200, 1 << 16),
  }),
);

/** The file, and the line each row starts on. */
function render(f: { rows: Row[]; crlf: boolean; bom: boolean; stray: number }): { bytes: Buffer; starts: number[] } {
  const nl = f.crlf ? '\r\n' : '\n';
  let out = (f.bom ? '\uFEFF' : '') + 'Email Address,Name,Notes' + nl;
  let line = 2;
  const starts: number[] = [];
  f.rows.forEach((r, i) => {
    starts.push(line);
    const rec =
      r.blank !== undefined ? r.blank : [q(r.email), i === f.stray ? `"${r.name}` : q(r.name), q(r.note)].join(',');
    out += rec + nl;
    line += rec.split('\n').length;
  });
  return { bytes: Buffer.from(out), starts };
}

async function upload(bytes: Buffer, target: number, dir: string) {
  const firstLine = bytes.toString('utf8').split('\n')[0]!.replace(/\r$/, '');
  const plan = planColumns('csv', firstLine, { columns: [] });
  const cfg = { format: 'csv' as const, columns: plan.columns, hashed: false, width: plan.cells?.length };
  const body = bytes.subarray(bytes.indexOf(10) + 1);
  const chunks = readChunks(Readable.from([body]), { value: true, delimiter: 44, maxRecordBytes: 1 << 20 }, target);
  let seq = 0;
  const src = {
    async *results(): AsyncGenerator<ChunkResult> {
      for await (const c of chunks) yield processChunk(seq++, c, cfg);
    },
  };
  const rejects = path.join(dir, 'rejects.csv');
  const tally = new RecordTally({ lineBase: 1 }, false, rejects);
  let stopped: XctlError | undefined;
  const sent = new Set<string>();
  for await (const r of gatedResults(
    src,
    tally,
    parseRejectGate('1'),
    () => sent.size > 0,
    (e) => (stopped = e),
  )) {
    for (const m of Buffer.from(r.frags)
      .toString('latin1')
      .matchAll(/[0-9a-f]{64}/g))
      sent.add(m[0]);
  }
  await tally.close();
  const rejectedLines = new Set(
    fs
      .readFileSync(rejects, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => Number(l.split(',')[0])),
  );
  return { stopped, sent, rejectedLines, tally };
}

describe('exit 0 implies every data row is sent, rejected with a reason, or reported blank', () => {
  it('holds on generated files with planted faults', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-invariant-'));
    try {
      await fc.assert(
        fc.asyncProperty(fileArb, async (f) => {
          const { bytes, starts } = render(f);
          const { stopped, sent, rejectedLines, tally } = await upload(bytes, f.target, dir);
          if (stopped) {
            // a stop names a line where a quoted field starts, at or before the stray quote
            expect(stopped.message).toMatch(/^line \d+: a quoted field starts here/);
            return;
          }
          expect(tally.lines).toBe(tally.read + tally.blank + tally.joined);
          let blank = 0;
          f.rows.forEach((r, i) => {
            const email = r.email.trim().toLowerCase();
            if (r.blank !== undefined) {
              blank++;
              return;
            }
            const ok = email.includes('@') && sent.has(sha256Hex(email));
            if (ok || rejectedLines.has(starts[i]!)) return;
            // A row a stray quote swallowed is caught when a line inside the field reads as a
            // row (an email in its column, or the header's width with its identifiers empty or
            // valid); one holding no usable identifier can still go in unseen, and is then
            // counted among the joined lines (lines = read + blank + joined, checked above).
            const swallowed = i > f.stray && f.stray >= 0 && !email.includes('@');
            if (!swallowed)
              throw new Error(`row ${i} (line ${starts[i]}, ${JSON.stringify(r)}) was neither sent nor rejected`);
            expect(tally.joined).toBeGreaterThan(0);
          });
          expect(tally.blank).toBeGreaterThanOrEqual(blank);
        }),
        { numRuns: 200, seed: Number(process.env.FC_SEED ?? 24) },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the pre-send read of a whole file finds the fault the run would', () => {
  it('findQuoteFault (bytes, no records) agrees with the strict reader on generated files', () => {
    fc.assert(
      fc.property(fileArb, (f) => {
        const { bytes } = render(f);
        const rowLike = rowLikeTest([{ type: 'email', index: 0 }], ',', 3);
        const strict = scanDelimited(new TextDecoder().decode(bytes), ',', false, () => {}, rowLike).fault;
        expect(findQuoteFault(bytes, 44, rowLike)).toEqual(strict);
      }),
      { numRuns: 300, seed: Number(process.env.FC_SEED ?? 24) },
    );
  });
  it('scanQuotes on the file read in pieces of any size finds a fault exactly where the whole file has one', () => {
    fc.assert(
      fc.property(fileArb, fc.integer({ min: 1, max: 64 }), (f, size) => {
        const { bytes } = render(f);
        const rowLike = rowLikeTest([{ type: 'email', index: 0 }], ',', 3);
        // as prescanQuotes reads: each piece is what is carried from the last one and a block
        let carry = new Uint8Array(0);
        let found = false;
        for (let at = 0; ; ) {
          const final = at >= bytes.length;
          const piece = new Uint8Array([...carry, ...bytes.subarray(at, at + size)]);
          const opens = at === 0 || carry.length > 0 || bytes[at - 1] === 10 || bytes[at - 1] === 44;
          const r = scanQuotes(piece, 44, rowLike, { first: at === 0, opens, final });
          at += size;
          if (typeof r !== 'number') {
            found = true;
            break;
          }
          if (final) break;
          carry = piece.subarray(r);
        }
        expect(found).toBe(findQuoteFault(bytes, 44, rowLike) !== undefined);
      }),
      { numRuns: 300, seed: Number(process.env.FC_SEED ?? 24) },
    );
  });
});
