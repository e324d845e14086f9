// Sorted streams of 32-byte SHA-256 digests, for sync: the snapshot, the input once sorted, and
// the adds and removes between them. Memory stays bounded whatever the count: streams move in
// blocks of BLOCK records, and the input is sorted in runs of RUN records spilled to temporary
// files, then merged (an external sort). Order is bytewise, i.e. the order of the hex strings.
import fs from 'node:fs';
import path from 'node:path';
import { writeAllSync } from '../core/write-all.js';

export const DIGEST = 32;
/** Records per block read or written (256 KiB). */
export const BLOCK = 8192;
/** Records sorted in memory before a run is spilled to disk (16 MiB of digests). */
export const RUN = 1 << 19;

const HEX_CHARS = '0123456789abcdef';
// Two hex characters (by their two bytes) as one byte; -1 when not lowercase hex.
const PAIR = new Int16Array(65536).fill(-1);
for (let a = 0; a < 16; a++)
  for (let b = 0; b < 16; b++) PAIR[(HEX_CHARS.charCodeAt(a) << 8) | HEX_CHARS.charCodeAt(b)] = (a << 4) | b;
const BYTE_HEX: Uint16Array = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) t[i] = (HEX_CHARS.charCodeAt(i >> 4) << 8) | HEX_CHARS.charCodeAt(i & 15);
  return t;
})();

/** Parses 64 lowercase hex characters at src[from..] into dst[at..at+32); false if they are not. */
export function hexToDigest(src: Uint8Array, from: number, dst: Uint8Array, at: number): boolean {
  let bad = 0;
  for (let i = 0; i < DIGEST; i++) {
    const p = PAIR[(src[from + 2 * i]! << 8) | src[from + 2 * i + 1]!]!;
    bad |= p;
    dst[at + i] = p;
  }
  return bad >= 0;
}

/** Writes the digest at src[at..at+32) as 64 lowercase hex characters into dst[to..]. */
export function digestToHex(src: Uint8Array, at: number, dst: Uint8Array, to: number): void {
  for (let i = 0; i < DIGEST; i++) {
    const h = BYTE_HEX[src[at + i]!]!;
    dst[to + 2 * i] = h >> 8;
    dst[to + 2 * i + 1] = h & 255;
  }
}

export function digestHex(src: Uint8Array, at = 0): string {
  const b = Buffer.allocUnsafe(64);
  digestToHex(src, at, b, 0);
  return b.toString('latin1');
}

