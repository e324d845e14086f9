// One email column of a many-column csv/tsv file (a CRM export uploaded with `--column
// email=Email`) is read on the bytes, without a string per cell (chunk-processor.ts csvEmails).
// Judged twice: by Python's csv module and hashlib on a generated adversarial file (quoted
// fields with delimiters, doubled quotes and line breaks, CRLF, a BOM, blank and short rows,
// non-ASCII, digests), and record by record against the string reader (csv.ts scanDelimited
// with prepare) on random chunks, quote faults and invalid UTF-8 included.
import { spawnSync } from 'node:child_process';
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { processChunk, type ProcessorConfig } from '../../src/audiences/chunk-processor.js';
import { rowLikeTest } from '../../src/audiences/columns.js';
import { scanDelimited } from '../../src/audiences/csv.js';
import { readChunks } from '../../src/audiences/input.js';
import { prepare } from '../../src/audiences/normalize.js';

const cfgOf = (d: ',' | '\t', index: number, lenientQuotes = false): ProcessorConfig => ({
  format: d === ',' ? 'csv' : 'tsv',
  columns: [{ type: 'email', name: 'Email', index }],
  hashed: false,
  lenientQuotes,
  width: 4,
});

/** A seeded generator (the same file on every run). */
function random(seed: number): (k: number) => number {
  return (k) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % k;
  };
}

const HEX = 'abcdef0123456789'.repeat(4);
/** Email cells as exports write them (q: quoted as a csv writer would, when it must). */
const EMAILS = [
  'user@example.com',
  ' First.Last@Example.COM ',
  'MIXED@CASE.Org',
  '',
  '   ',
  'not-an-email',
  'a@b@c',
  '@x.com',
  'Ünï@Cödé.de',
  '\u00a0nb@sp.com\u00a0',
  HEX,
  HEX.toUpperCase(),
  'x'.repeat(70) + '@long.example.com',
  'quote"inside@x.com',
  '"quoted"@x.com',
  'comma,inside@x.com',
  'two\nlines@x.com',
  'tail@x.com\n',
  'tab\tinside@x.com',
];
const NAMES = ['Ann', 'Smith, John', 'Dr. "Bob"', '', '  ', 'Zoë Ødegård', '日本'];
const PHONES = ['+1 415 555 0101', '', '(415) 555-0101'];
const NOTES = [
  'customer since 2001',
  '',
  'Met at expo, said "call me", prefers email',
  'line one,\nline two "q"\r\nthree',
  'ends with a comma,',
  ' ',
];

/** A field as a csv writer writes it: quoted when it must be (or by choice), else bare. */
function field(v: string, d: string, rnd: (k: number) => number): string {
  const must = v.includes(d) || v.startsWith('"') || v.includes('\n') || v.includes('\r');
  if (must || rnd(4) === 0) return `"${v.replace(/"/g, '""')}"${rnd(12) === 0 && !v.includes('\n') ? ' ' : ''}`;
  return v;
}

/** Header, then rows of Name, Email, Phone, Notes (some blank, short, long or all delimiters). */
function crmFile(rows: number, d: ',' | '\t', seed: number): string {
  const rnd = random(seed);
  const pick = <T>(a: T[]) => a[rnd(a.length)]!;
  let text = (rnd(2) ? '\uFEFF' : '') + ['Name', 'Email', 'Phone', 'Notes'].join(d) + '\r\n';
  for (let i = 0; i < rows; i++) {
    const end = rnd(3) === 0 ? '\n' : '\r\n';
    const k = rnd(40);
    if (k === 0)
      text += end; // an empty line
    else if (k === 1)
      text += `${d}${d}${d}${end}`; // delimiters only: blank
    else if (k === 2)
      text += ` ${d}  ${d}${d}"" ${end}`; // white space only: blank
    else if (k === 3)
      text += `Only Name${end}`; // a short row: no email cell
    else {
      const email = rnd(3) === 0 ? `user${i}@Example.com` : pick(EMAILS);
      const cells = [pick(NAMES), email, pick(PHONES), pick(NOTES)].map((v) => field(v, d, rnd));
      if (k === 4) cells.push('extra');
      text += cells.join(d) + end;
    }
  }
  return rnd(2) ? text : text.replace(/\r?\n$/, '');
}

