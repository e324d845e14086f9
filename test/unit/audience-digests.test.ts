// The sorted digest streams under sync: hex codec (against Buffer's own hex), the in-memory
// run sort (random, repeated, and crafted digests sharing a prefix), the external sort with
// spills, k-way merge, base ∪ adds − removes, and the diff; checked against plain JS sets.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BLOCK,
  compareDigests,
  DeltaCursor,
  DIGEST,
  digestHex,
  digestToHex,
  DigestSorter,
  DigestWriter,
  drainTo,
  EmptyCursor,
  FileCursor,
  hexToDigest,
  MemoryCursor,
  MergeCursor,
  ready,
  sortOrder,
  sortRun,
  type DigestCursor,
} from '../../src/audiences/digests.js';
import { diff } from '../../src/audiences/sync.js';
import {
  lockSnapshot,
  readSnapshotHeader,
  snapshotPaths,
  writeSnapshot,
  HEADER_BYTES,
} from '../../src/audiences/snapshot.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xctl-digests-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const rnd = (n: number) => Array.from({ length: n }, () => crypto.randomBytes(32).toString('hex'));

async function all(c: DigestCursor): Promise<string[]> {
  const out: string[] = [];
  while (await ready(c)) for (; c.pos < c.end; c.pos++) out.push(digestHex(c.buf, c.pos * DIGEST));
  await c.close();
  return out;
}

function mem(hex: string[]): DigestCursor {
  const sorted = [...new Set(hex)].sort();
  return new MemoryCursor(Buffer.from(sorted.join(''), 'hex'), sorted.length);
}

function fileOf(hex: string[]): Promise<FileCursor> {
  const f = path.join(dir, `f${crypto.randomBytes(4).toString('hex')}.bin`);
  fs.writeFileSync(f, Buffer.from([...new Set(hex)].sort().join(''), 'hex'));
  return FileCursor.open(f);
}

describe('digest codec and order', () => {
  it('hex <-> bytes agree with Buffer, and non-hex (or uppercase) is refused', () => {
    for (const h of rnd(200)) {
      const b = Buffer.alloc(32);
      expect(hexToDigest(Buffer.from(h, 'latin1'), 0, b, 0)).toBe(true);
      expect(b.toString('hex')).toBe(h);
      expect(digestHex(b)).toBe(h);
    }
    const b = Buffer.alloc(32);
    expect(hexToDigest(Buffer.from('A'.repeat(64), 'latin1'), 0, b, 0)).toBe(false);
    expect(hexToDigest(Buffer.from('0'.repeat(63) + 'g', 'latin1'), 0, b, 0)).toBe(false);
  });

  it('compares as the hex strings do', () => {
    const h = rnd(300).concat(['00'.repeat(32), 'ff'.repeat(32), '00'.repeat(31) + '01']);
    for (let i = 0; i + 1 < h.length; i++) {
      const a = Buffer.from(h[i]!, 'hex');
      const b = Buffer.from(h[i + 1]!, 'hex');
      expect(Math.sign(compareDigests(a, 0, b, 0))).toBe(h[i]! < h[i + 1]! ? -1 : h[i] === h[i + 1] ? 0 : 1);
    }
  });
});

describe('sortRun', () => {
  it('sorts and drops repeats: random digests, repeats, and a crowded bucket (shared prefix)', () => {
    const crowded = Array.from({ length: 500 }, () => 'abcdef01' + crypto.randomBytes(28).toString('hex')); // first four bytes tie
    const base = rnd(20_000);
    const input = [...base, ...base.slice(0, 3000), ...crowded, ...crowded.slice(0, 50)].sort(
      () => Math.random() - 0.5,
    );
    const buf = Buffer.from(input.join(''), 'hex');
    const n = sortRun(buf, input.length);
    const want = [...new Set(input)].sort();
    expect(n).toBe(want.length);
    expect(buf.subarray(0, n * 32).toString('hex')).toBe(want.join(''));
  });
});

