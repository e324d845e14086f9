// An exact set of SHA-256 digests (given as 64 lowercase hex characters). The probe table holds
// only a 32-bit hash of each digest and its index (8 bytes a slot); the full 32 bytes sit in a
// dense store, written in order and read only when the hash matches. A JS Set of hex strings costs
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

/** Digests per block of the dense store: 2 MB each, added as needed and never copied. */
const BLOCK_BITS = 16;
const BLOCK_MASK = (1 << BLOCK_BITS) - 1;
const BLOCK_WORDS = 8 << BLOCK_BITS;
/** A slot's index word: 0 is an empty slot, TOMB a deleted one; else the digest's index + 1. */
const TOMB = 0xffffffff;
const MIN_BITS = 12;
/** Inserts whose home slots addMany reads together. */
const GROUP = 16;

/** A 32-bit hash of the digest's first 128 bits whose top bits are the home slot. */
function hashAt(src: Uint32Array, at: number): number {
  let h = Math.imul(src[at]! ^ 0x7f4a7c15, 0x9e3779b1);
  h = Math.imul(h ^ src[at + 1]!, 0x85ebca6b);
  h = Math.imul(h ^ src[at + 2]!, 0xc2b2ae35);
  h = Math.imul(h ^ src[at + 3]!, 0x27d4eb2f);
  return (h ^ (h >>> 15)) >>> 0;
}

/** Words per 4 KB memory page. */
const PAGE_WORDS = 1024;

/**
 * A zeroed table of n words whose pages are already the process's own. A large typed array
 * comes from the kernel untouched, and the rehash reads a slot before it writes it: the read
 * maps the shared zero page and the write then faults a second time to replace it. Writing one
 * word per page first takes the one fault each page needs (half the faults of a growth).
 */
export function freshTable(n: number) {
  const k = new Uint32Array(n);
  for (let i = 0; i < n; i += PAGE_WORDS) k[i] = 0;
  return k;
}

export class DigestSet {
  private bits = MIN_BITS;
  private cap = 1 << MIN_BITS;
  /**
   * Probe table, two words a slot: the digest's 32-bit hash, and its index in the store + 1. A
   * slot's home is the hash's top bits, so doubling the table sends slot i's entries to 2i or
   * 2i+1: growth reads the old table and writes the new one in order (no cache miss per entry,
   * as a rehash by low bits has). A slot is 8 bytes, so a probe rarely leaves its cache line.
   */
  private keys = new Uint32Array(this.cap * 2);
  /** Digests in insertion order, in blocks: written sequentially, read only on a hash match. */
  private blocks: Uint32Array[] = [];
  /**
   * Tables a growth left behind, whose memory becomes blocks: their pages are already the
   * process's own (a fresh block is 512 page faults to fill), and nothing is allocated for them.
   * Growth to 2M digests leaves 30 MB of such tables, 15 of the 32 blocks those digests need.
   * A set that stops growing keeps what is left of them (at most about half its table).
   */
  private spare: Array<{ buffer: ArrayBufferLike; at: number }> = [];
  /** Blocks made from old tables (for the tests). */
  reusedBlocks = 0;
  private stored = 0;
  private used = 0; // full + deleted slots
  private live = 0;
  /** Home slots of the group addMany is inserting (their reads are issued together). */
  private readonly groupHash = new Uint32Array(GROUP);

  get size(): number {
    return this.live;
  }

  /** Slot index holding the digest, or -(insertion slot) - 1. */
  private find(src: Uint32Array, at: number, h: number): number {
    const mask = this.cap - 1;
    const k = this.keys;
    let i = h >>> (32 - this.bits);
    let free = -1;
    for (;;) {
      const e = k[i * 2 + 1]!;
      if (e === 0) return -(free >= 0 ? free : i) - 1;
      if (e === TOMB) {
        if (free < 0) free = i;
      } else if (k[i * 2] === h && this.same(e - 1, src, at)) return i;
      i = (i + 1) & mask;
    }
  }

  private same(index: number, src: Uint32Array, at: number): boolean {
    const f = this.blocks[index >>> BLOCK_BITS]!;
    const o = (index & BLOCK_MASK) * 8;
    for (let j = 0; j < 8; j++) if (f[o + j] !== src[at + j]) return false;
    return true;
  }

  /** A block for the next digests: from an old table's memory when one is left, else new. */
  private newBlock(): Uint32Array {
    const bytes = BLOCK_WORDS * 4;
    for (;;) {
      const s = this.spare[0];
      if (!s) return new Uint32Array(BLOCK_WORDS);
      if (s.at + bytes <= s.buffer.byteLength) {
        // Whatever the old table held there is overwritten before it is read: a digest is
        // written to its block before any slot refers to it.
        const block = new Uint32Array(s.buffer, s.at, BLOCK_WORDS);
        s.at += bytes;
        this.reusedBlocks++;
        return block;
      }
      this.spare.shift();
    }
  }

