// The sandbox's exact digest set: adds, duplicates, deletes, growth, and the reserved prefixes.
import { describe, expect, it } from 'vitest';
import { DigestSet, freshTable, parseDigest, parseDigestAt, parseDigestBytes } from '../../src/sandbox/digest-set.js';
import { sha256Hex } from '../../src/audiences/normalize.js';

function digest(hex: string): Uint32Array {
  const w = new Uint32Array(8);
  expect(parseDigest(hex, w, 0)).toBe(true);
  return w;
}

describe('DigestSet', () => {
  it('counts distinct digests exactly through growth, duplicates and deletes', () => {
    const s = new DigestSet();
    const all = Array.from({ length: 50_000 }, (_, i) => digest(sha256Hex(String(i))));
    for (const d of all) s.add(d, 0);
    for (const d of all.slice(0, 1000)) s.add(d, 0);
    expect(s.size).toBe(50_000);
    for (const d of all.slice(0, 20_000)) s.delete(d, 0);
    expect(s.size).toBe(30_000);
    for (const d of all.slice(0, 10)) s.add(d, 0);
    expect(s.size).toBe(30_010);
  });

  it('keeps digests that share their first 64 bits apart, and handles the reserved prefixes', () => {
    const s = new DigestSet();
    const a = digest('0123456789abcdef' + '0'.repeat(48));
    const b = digest('0123456789abcdef' + '1'.repeat(48));
    const zero = digest('0'.repeat(64));
    const one = digest('0'.repeat(15) + '1' + 'f'.repeat(48));
    for (const d of [a, b, zero, one, a, zero]) s.add(d, 0);
    expect(s.size).toBe(4);
    s.delete(zero, 0);
    s.delete(a, 0);
    expect(s.size).toBe(2);
  });

  it('addMany holds what add does: duplicates inside a group and across, reserved prefixes, growth', () => {
    const n = 30_000;
    const words = new Uint32Array((n + 40) * 8);
    for (let i = 0; i < n; i++) expect(parseDigest(sha256Hex(String(i % 20_000)), words, i * 8)).toBe(true);
    // Reserved first 64 bits (kept apart) and repeats next to each other in one group of 16.
    for (let i = 0; i < 40; i++)
      expect(parseDigest(i % 2 ? '0'.repeat(64) : sha256Hex('x'), words, (n + i) * 8)).toBe(true);
    const one = new DigestSet();
    const many = new DigestSet();
    for (let i = 0; i < n + 40; i++) one.add(words, i * 8);
    for (let at = 0; at < n + 40; at += 7777) many.addMany(words, at, Math.min(n + 40, at + 7777));
    expect(many.size).toBe(20_002);
    expect(many.size).toBe(one.size);
    expect([...many.hex()].sort()).toEqual([...one.hex()].sort());
  });

  it('stays exact against a plain Set through growth, tombstones and digests of one hash', () => {
    // Digests that share their first 128 bits share a hash, hence a home slot: long clusters,
    // some wrapping past the table's end, moved by every growth.
    const hexes: string[] = [];
    for (let g = 0; g < 6; g++)
      for (let i = 0; i < 700; i++) hexes.push(sha256Hex(`p${g}`).slice(0, 32) + sha256Hex(`s${i}`).slice(0, 32));
    for (let i = 0; i < 20_000; i++) hexes.push(sha256Hex(`r${i}`));
    const words = new Uint32Array(hexes.length * 8);
    hexes.forEach((h, i) => expect(parseDigest(h, words, i * 8)).toBe(true));
    const s = new DigestSet();
    const model = new Set<string>();
    let seed = 7;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let round = 0; round < 30; round++) {
      const from = rnd(hexes.length);
      const to = Math.min(hexes.length, from + 1 + rnd(3000));
      if (round % 3 === 2)
        for (let i = from; i < to; i++) {
          s.delete(words, i * 8);
          model.delete(hexes[i]!);
        }
      else {
        s.addMany(words, from, to);
        for (let i = from; i < to; i++) model.add(hexes[i]!);
      }
      expect(s.size).toBe(model.size);
    }
    expect([...s.hex()].sort()).toEqual([...model].sort());
  });

  it('parses only lowercase hex of the right length', () => {
    const w = new Uint32Array(8);
    expect(parseDigest(sha256Hex('x').toUpperCase(), w, 0)).toBe(false);
    expect(parseDigest(sha256Hex('x').slice(1), w, 0)).toBe(false);
    expect(parseDigest('g'.repeat(64), w, 0)).toBe(false);
  });
});