describe('DigestSorter (external sort)', () => {
  it('spills runs to disk and merges them back, each digest once, in bounded memory', async () => {
    const tmp = fs.mkdtempSync(path.join(dir, 'sort-'));
    const s = new DigestSorter(tmp, 1000); // tiny runs: many spills
    const base = rnd(7_500);
    const input = [...base, ...base.slice(0, 2_000)].sort(() => Math.random() - 0.5);
    for (const h of input) expect(s.addHex(Buffer.from(h, 'latin1'), 0)).toBe(true);
    expect(fs.readdirSync(tmp).length).toBeGreaterThanOrEqual(9);
    expect(await all(await s.finish())).toEqual([...new Set(base)].sort());
  });

  it('keeps a small input in memory (no spill)', async () => {
    const tmp = fs.mkdtempSync(path.join(dir, 'sort-'));
    const s = new DigestSorter(tmp);
    const h = rnd(50);
    for (const x of h) s.add(Buffer.from(x, 'hex'), 0);
    expect(await all(await s.finish())).toEqual([...h].sort());
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});

describe('merges', () => {
  it('MergeCursor: the union, each once, across files and blocks', async () => {
    const a = rnd(20_000);
    const b = [...rnd(9_000), ...a.slice(0, 5_000)];
    expect(await all(new MergeCursor([await fileOf(a), await fileOf(b), mem([])]))).toEqual(
      [...new Set([...a, ...b])].sort(),
    );
  });

  it('DeltaCursor: base ∪ adds − removes', async () => {
    const base = rnd(12_000);
    const adds = rnd(3_000);
    const removes = [...base.slice(0, 4_000), ...rnd(10)]; // a remove that is not in base is harmless
    const gone = new Set(removes);
    const want = [...new Set([...base, ...adds])].filter((h) => !gone.has(h)).sort();
    expect(await all(new DeltaCursor(await fileOf(base), await fileOf(adds), await fileOf(removes)))).toEqual(want);
  });

  it('diff: input-only are adds, snapshot-only are removes; full sends every member', async () => {
    const keep = rnd(10_000);
    const gone = rnd(700);
    const fresh = rnd(800);
    const adds: string[] = [];
    const removes: string[] = [];
    const sink = {
      add: (b: Uint8Array, at: number) => adds.push(digestHex(b, at)),
      remove: (b: Uint8Array, at: number) => removes.push(digestHex(b, at)),
    };
    const r = await diff(await fileOf([...keep, ...fresh]), await fileOf([...keep, ...gone]), false, sink);
    expect(r).toEqual({ members: 10_800, adds: 800, removes: 700 });
    expect(adds).toEqual([...fresh].sort());
    expect(removes).toEqual([...gone].sort());
    const f = await diff(await fileOf([...keep, ...fresh]), await fileOf([...keep, ...gone]), true);
    expect(f).toEqual({ members: 10_800, adds: 10_800, removes: 700 });
    expect(await diff(mem([]), await fileOf(gone), false)).toEqual({ members: 0, adds: 0, removes: 700 });
  });

  it('DigestWriter + drainTo round-trip through a file', async () => {
    const h = rnd(20_000);
    const f = path.join(dir, 'w.bin');
    const w = DigestWriter.create(f);
    expect(await drainTo(mem(h), w)).toBe(20_000);
    w.finish();
    expect(await all(await FileCursor.open(f))).toEqual([...h].sort());
  });
});

describe('snapshot file', () => {
  it('is written whole (header + sorted digests), read back, and a damaged one is refused with --rebuild', async () => {
    const p = snapshotPaths(dir, 'default', 'acct1', 'ca1', 'email');
    expect(p.snapshot).toBe(path.join(dir, 'audiences', 'default', 'acct1', 'ca1.email.snapshot'));
    const h = rnd(3000);
    const head = await writeSnapshot(p.snapshot, mem(h), {
      profile: 'default',
      account: 'acct1',
      audience: 'ca1',
      type: 'email',
      oldest_sent_at: '2026-01-01T00:00:00.000Z',
    });
    expect(head.count).toBe(3000);
    expect(readSnapshotHeader(p.snapshot)).toEqual(head);
    expect(fs.statSync(p.snapshot).size).toBe(HEADER_BYTES + 3000 * 32);
    expect(fs.readdirSync(p.dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(await all(await FileCursor.open(p.snapshot, HEADER_BYTES))).toEqual([...h].sort());
    fs.truncateSync(p.snapshot, HEADER_BYTES + 100);
    expect(() => readSnapshotHeader(p.snapshot)).toThrow(/damaged/);
    expect(readSnapshotHeader(path.join(dir, 'none'))).toBeUndefined();
  });

  it("one sync at a time: a live holder is refused, a dead one's lock is taken over", () => {
    const p = snapshotPaths(dir, 'default', 'acct1', 'ca2', 'email');
    const release = lockSnapshot(p);
    const running = new RegExp(`another sync of this audience is running \\(process ${process.pid}\\)`);
    expect(() => lockSnapshot(p)).toThrow(running);
    release();
    expect(fs.existsSync(p.lock)).toBe(false);
    // a killed sync's lock (its process is gone; a bare pid as earlier versions wrote it) is taken over
    fs.writeFileSync(p.lock, String(spawnSync(process.execPath, ['-e', '0']).pid));
    lockSnapshot(p)();
    expect(fs.existsSync(p.lock)).toBe(false);
  });
});

// Mutation testing (TESTING.md): the run buffer's growth from 32,768 towards 524,288 digests,
// addHex refusing what is not hex, and the clean-up after a spill that fails were never run.
describe('DigestSorter growth, hex input and failed spills', () => {
  const rand = (n: number) => crypto.randomBytes(n * DIGEST);

  it('grows its run buffer from 32,768 to a full 524,288-digest run, spills, and loses nothing', async () => {
    const n = 600_000; // past one full run: growth 32,768 -> 65,536 -> ... -> 524,288, then a spill
    const buf = rand(n);
    buf.copy(buf, 7 * DIGEST, 3 * DIGEST, 4 * DIGEST); // one repeat
    const hex = Buffer.from(buf.toString('hex'), 'latin1');
    const tmp = fs.mkdtempSync(path.join(dir, 'grow-'));
    const s = new DigestSorter(tmp);
    for (let i = 0; i < n; i++) {
      if (i % 3 === 0) expect(s.addHex(hex, i * 2 * DIGEST)).toBe(true);
      else s.add(buf, i * DIGEST);
    }
    expect(s.added).toBe(n);
    expect(fs.readdirSync(tmp)).toEqual(['run-0.bin']);
    const got = await all(await s.finish());
    const want = [
      ...new Set(Array.from({ length: n }, (_, i) => buf.subarray(i * DIGEST, (i + 1) * DIGEST).toString('hex'))),
    ].sort();
    expect(got.length).toBe(n - 1);
    expect(got).toEqual(want);
  }, 60_000);

  it('addHex refuses what is not 64 hex characters, whether the run is full or not, and counts nothing', async () => {
    const s = new DigestSorter(dir, 4);
    const good = Buffer.from('ab'.repeat(32), 'latin1');
    const bad = Buffer.from('ab'.repeat(31) + 'zz', 'latin1');
    expect(s.addHex(bad, 0)).toBe(false); // room in the run
    expect(s.added).toBe(0);
    for (let i = 0; i < 4; i++) expect(s.addHex(good, 0)).toBe(true);
    expect(s.addHex(bad, 0)).toBe(false); // run full: the scratch path
    expect(s.addHex(Buffer.from('g' + 'a'.repeat(63), 'latin1'), 0)).toBe(false);
    expect(s.added).toBe(4);
    expect(await all(await s.finish())).toEqual(['ab'.repeat(32)]);
  });

  it('a spill that fails (file size limit) removes its partial file and throws', () => {
    const tmp = fs.mkdtempSync(path.join(dir, 'spill-'));
    const mod = path.resolve('dist/audiences/digests.js');
    expect(fs.existsSync(mod), 'npm run build first').toBe(true);
    const script = `
      const { DigestSorter } = await import(${JSON.stringify(mod)});
      const crypto = await import('node:crypto');
      const s = new DigestSorter(${JSON.stringify(tmp)}, 2000);
      const b = crypto.randomBytes(32 * 2001);
      try { for (let i = 0; i < 2001; i++) s.add(b, i * 32); console.log('no error'); }
      catch (e) { console.log('error', e.code); }`;
    // 16 KiB per file: the 64,000-byte run cannot be written (EFBIG; node ignores SIGXFSZ).
    const r = spawnSync(
      'bash',
      ['-c', 'ulimit -f 16; exec "$0" --input-type=module -e "$1"', process.execPath, script],
      { encoding: 'utf8' },
    );
    expect(r.stdout.trim(), r.stderr).toBe('error EFBIG');
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});

// Mutation testing (TESTING.md): the all-zero digest, bytes that are not hex at all (NUL), the
// bytes after a written digest, and FileCursor's count, short reads, a file that shrinks, close.
describe('digest codec edges and FileCursor reads', () => {
  it('takes the all-zero digest, and refuses a NUL byte before or after a hex digit', () => {
    const b = Buffer.alloc(32, 7);
    expect(hexToDigest(Buffer.from('0'.repeat(64), 'latin1'), 0, b, 0)).toBe(true);
    expect(b.equals(Buffer.alloc(32))).toBe(true);
    expect(hexToDigest(Buffer.from('\u0000a' + 'a'.repeat(62), 'latin1'), 0, b, 0)).toBe(false);
    expect(hexToDigest(Buffer.from('a\u0000' + 'a'.repeat(62), 'latin1'), 0, b, 0)).toBe(false);
    expect(hexToDigest(Buffer.from('a'.repeat(62) + '\u00000', 'latin1'), 0, b, 0)).toBe(false);
  });

  it('digestToHex writes exactly 64 characters where it is told, nothing after them', () => {
    const d = crypto.randomBytes(32);
    const dst = Buffer.alloc(70, '.');
    digestToHex(d, 0, dst, 2);
    expect(dst.toString('latin1')).toBe('..' + d.toString('hex') + '....');
  });

  it('reads `count` records from `offset`, however the file goes on', async () => {
    const h = rnd(BLOCK + 10).sort();
    const f = path.join(dir, 'count.bin');
    fs.writeFileSync(f, Buffer.concat([Buffer.from('HEAD'), Buffer.from(h.join(''), 'hex'), Buffer.from('torn')]));
    expect(await all(await FileCursor.open(f, 4, 3))).toEqual(h.slice(0, 3));
    expect(await all(await FileCursor.open(f, 4, BLOCK + 2))).toEqual(h.slice(0, BLOCK + 2));
    expect(await all(await FileCursor.open(f, 4 + 32 * 5, 1_000_000))).toEqual(h.slice(5));
    expect(await all(await FileCursor.open(f, 4))).toEqual(h); // the torn tail is not a record
  });

  it('keeps reading after a short read, from where it stopped', async () => {
    const h = rnd(BLOCK + 50).sort();
    const f = path.join(dir, 'short.bin');
    fs.writeFileSync(f, Buffer.from(h.join(''), 'hex'));
    const c = await FileCursor.open(f);
    const fh = Reflect.get(c, 'fh') as fs.promises.FileHandle;
    const read = fh.read.bind(fh) as (b: Buffer, o: number, l: number, p: number) => ReturnType<typeof fh.read>;
    Reflect.set(fh, 'read', (b: Buffer, o: number, l: number, p: number) => read(b, o, Math.min(l, 1000), p));
    expect(await all(c)).toEqual(h);
  });

  it('a file that shrinks while read ends at its last whole record (no endless loop)', async () => {
    const h = rnd(100).sort();
    const f = path.join(dir, 'shrink.bin');
    fs.writeFileSync(f, Buffer.from(h.join(''), 'hex'));
    const c = await FileCursor.open(f);
    fs.truncateSync(f, 32 * 40 + 5);
    expect(await all(c)).toEqual(h.slice(0, 40));
  });

  it('close() closes the file', async () => {
    const f = path.join(dir, 'close.bin');
    fs.writeFileSync(f, Buffer.alloc(64));
    const c = await FileCursor.open(f);
    const fh = Reflect.get(c, 'fh') as fs.promises.FileHandle;
    expect(fh.fd).toBeGreaterThan(0);
    await c.close();
    expect(fh.fd).toBe(-1);
    await c.close(); // twice: harmless
  });
});

describe('merges of many streams, and DigestWriter', () => {
  it('MergeCursor of nine streams (empty, repeats across, past a block): the union', async () => {
    const pool = rnd(3000);
    const pick = (n: number) => Array.from({ length: n }, () => pool[Math.floor(Math.random() * pool.length)]!);
    const parts = [pick(0), pick(1), pick(BLOCK + 7), pick(40), pick(0), pick(2), pick(700), pick(3), pick(1)];
    const inputs = await Promise.all(parts.map((p, i) => (i % 2 ? fileOf(p) : Promise.resolve(mem(p)))));
    const want = [...new Set(parts.flat())].sort();
    expect(await all(new MergeCursor(inputs))).toEqual(want);
    // the smallest digest in the last stream, the largest in the first
    const lo = '00'.repeat(32);
    const hi = 'ff'.repeat(32);
    expect(await all(new MergeCursor([mem([hi]), mem(rnd(5)), mem(rnd(5)), mem([lo])]))).toHaveLength(12);
    const ends = await all(new MergeCursor([mem([hi, pool[0]!]), mem([pool[1]!]), mem([pool[2]!]), mem([lo])]));
    expect([ends[0], ends.at(-1)]).toEqual([lo, hi]);
    expect(ends).toEqual([...ends].sort());
  });

  it('DeltaCursor: removes before, between and after the members, or all of them', async () => {
    const base = rnd(50).sort();
    const removes = [base[0]!, base[25]!, base[49]!, '00'.repeat(32), 'ff'.repeat(32)];
    const adds = rnd(5);
    const want = [...base.filter((h) => !removes.includes(h)), ...adds].sort();
    expect(await all(new DeltaCursor(mem(base), mem(adds), mem(removes)))).toEqual(want);
    expect(await all(new DeltaCursor(mem(base), mem([]), mem(base)))).toEqual([]);
    expect(await all(new DeltaCursor(new EmptyCursor(), mem(adds), mem(adds)))).toEqual([]);
  });

  it('closing a merge or a delta closes every file under it', async () => {
    const fds = (cs: FileCursor[]) => cs.map((c) => (Reflect.get(c, 'fh') as fs.promises.FileHandle).fd);
    const ins = [await fileOf(rnd(3)), await fileOf(rnd(3))];
    const m = new MergeCursor(ins);
    await ready(m);
    expect(fds(ins).every((fd) => fd > 0)).toBe(true);
    await m.close();
    expect(fds(ins)).toEqual([-1, -1]);
    const d3 = [await fileOf(rnd(3)), await fileOf(rnd(3)), await fileOf(rnd(3))];
    const d = new DeltaCursor(d3[0]!, d3[1]!, d3[2]!);
    await ready(d);
    await d.close();
    expect(fds(d3)).toEqual([-1, -1, -1]);
  });

  it('DigestWriter: the prefix, blocks of any count, mode 600; abort removes it', async () => {
    const h = rnd(2 * BLOCK + 3);
    const words = Buffer.from(h.join(''), 'hex');
    const f = path.join(dir, 'writer.bin');
    const w = DigestWriter.create(f, Buffer.from('PREFIX'));
    const view = new Uint32Array(words.buffer, words.byteOffset, words.length / 4);
    for (let i = 0; i < h.length; i++) {
      if (i % 2) w.add(words, i * DIGEST);
      else w.addWords(view, i * 8);
    }
    expect(w.count).toBe(h.length);
    w.finish();
    const bytes = fs.readFileSync(f);
    expect(bytes.subarray(0, 6).toString()).toBe('PREFIX');
    expect(bytes.subarray(6).toString('hex')).toBe(h.join(''));
    expect((fs.statSync(f).mode & 0o777).toString(8)).toBe('600');
    const g = path.join(dir, 'aborted.bin');
    const a = DigestWriter.create(g);
    a.add(words, 0);
    a.abort();
    expect(fs.existsSync(g)).toBe(false);
    a.abort(); // already closed: harmless
    const e = DigestWriter.create(path.join(dir, 'empty.bin'));
    e.close();
    expect(fs.readFileSync(path.join(dir, 'empty.bin')).length).toBe(0);
  });
});

describe('DigestSorter runs of any size, and the sort order of a run', () => {
  it('a run size between two growth steps: grows to it, not past, and spills there', async () => {
    const tmp = fs.mkdtempSync(path.join(dir, 'odd-'));
    const s = new DigestSorter(tmp, 40_000);
    const buf = crypto.randomBytes(100_000 * DIGEST);
    for (let i = 0; i < 100_000; i++) s.add(buf, i * DIGEST);
    expect(fs.readdirSync(tmp).sort()).toEqual(['run-0.bin', 'run-1.bin']);
    expect(fs.statSync(path.join(tmp, 'run-0.bin')).size).toBe(40_000 * DIGEST);
    const got = await all(await s.finish());
    expect(fs.readdirSync(tmp).sort()).toEqual(['run-0.bin', 'run-1.bin', 'run-2.bin']);
    expect(fs.statSync(path.join(tmp, 'run-2.bin')).size).toBe(20_000 * DIGEST);
    expect(got).toHaveLength(100_000);
    expect(got).toEqual([...got].sort());
  });

  it('a spill drops repeats that are next to each other once sorted, and only those', async () => {
    const tmp = fs.mkdtempSync(path.join(dir, 'rep-'));
    const s = new DigestSorter(tmp, 8);
    const a = '11'.repeat(32);
    const b = '11'.repeat(31) + '12'; // shares its first 31 bytes with a
    const c = '00'.repeat(32);
    // the 9th spills the first 8
    for (const h of [a, b, a, c, b, a, c, c, c]) s.add(Buffer.from(h, 'hex'), 0);
    expect(fs.readFileSync(path.join(tmp, 'run-0.bin')).toString('hex')).toBe(c + a + b);
    expect(await all(await s.finish())).toEqual([c, a, b]);
  });

  it('addHex into a full run goes through add (the run spills) and counts once', async () => {
    const tmp = fs.mkdtempSync(path.join(dir, 'hexfull-'));
    const s = new DigestSorter(tmp, 2);
    const hs = rnd(5);
    for (const h of hs) expect(s.addHex(Buffer.from(h, 'latin1'), 0)).toBe(true);
    expect(s.added).toBe(5);
    expect(fs.readdirSync(tmp).sort()).toEqual(['run-0.bin', 'run-1.bin']);
    expect(await all(await s.finish())).toEqual([...hs].sort());
  });

  it('sortOrder refuses 2^21 digests or more, naming the limit; 4-byte ties are ordered', () => {
    expect(() => sortOrder(Buffer.alloc(0), 1 << 21)).toThrow('a run holds at most 2097151 digests');
    const tie = ['abcdef01' + 'ff'.repeat(28), 'abcdef01' + '00'.repeat(28), 'abcdef00' + '11'.repeat(28)];
    const order = sortOrder(Buffer.from(tie.join(''), 'hex'), 3);
    expect([...order]).toEqual([2, 1, 0]);
    expect(sortRun(Buffer.alloc(0), 0)).toBe(0);
  });
});

describe('the all-zero digest first, two ties alone, and closing what was opened', () => {
  const zero = '00'.repeat(32);
  const zeroWord = '00000000' + 'ff'.repeat(28); // its first word is zero too

  it('sortRun and a spill keep an all-zero digest that sorts first', async () => {
    const buf = Buffer.from(zeroWord + zero, 'hex');
    expect(sortRun(buf, 2)).toBe(2);
    expect(buf.toString('hex')).toBe(zero + zeroWord);
    const tmp = fs.mkdtempSync(path.join(dir, 'zero-'));
    const s = new DigestSorter(tmp, 2);
    for (const h of [zero, zeroWord, zero]) s.add(Buffer.from(h, 'hex'), 0); // the 3rd spills 2
    expect(fs.readFileSync(path.join(tmp, 'run-0.bin')).toString('hex')).toBe(zero + zeroWord);
    expect(await all(await s.finish())).toEqual([zero, zeroWord]);
  });

  it('two digests tied on their first four bytes, and nothing else, are ordered', () => {
    const tie = ['abcdef01' + 'ff'.repeat(28), 'abcdef01' + '00'.repeat(28)];
    expect([...sortOrder(Buffer.from(tie.join(''), 'hex'), 2)]).toEqual([1, 0]);
  });

  it('drainTo closes the cursor it drained; abort closes the file it removes', async () => {
    const c = await fileOf(rnd(3));
    const w = DigestWriter.create(path.join(dir, 'drained.bin'));
    expect(await drainTo(c, w)).toBe(3);
    w.close();
    expect((Reflect.get(c, 'fh') as fs.promises.FileHandle).fd).toBe(-1);
    const a = DigestWriter.create(path.join(dir, 'abort-fd.bin'));
    const fd = Reflect.get(a, 'fd') as number;
    a.abort();
    expect(() => fs.fstatSync(fd)).toThrow(/EBADF/);
  });
});