  /** Adds the digest at src[at..at+8). */
  add(src: Uint32Array, at: number): void {
    this.reserve(1);
    this.insert(src, at, hashAt(src, at));
  }

  private insert(src: Uint32Array, at: number, h: number): void {
    const f = this.find(src, at, h);
    if (f >= 0) return;
    const i = -f - 1;
    const k = this.keys;
    if (k[i * 2 + 1] === 0) this.used++;
    const index = this.stored++;
    k[i * 2] = h;
    k[i * 2 + 1] = index + 1;
    const b = index >>> BLOCK_BITS;
    if (b === this.blocks.length) this.blocks.push(this.newBlock());
    const block = this.blocks[b]!;
    const o = (index & BLOCK_MASK) * 8;
    for (let j = 0; j < 8; j++) block[o + j] = src[at + j]!;
    this.live++;
  }

  /**
   * Adds the digests at src[from*8..to*8). The table is sized for all of them first (one growth
   * at most, not one per doubling). In a table of millions every insert misses the cache; reading
   * the home slots of a group first lets the processor wait for those misses together instead of
   * one after another.
   */
  addMany(src: Uint32Array, from: number, to: number): void {
    this.reserve(to - from);
    const gh = this.groupHash;
    for (let g = from; g < to; g += GROUP) {
      const end = Math.min(to, g + GROUP);
      const k = this.keys;
      const shift = 32 - this.bits;
      let touch = 0;
      for (let j = g; j < end; j++) {
        const h = hashAt(src, j * 8);
        gh[j - g] = h;
        touch |= k[(h >>> shift) * 2 + 1]!;
      }
      this.touched = touch;
      for (let j = g; j < end; j++) this.insert(src, j * 8, gh[j - g]!);
    }
  }
  /** Keeps the reads of addMany from being optimised away. */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: written so that the reads it sums are not optimised away
  private touched = 0;

  delete(src: Uint32Array, at: number): void {
    const f = this.find(src, at, hashAt(src, at));
    if (f < 0) return;
    this.keys[f * 2 + 1] = TOMB;
    this.live--;
  }

  /** Every digest in the set, as 64 lowercase hex characters (in no particular order). */
  *hex(): Generator<string> {
    const k = this.keys;
    for (let s = 0; s < this.cap; s++) {
      const e = k[s * 2 + 1]!;
      if (e === 0 || e === TOMB) continue;
      const f = this.blocks[(e - 1) >>> BLOCK_BITS]!;
      const o = ((e - 1) & BLOCK_MASK) * 8;
      let h = '';
      for (let j = 0; j < 8; j++) h += f[o + j]!.toString(16).padStart(8, '0');
      yield h;
    }
  }

  /** Makes room for n more entries under a load of 0.7: grows (or clears tombstones) once. */
  private reserve(n: number): void {
    if ((this.used + n) * 10 <= this.cap * 7) return;
    let bits = this.bits;
    while ((this.live + n) * 10 > (1 << bits) * 5 && bits < 30) bits++;
    this.rehash(bits);
  }

  /**
   * Moves every entry to a table of 2^bits slots (tombstones dropped). The old table is read in
   * slot order and, its homes being top bits of the hash, written nearly in order too.
   */
  private rehash(bits: number): void {
    const old = this.keys;
    const oldCap = this.cap;
    this.bits = bits;
    this.cap = 1 << bits;
    const k = freshTable(this.cap * 2);
    this.keys = k;
    this.used = 0;
    const mask = this.cap - 1;
    const shift = 32 - bits;
    // An entry that wrapped past the old table's end is met first but belongs near the end:
    // start at the first slot that is empty (or a tombstone), so entries are met in home order.
    let start = 0;
    while (start < oldCap && old[start * 2 + 1] !== 0 && old[start * 2 + 1] !== TOMB) start++;
    for (let n = 0; n < oldCap; n++) {
      const s = (start + n) & (oldCap - 1);
      const e = old[s * 2 + 1]!;
      if (e === 0 || e === TOMB) continue;
      const h = old[s * 2]!;
      let i = h >>> shift;
      while (k[i * 2 + 1] !== 0) i = (i + 1) & mask;
      k[i * 2] = h;
      k[i * 2 + 1] = e;
      this.used++;
    }
    if (old.byteLength >= BLOCK_WORDS * 4) this.spare.push({ buffer: old.buffer, at: old.byteOffset });
  }
}