interface Read {
  frags: string;
  read: number;
  blank: number;
  lines: number;
  joined: number;
  rejects: Array<[number, string]>;
  digestLine: number;
}

/** The file as the upload reads it: the header line dropped, whole-record chunks, each processed. */
async function upload(bytes: Buffer, cfg: ProcessorConfig, target: number): Promise<Read> {
  const body = bytes.subarray(bytes.indexOf(10) + 1);
  const pieces: Buffer[] = [];
  for (let i = 0; i < body.length; i += 4096) pieces.push(body.subarray(i, i + 4096));
  const d = cfg.format === 'tsv' ? 9 : 44;
  const got: Read = { frags: '', read: 0, blank: 0, lines: 0, joined: 0, rejects: [], digestLine: 0 };
  let base = 1; // the header
  for await (const c of readChunks(Readable.from(pieces), { value: true, delimiter: d }, target)) {
    const r = processChunk(0, c, cfg);
    expect(r.fault).toBeUndefined();
    got.frags += Buffer.from(r.frags).toString('latin1');
    expect(r.ends.length).toBe(r.valid);
    got.read += r.read;
    got.blank += r.blank;
    got.joined += r.joined;
    for (const [line, , reason] of r.rejects) got.rejects.push([line + base, reason]);
    if (r.digestLine && !got.digestLine) got.digestLine = r.digestLine + base;
    base += r.lines;
    got.lines += r.lines;
  }
  return got;
}

// Python's csv module and hashlib, with xctl's rules written out: trim is JavaScript's (its
// white space set), the email pattern is EMAIL_RE's, a 64-hex value is a digest.
const PY = String.raw`
import csv, hashlib, io, json, re, sys
WS = ' \t\n\x0b\x0c\r\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff'
cls = re.escape(WS)
EMAIL = re.compile('^[^@' + cls + ']+@[^@' + cls + ']+$')
DIGEST = re.compile('^[0-9a-fA-F]{64}$')
text = open(sys.argv[1], 'rb').read().decode('utf-8-sig')
reader = csv.reader(io.StringIO(text, newline=''), delimiter=sys.argv[2], strict=False)
next(reader)
index = int(sys.argv[3])
out = {'frags': '', 'read': 0, 'blank': 0, 'joined': 0, 'rejects': [], 'digestLine': 0}
prev = reader.line_num
for row in reader:
    start, prev = prev + 1, reader.line_num
    out['joined'] += prev - start
    if all(c.strip(WS) == '' for c in row):
        out['blank'] += 1
        continue
    out['read'] += 1
    t = (row[index] if index < len(row) else '').strip(WS)
    if t == '':
        out['rejects'].append([start, 'no identifier in this row'])
    elif DIGEST.match(t):
        out['digestLine'] = out['digestLine'] or start
    elif not EMAIL.match(t.lower()):
        out['rejects'].append([start, 'not an email address'])
    else:
        out['frags'] += '{"email":["%s"]},' % hashlib.sha256(t.lower().encode('utf-8')).hexdigest()
out['lines'] = reader.line_num - 1
print(json.dumps(out))
`;