describe('parseDigestBytes', () => {
  it('agrees with parseDigestAt, including on bad characters and short input', () => {
    const hex = sha256Hex('adsapi');
    const cases = [
      hex,
      '0'.repeat(64),
      'f'.repeat(64),
      hex.toUpperCase(),
      hex.slice(0, 63) + 'g',
      'x' + hex.slice(1),
      hex.slice(0, 40) + '\u00e9' + hex.slice(41),
      hex.slice(0, 60),
    ];
    for (const c of cases) {
      const s = `..${c}..`;
      const a = new Uint32Array(8);
      const b = new Uint32Array(8);
      const okA = s.length >= 66 && parseDigestAt(s, 2, a, 0);
      const okB = parseDigestBytes(Buffer.from(s, 'latin1'), 2, b, 0);
      expect(okB).toBe(okA);
      if (okA) expect(b).toEqual(a);
    }
    expect(parseDigestBytes(Buffer.from(hex, 'latin1'), 1, new Uint32Array(8), 0)).toBe(false);
  });
});

describe('DigestSet blocks made from the tables a growth leaves', () => {
  it('holds every digest exactly when its blocks are old tables (and uses them)', () => {
    // 600,000 digests: the table grows to 2^20 slots, leaving tables of 2 and 4 MB behind: 3 of
    // the 10 blocks the digests need.
    const n = 600_000;
    const words = new Uint32Array(n * 8);
    let seed = 11;
    for (let i = 0; i < words.length; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      words[i] = Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) >>> 0;
    }
    const s = new DigestSet();
    for (let at = 0; at < n; at += 50_000) s.addMany(words, at, at + 50_000);
    expect(s.reusedBlocks).toBe(3);
    expect(s.size).toBe(n);
    // Every digest reads back as written (a block laid over a live table would have lost some)
    const hex = (i: number) =>
      Array.from(words.subarray(i * 8, i * 8 + 8), (w) => w.toString(16).padStart(8, '0')).join('');
    const want = Array.from({ length: n }, (_, i) => hex(i)).sort();
    expect([...s.hex()].sort()).toEqual(want);
    // and each is found again: no size change on a second pass, all gone after deletes.
    s.addMany(words, 0, n);
    expect(s.size).toBe(n);
    for (let i = 0; i < n; i += 2) s.delete(words, i * 8);
    expect(s.size).toBe(n / 2);
  });
});

describe('freshTable (the table a growth moves the entries into)', () => {
  // 36 MB: more than glibc ever serves from its heap (its mmap threshold stops at 32 MB), so the
  // array is always fresh pages from the kernel, whatever the test process allocated before.
  const words = 9 * 1024 * 1024;

  it('is zeroed, and its pages are written before anything reads them (one fault a page)', () => {
    const faults = () => process.resourceUsage().minorPageFault;
    const k = freshTable(words);
    expect(k.length).toBe(words);
    const before = faults();
    let sum = 0;
    // What the rehash does first on every page: read a slot. On a page nothing has written yet
    // that maps the shared zero page, and the rehash's write then faults a second time.
    for (let i = 0; i < words; i += 1024) sum += k[i]!;
    expect(faults() - before).toBeLessThan(64);
    expect(sum).toBe(0);
  });
});
