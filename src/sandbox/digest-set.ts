// An exact set of SHA-256 digests (given as 64 lowercase hex characters). The probe table holds
// only each digest's first 64 bits and an index (12 bytes a slot, together); the full 32 bytes sit in a
// dense side array, written in order and read only when those 64 bits match. A JS Set of hex strings costs
// several times the memory and the time per insert; audience uploads put millions through here.

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = 10 + i;

/** Parses 64 lowercase hex characters into out[at..at+8); false when the value is not one. */
export function parseDigest(v: string, out: Uint32Array, at: number): boolean {
  return v.length === 64 && parseDigestAt(v, 0, out, at);
}

/** Like parseDigest, for the 64 characters of `s` starting at `from`. */
export function parseDigestAt(s: string, from: number, out: Uint32Array, at: number): boolean {
  for (let i = 0; i < 8; i++) {
    let w = 0;
    for (let j = 0; j < 8; j++) {
      const c = s.charCodeAt(from + i * 8 + j);
      const h = c < 128 ? HEX[c]! : -1;
      if (h < 0) return false;
      w = (w << 4) | h;
    }
    out[at + i] = w >>> 0;
  }
  return true;
}

// Two hex characters (lowercase) as one byte, looked up by their two bytes: -1 when not hex.
const PAIR = new Int16Array(65536).fill(-1);
for (let a = 0; a < 128; a++)
  for (let b = 0; b < 128; b++) if (HEX[a]! >= 0 && HEX[b]! >= 0) PAIR[(a << 8) | b] = (HEX[a]! << 4) | HEX[b]!;

/**
 * Like parseDigestAt, for the 64 bytes of `b` starting at `from` (a request body as received:
 * no string is made for it). Two characters per lookup.
 */
export function parseDigestBytes(b: Uint8Array, from: number, out: Uint32Array, at: number): boolean {
  if (from + 64 > b.length) return false;
  let bad = 0;
  for (let i = 0; i < 8; i++) {
    const o = from + i * 8;
    const p0 = PAIR[(b[o]! << 8) | b[o + 1]!]!;
    const p1 = PAIR[(b[o + 2]! << 8) | b[o + 3]!]!;
    const p2 = PAIR[(b[o + 4]! << 8) | b[o + 5]!]!;
    const p3 = PAIR[(b[o + 6]! << 8) | b[o + 7]!]!;
    bad |= p0 | p1 | p2 | p3;
    out[at + i] = ((p0 << 24) | (p1 << 16) | (p2 << 8) | p3) >>> 0;
  }
  // -1 (not hex) is the only negative entry, and it sets the sign bit of the OR
  return bad >= 0;
}

// Slot markers in the probe table: (0,0) empty, (0,1) deleted. Digests whose first 64 bits are
// one of these (odds of 2^-63 each) are kept in a plain Set instead, so the set stays exact.
const EMPTY_HI = 0;

export class DigestSet {
  private cap = 1 << 12;
  /**
   * Probe table, three words a slot: the first 64 bits of each digest, and where its 32 bytes are
   * in `full`. One slot is one memory access: an insert into a table of millions is a cache miss,
   * and the index beside the key costs no second one.
   */
  private keys = new Uint32Array(this.cap * 3);
  /** Digests in insertion order, dense: written sequentially, read only on a 64-bit match. */
  private full = new Uint32Array(1 << 15);
  private stored = 0;
  private used = 0; // full + deleted slots
  private live = 0;
  private odd = new Set<string>();

  get size(): number {
    return this.live + this.odd.size;
  }

  private static oddKey(src: Uint32Array, at: number): string | undefined {
    return src[at] === EMPTY_HI && src[at + 1]! <= 1 ? Array.from(src.subarray(at, at + 8)).join(',') : undefined;
  }

  /** Slot index holding the digest, or -(insertion slot) - 1. */
  private find(src: Uint32Array, at: number): number {
    const mask = this.cap - 1;
    const a = src[at]!;
    const b = src[at + 1]!;
    let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask;
    let free = -1;
    const k = this.keys;
    for (;;) {
      const x = k[i * 3]!;
      const y = k[i * 3 + 1]!;
      if (x === EMPTY_HI && y <= 1) {
        if (y === 0) return -(free >= 0 ? free : i) - 1;
        if (free < 0) free = i;
      } else if (x === a && y === b && this.sameTail(k[i * 3 + 2]!, src, at)) return i;
      i = (i + 1) & mask;
    }
  }