/** Bytewise order of two digests. */
export function compareDigests(a: Uint8Array, ai: number, b: Uint8Array, bi: number): number {
  for (let i = 0; i < DIGEST; i += 4) {
    const x = ((a[ai + i]! << 24) | (a[ai + i + 1]! << 16) | (a[ai + i + 2]! << 8) | a[ai + i + 3]!) >>> 0;
    const y = ((b[bi + i]! << 24) | (b[bi + i + 1]! << 16) | (b[bi + i + 2]! << 8) | b[bi + i + 3]!) >>> 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * A sorted stream of digests read block by block: records buf[pos*32 ..) up to `end`; when
 * pos reaches end, `refill()` loads the next block (end 0: the stream is over).
 */
export interface DigestCursor {
  buf: Buffer;
  pos: number;
  end: number;
  refill(): Promise<void>;
  close(): Promise<void>;
}

/** Whether the cursor has a record at pos (refilling as needed). */
export async function ready(c: DigestCursor): Promise<boolean> {
  if (c.pos < c.end) return true;
  await c.refill();
  return c.pos < c.end;
}

export class EmptyCursor implements DigestCursor {
  buf = Buffer.alloc(0);
  pos = 0;
  end = 0;
  async refill(): Promise<void> {}
  async close(): Promise<void> {}
}

/** Records of a file (from byte `offset`), in blocks. */
export class FileCursor implements DigestCursor {
  buf = Buffer.allocUnsafeSlow(BLOCK * DIGEST);
  pos = 0;
  end = 0;
  private at: number;
  private constructor(
    private fh: fs.promises.FileHandle,
    offset: number,
    private limit: number,
  ) {
    this.at = offset;
  }
  /** `count`: records to read (default: to the end of the file). */
  static async open(file: string, offset = 0, count?: number): Promise<FileCursor> {
    const fh = await fs.promises.open(file, 'r');
    const size = (await fh.stat()).size;
    const n = Math.floor((size - offset) / DIGEST);
    return new FileCursor(fh, offset, offset + Math.min(n, count ?? n) * DIGEST);
  }
  async refill(): Promise<void> {
    this.pos = 0;
    const want = Math.min(this.buf.length, this.limit - this.at);
    if (want <= 0) {
      this.end = 0;
      return;
    }
    let got = 0;
    while (got < want) {
      const { bytesRead } = await this.fh.read(this.buf, got, want - got, this.at + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    this.at += got;
    this.end = Math.floor(got / DIGEST);
  }
  async close(): Promise<void> {
    await this.fh.close().catch(() => undefined);
  }
}

/** A sorted buffer in memory (the input when it fits in one run). */
export class MemoryCursor implements DigestCursor {
  pos = 0;
  end: number;
  private given = false;
  constructor(
    public buf: Buffer,
    count: number,
  ) {
    this.end = count;
  }
  async refill(): Promise<void> {
    if (this.given) {
      this.pos = 0;
      this.end = 0;
    }
    this.given = true;
  }
  async close(): Promise<void> {}
}

/** A cursor that fills its blocks from a producer (merges), so every stream reads alike. */
abstract class ProducedCursor implements DigestCursor {
  buf = Buffer.allocUnsafeSlow(BLOCK * DIGEST);
  pos = 0;
  end = 0;
  async refill(): Promise<void> {
    this.pos = 0;
    this.end = await this.produce(this.buf, BLOCK);
  }
  /** Writes up to max records into out; returns how many (0: over). */
  protected abstract produce(out: Buffer, max: number): Promise<number>;
  abstract close(): Promise<void>;
}

/** The union of sorted streams, each digest once (a k-way merge on a small heap). */
export class MergeCursor extends ProducedCursor {
  private heap: number[] = [];
  private started = false;
  private last = Buffer.alloc(DIGEST);
  private hasLast = false;
  constructor(private inputs: DigestCursor[]) {
    super();
  }
  private less(i: number, j: number): boolean {
    const a = this.inputs[i]!;
    const b = this.inputs[j]!;
    return compareDigests(a.buf, a.pos * DIGEST, b.buf, b.pos * DIGEST) < 0;
  }
  private down(k: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * k + 1;
      if (l >= h.length) return;
      const m = l + 1 < h.length && this.less(h[l + 1]!, h[l]!) ? l + 1 : l;
      if (!this.less(h[m]!, h[k]!)) return;
      [h[k], h[m]] = [h[m]!, h[k]!];
      k = m;
    }
  }
  protected async produce(out: Buffer, max: number): Promise<number> {
    if (!this.started) {
      this.started = true;
      for (let i = 0; i < this.inputs.length; i++) if (await ready(this.inputs[i]!)) this.heap.push(i);
      for (let k = (this.heap.length >> 1) - 1; k >= 0; k--) this.down(k);
    }
    let n = 0;
    const h = this.heap;
    while (n < max && h.length > 0) {
      const c = this.inputs[h[0]!]!;
      const at = c.pos * DIGEST;
      if (!this.hasLast || compareDigests(c.buf, at, this.last, 0) !== 0) {
        c.buf.copy(out, n * DIGEST, at, at + DIGEST);
        c.buf.copy(this.last, 0, at, at + DIGEST);
        this.hasLast = true;
        n++;
      }
      c.pos++;
      if (c.pos === c.end && !(await ready(c))) {
        h[0] = h[h.length - 1]!;
        h.pop();
      }
      if (h.length > 0) this.down(0);
    }
    return n;
  }
  async close(): Promise<void> {
    await Promise.all(this.inputs.map((c) => c.close()));
  }
}

/**
 * base ∪ adds − removes, sorted: the snapshot once a plan is applied (adds are not in base,
 * removes are; anything else is tolerated and still gives the set).
 */
export class DeltaCursor extends ProducedCursor {
  private merged: MergeCursor;
  constructor(
    base: DigestCursor,
    adds: DigestCursor,
    private removes: DigestCursor,
  ) {
    super();
    this.merged = new MergeCursor([base, adds]);
  }
  protected async produce(out: Buffer, max: number): Promise<number> {
    const m = this.merged;
    const r = this.removes;
    let n = 0;
    while (n < max && (await ready(m))) {
      const at = m.pos * DIGEST;
      let drop = false;
      while (await ready(r)) {
        const c = compareDigests(r.buf, r.pos * DIGEST, m.buf, at);
        if (c < 0) r.pos++;
        else {
          drop = c === 0;
          break;
        }
      }
      if (!drop) {
        m.buf.copy(out, n * DIGEST, at, at + DIGEST);
        n++;
      }
      m.pos++;
    }
    return n;
  }
  async close(): Promise<void> {
    await Promise.all([this.merged.close(), this.removes.close()]);
  }
}

/** Appends digests to a file in blocks; `count` says how many went in. */
export class DigestWriter {
  private buf = Buffer.allocUnsafeSlow(BLOCK * DIGEST);
  private words = new Uint32Array(this.buf.buffer, this.buf.byteOffset, BLOCK * 8);
  private n = 0;
  count = 0;
  private constructor(
    private fd: number,
    readonly file: string,
  ) {}
  static create(file: string, prefix?: Buffer): DigestWriter {
    // Always a fresh name in a private folder: created here (O_EXCL), never through a link.
    const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
    const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    if (prefix) writeAllSync(fd, prefix);
    return new DigestWriter(fd, file);
  }
  add(src: Uint8Array, at: number): void {
    if (this.n === BLOCK) this.drain();
    this.buf.set(src.subarray(at, at + DIGEST), this.n * DIGEST);
    this.n++;
    this.count++;
  }
  /** Adds the digest at words[at..at+8) (a 4-byte-aligned view). */
  addWords(words: Uint32Array, at: number): void {
    if (this.n === BLOCK) this.drain();
    const o = this.n * 8;
    const w = this.words;
    for (let i = 0; i < 8; i++) w[o + i] = words[at + i]!;
    this.n++;
    this.count++;
  }

  private drain(): void {
    if (this.n) writeAllSync(this.fd, this.buf.subarray(0, this.n * DIGEST));
    this.n = 0;
  }
  /** Writes what is left and syncs it to disk (a snapshot must survive a power cut before it counts). */
  finish(): void {
    this.drain();
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
  }
  /** Writes what is left, without syncing (temporary files). */
  close(): void {
    this.drain();
    fs.closeSync(this.fd);
  }

  abort(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
    fs.rmSync(this.file, { force: true });
  }
}

/** Writes every record of a cursor (and closes it); returns the count. */
export async function drainTo(c: DigestCursor, w: DigestWriter): Promise<number> {
  try {
    while (await ready(c)) {
      for (; c.pos < c.end; c.pos++) w.add(c.buf, c.pos * DIGEST);
    }
  } finally {
    await c.close();
  }
  return w.count;
}

/**
 * Sorts digests of any count in bounded memory: runs of RUN records are sorted in memory
 * (counting sort on the first two bytes, then each small bucket by insertion) and spilled to
 * `tmpDir`; `finish()` merges them, each digest once.
 */
export class DigestSorter {
  private run: Buffer;
  private n = 0;
  private spills: string[] = [];
  added = 0;
  constructor(
    private tmpDir: string,
    private runSize = RUN,
  ) {
    this.run = Buffer.allocUnsafeSlow(Math.min(runSize, BLOCK * 4) * DIGEST);
  }

  add(src: Uint8Array, at: number): void {
    if (this.n * DIGEST === this.run.length) {
      if (this.n === this.runSize) this.spill();
      else {
        // Grow towards a full run: a small input never pays for a 32 MiB buffer.
        const b = Buffer.allocUnsafeSlow(Math.min(this.runSize, this.n * 2) * DIGEST);
        this.run.copy(b, 0, 0, this.n * DIGEST);
        this.run = b;
      }
    }
    this.run.set(src.subarray(at, at + DIGEST), this.n * DIGEST);
    this.n++;
    this.added++;
  }

  /** Adds a digest given as 64 hex characters at src[from..]; false if they are not hex. */
  addHex(src: Uint8Array, from: number): boolean {
    if (this.n * DIGEST === this.run.length) {
      if (!hexToDigest(src, from, SCRATCH, 0)) return false;
      this.add(SCRATCH, 0);
      return true;
    }
    if (!hexToDigest(src, from, this.run, this.n * DIGEST)) return false;
    this.n++;
    this.added++;
    return true;
  }

  /** Writes the run, sorted and without repeats, to a file of its own (no second copy of the run in memory). */
  private spill(): void {
    const order = sortOrder(this.run, this.n);
    const file = path.join(this.tmpDir, `run-${this.spills.length}.bin`);
    const w = DigestWriter.create(file);
    try {
      // Word by word (the run buffer is its own, aligned): only equality matters here.
      const words = new Uint32Array(this.run.buffer, this.run.byteOffset, (this.n * DIGEST) >> 2);
      let prev = -1;
      for (let i = 0; i < this.n; i++) {
        const at = order[i]! * 8;
        if (prev >= 0 && sameWords(words, prev, at)) continue;
        w.addWords(words, at);
        prev = at;
      }
      w.close();
    } catch (e) {
      w.abort();
      throw e;
    }
    this.spills.push(file);
    this.n = 0;
  }

  /** The sorted, distinct digests. The sorter is spent afterwards. */
  async finish(): Promise<DigestCursor> {
    if (this.spills.length === 0) return new MemoryCursor(this.run, sortRun(this.run, this.n));
    if (this.n > 0) this.spill();
    // The run buffer is not needed for merging.
    this.run = Buffer.alloc(0);
    const inputs = await Promise.all(this.spills.map((f) => FileCursor.open(f)));
    return new MergeCursor(inputs);
  }
}

const SCRATCH = Buffer.alloc(DIGEST);

function sameWords(w: Uint32Array, a: number, b: number): boolean {
  for (let i = 0; i < 8; i++) if (w[a + i] !== w[b + i]) return false;
  return true;
}

/**
 * The order that sorts the first n digests of buf (n < 2^21). Each digest's first four bytes
 * and its index are packed into one exact double, so the engine's native typed-array sort
 * does the work; digests whose first four bytes tie (rare for SHA-256, common only in crafted
 * --hashed input) are then ordered by their whole 32 bytes.
 */
export function sortOrder(buf: Buffer, n: number): Uint32Array {
  if (n >= IDX) throw new Error(`a run holds at most ${IDX - 1} digests`);
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * DIGEST;
    keys[i] = (((buf[o]! << 24) | (buf[o + 1]! << 16) | (buf[o + 2]! << 8) | buf[o + 3]!) >>> 0) * IDX + i;
  }
  keys.sort();
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = keys[i]! % IDX;
  for (let i = 0; i < n; ) {
    const head = Math.floor(keys[i]! / IDX);
    let j = i + 1;
    while (j < n && Math.floor(keys[j]! / IDX) === head) j++;
    if (j - i > 1) {
      const part = Array.from(order.subarray(i, j)).sort((x, y) => compareDigests(buf, x * DIGEST, buf, y * DIGEST));
      order.set(part, i);
    }
    i = j;
  }
  return order;
}

/** Index space packed under the first four bytes of a digest in a sort key (32 + 21 bits: exact in a double). */
const IDX = 1 << 21;

/** Sorts the first n digests of buf in place and drops repeats; returns the distinct count. */
export function sortRun(buf: Buffer, n: number): number {
  if (n === 0) return 0;
  const order = sortOrder(buf, n);
  // Apply the permutation through a copy (simple and linear; the copy is freed right after).
  const src = Buffer.from(buf.subarray(0, n * DIGEST));
  let out = 0;
  for (let i = 0; i < n; i++) {
    const at = order[i]! * DIGEST;
    if (out > 0 && compareDigests(src, at, buf, (out - 1) * DIGEST) === 0) continue;
    src.copy(buf, out * DIGEST, at, at + DIGEST);
    out++;
  }
  return out;
}