describe("one email column of a CRM export, judged by Python's csv module and hashlib", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-csv-emails-'));
  for (const [d, seed] of [
    [',', 11],
    ['\t', 12],
    [',', 13],
  ] as const) {
    it(`${d === ',' ? 'csv' : 'tsv'} (seed ${seed}): the same digests, rejects, lines and blank rows`, async () => {
      const text = crmFile(3000, d, seed);
      const file = path.join(dir, `crm-${seed}.csv`);
      fs.writeFileSync(file, text);
      const py = spawnSync('python3', ['-c', PY, file, d, '1'], { encoding: 'utf8', maxBuffer: 64 << 20 });
      expect(py.stderr).toBe('');
      const want = JSON.parse(py.stdout) as Read;
      expect(want.read).toBeGreaterThan(2500);
      expect(want.joined).toBeGreaterThan(100);
      for (const target of [1, 600, 1 << 16]) {
        const got = await upload(Buffer.from(text), cfgOf(d, 1), target);
        expect(got).toEqual(want);
      }
    });
  }
});

/** The string reader's reading of a chunk: scanDelimited's records, emitRow's rules for one column. */
function reference(bytes: Uint8Array, cfg: ProcessorConfig) {
  const text = new TextDecoder('utf-8').decode(bytes);
  const bad = !isUtf8(bytes);
  const index = cfg.columns[0]!.index!;
  let frags = '';
  let read = 0;
  let digestLine = 0;
  const rejects: Array<[number, string, string]> = [];
  const d = cfg.format === 'tsv' ? '\t' : ',';
  const rowLike = rowLikeTest(cfg.columns, d, cfg.width);
  const c = scanDelimited(
    text,
    d,
    !!cfg.lenientQuotes,
    (cells, line) => {
      read++;
      const raw = cells[index];
      if (raw === undefined || raw.trim() === '')
        return void rejects.push([line, 'Email', 'no identifier in this row']);
      if (bad && raw.includes('\uFFFD')) return void rejects.push([line, 'Email', 'not valid UTF-8']);
      const p = prepare('email', raw, false);
      if ('digest' in p) digestLine ||= line;
      else if ('reason' in p) rejects.push([line, 'Email', p.reason]);
      else frags += `{"email":["${p.value}"]},`;
    },
    rowLike,
  );
  return { frags, read, digestLine, rejects, lines: c.lines, blank: c.blank, joined: c.joined, fault: c.fault };
}

describe('one email column, on bytes: the string reader, record by record', () => {
  const PARTS = ['a@b.c', 'X@Y.Z', ' ', ',', '\t', '"', '""', '\n', '\r\n', 'é', HEX, '@', 'x', '\u00a0', '\ufeff'];
  it('agrees on random chunks: quotes anywhere (faults included), BOMs, CRLF, invalid UTF-8', () => {
    const rnd = random(5);
    let faults = 0;
    for (let t = 0; t < 3000; t++) {
      let text = Array.from({ length: rnd(40) }, () => PARTS[rnd(PARTS.length)]!).join('');
      if (rnd(5) === 0) text = '\ufeff' + text;
      let bytes: Uint8Array = new TextEncoder().encode(text);
      if (rnd(8) === 0) bytes = new Uint8Array([...bytes, 0xe2, 0x82, 10, 0xc3, 0x41, 0x40, 0x42, 10]);
      const cfg = cfgOf(rnd(2) ? ',' : '\t', rnd(3), rnd(4) === 0);
      const r = processChunk(0, bytes, cfg);
      const want = reference(bytes, cfg);
      if (want.fault) faults++;
      expect({
        frags: Buffer.from(r.frags).toString('latin1'),
        read: r.read,
        digestLine: r.digestLine,
        rejects: r.rejects,
        lines: r.lines,
        blank: r.blank,
        joined: r.joined,
        fault: r.fault,
      }).toEqual(want);
      expect(r.values).toBe(r.read);
    }
    expect(faults).toBeGreaterThan(100);
  });
  it('hashes a quoted, padded, upper-case address as its trimmed lower-case form', () => {
    const r = processChunk(0, new TextEncoder().encode('Ann,"  AdsApi@Example.com ",x\r\n'), cfgOf(',', 1));
    const p = prepare('email', 'adsapi@example.com', false) as { value: string };
    expect(Buffer.from(r.frags).toString('latin1')).toBe(`{"email":["${p.value}"]},`);
  });
});