  private sameTail(entry: number, src: Uint32Array, at: number): boolean {
    const f = this.full;
    const o = entry * 8;
    for (let j = 2; j < 8; j++) if (f[o + j] !== src[at + j]) return false;
    return true;
  }

  /** Adds the digest at src[at..at+8). */
  add(src: Uint32Array, at: number): void {
    const odd = DigestSet.oddKey(src, at);
    if (odd !== undefined) {
      this.odd.add(odd);
      return;
    }
    if ((this.used + 1) * 10 > this.cap * 7) this.rehash();
    const f = this.find(src, at);
    if (f >= 0) return;
    const i = -f - 1;
    const k = this.keys;
    if (k[i * 3 + 1] === 0) this.used++;
    k[i * 3] = src[at]!;
    k[i * 3 + 1] = src[at + 1]!;
    k[i * 3 + 2] = this.stored;
    if ((this.stored + 1) * 8 > this.full.length) {
      const n = new Uint32Array(this.full.length * 2);
      n.set(this.full);
      this.full = n;
    }
    const o = this.stored++ * 8;
    for (let j = 0; j < 8; j++) this.full[o + j] = src[at + j]!;
    this.live++;
  }

  /**
   * Adds the digests at src[from*8..to*8). In a table of millions every insert misses the cache;
   * reading the home slots of a group first lets the processor wait for those misses together
   * instead of one after another (about half the time on 2,000,000 digests).
   */
  addMany(src: Uint32Array, from: number, to: number): void {
    const GROUP = 16;
    for (let g = from; g < to; g += GROUP) {
      const end = Math.min(to, g + GROUP);
      if ((this.used + GROUP) * 10 > this.cap * 7) this.rehash();
      const k = this.keys;
      const mask = this.cap - 1;
      let touch = 0;
      for (let j = g; j < end; j++) touch |= k[((src[j * 8]! ^ Math.imul(src[j * 8 + 1]!, 0x9e3779b1)) & mask) * 3]!;
      this.touched = touch;
      for (let j = g; j < end; j++) this.add(src, j * 8);
    }
  }
  /** Keeps the reads of addMany from being optimised away. */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: written so that the reads it sums are not optimised away
  private touched = 0;

  delete(src: Uint32Array, at: number): void {
    const odd = DigestSet.oddKey(src, at);
    if (odd !== undefined) {
      this.odd.delete(odd);
      return;
    }
    const f = this.find(src, at);
    if (f < 0) return;
    this.keys[f * 3] = EMPTY_HI;
    this.keys[f * 3 + 1] = 1;
    this.live--;
  }

  /** Every digest in the set, as 64 lowercase hex characters (in no particular order). */
  *hex(): Generator<string> {
    const k = this.keys;
    for (let s = 0; s < this.cap; s++) {
      if (k[s * 3] === EMPTY_HI && k[s * 3 + 1]! <= 1) continue;
      const o = k[s * 3 + 2]! * 8;
      let h = '';
      for (let j = 0; j < 8; j++) h += this.full[o + j]!.toString(16).padStart(8, '0');
      yield h;
    }
    for (const odd of this.odd)
      yield odd
        .split(',')
        .map((w) => Number(w).toString(16).padStart(8, '0'))
        .join('');
  }

  /** Grows the probe table (or clears tombstones); digests stay where they are in `full`. */
  private rehash(): void {
    const old = this.keys;
    const oldCap = this.cap;
    if (this.live * 10 > oldCap * 3) this.cap *= 2;
    const k = new Uint32Array(this.cap * 3);
    this.keys = k;
    this.used = 0;
    const mask = this.cap - 1;
    for (let s = 0; s < oldCap; s++) {
      const a = old[s * 3]!;
      const b = old[s * 3 + 1]!;
      if (a === EMPTY_HI && b <= 1) continue;
      let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask;
      while (k[i * 3] !== EMPTY_HI || k[i * 3 + 1] !== 0) i = (i + 1) & mask;
      k[i * 3] = a;
      k[i * 3 + 1] = b;
      k[i * 3 + 2] = old[s * 3 + 2]!;
      this.used++;
    }
  }
}
