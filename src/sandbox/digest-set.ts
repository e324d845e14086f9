// An exact set of SHA-256 digests (given as 64 lowercase hex characters), stored as 32 binary
// bytes per entry in one open-addressing table. A JS Set of hex strings costs ~4x the memory
// and several times the time per insert; audience uploads put millions through here.

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = 10 + i;

/** Parses 64 lowercase hex characters into out[at..at+8); false when the value is not one. */
export function parseDigest(v: string, out: Uint32Array, at: number): boolean {
  if (v.length !== 64) return false;
  for (let i = 0; i < 8; i++) {
    let w = 0;
    for (let j = 0; j < 8; j++) {
      const c = v.charCodeAt(i * 8 + j);
      const h = c < 128 ? HEX[c]! : -1;
      if (h < 0) return false;
      w = (w << 4) | h;
    }
    out[at + i] = w >>> 0;
  }
  return true;
}

export class DigestSet {
  private cap = 1024;
  private words = new Uint32Array(this.cap * 8);
  private state = new Uint8Array(this.cap); // 0 empty, 1 full, 2 deleted
  private used = 0; // full + deleted
  size = 0;

  private find(src: Uint32Array, at: number): number {
    const mask = this.cap - 1;
    let i = src[at]! & mask;
    let firstFree = -1;
    for (;;) {
      const s = this.state[i]!;
      if (s === 0) return firstFree >= 0 ? -2 - firstFree : -2 - i;
      if (s === 1) {
        const b = i * 8;
        const w = this.words;
        if (w[b] === src[at] && w[b + 1] === src[at + 1] && w[b + 2] === src[at + 2] && w[b + 3] === src[at + 3] && w[b + 4] === src[at + 4] && w[b + 5] === src[at + 5] && w[b + 6] === src[at + 6] && w[b + 7] === src[at + 7]) return i;
      } else if (firstFree < 0) firstFree = i;
      i = (i + 1) & mask;
    }
  }

  /** Adds the digest at src[at..at+8). */
  add(src: Uint32Array, at: number): void {
    if ((this.used + 1) * 10 > this.cap * 6) this.grow();
    const f = this.find(src, at);
    if (f >= 0) return;
    const i = -2 - f;
    if (this.state[i] === 0) this.used++;
    this.state[i] = 1;
    const w = this.words;
    const b = i * 8;
    for (let k = 0; k < 8; k++) w[b + k] = src[at + k]!;
    this.size++;
  }

  delete(src: Uint32Array, at: number): void {
    const f = this.find(src, at);
    if (f < 0) return;
    this.state[f] = 2;
    this.size--;
  }

  private grow(): void {
    const oldW = this.words;
    const oldS = this.state;
    const oldCap = this.cap;
    if (this.size * 10 > oldCap * 3) this.cap *= 2; // else only tombstones: rebuild at the same size
    this.words = new Uint32Array(this.cap * 8);
    this.state = new Uint8Array(this.cap);
    this.used = 0;
    this.size = 0;
    for (let i = 0; i < oldCap; i++) if (oldS[i] === 1) this.add(oldW, i * 8);
  }
}
