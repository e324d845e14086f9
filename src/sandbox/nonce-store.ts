// OAuth 1.0a nonces seen, for replay detection, in bounded memory. A sandbox CI keeps up for hours
// at thousands of requests a second would otherwise keep every nonce of the last 15 minutes
// (hundreds of MB). Past `cap` entries the oldest are forgotten, and so that a forgotten nonce
// cannot be replayed, no timestamp at or before the newest forgotten one is accepted any more
// (at 5,000 requests a second the default cap still remembers the last ~40 s).

export const NONCE_CAP = 200_000;

export class NonceStore {
  /** key (ending in `:timestamp`) -> expiry (ms), in insertion order, so expiries only grow. */
  private readonly seen = new Map<string, number>();
  /** Timestamps at or below this were forgotten: refused. */
  private floorTs = Number.NEGATIVE_INFINITY;

  constructor(public cap = NONCE_CAP) {}

  get size(): number {
    return this.seen.size;
  }

  /** Records the nonce; false when it was seen, or its timestamp is older than what was forgotten. */
  use(key: string, ts: number, now: number, ttlMs: number): boolean {
    for (const [k, exp] of this.seen) {
      if (exp < now) this.seen.delete(k);
      else break;
    }
    if (ts <= this.floorTs || this.seen.has(key)) return false;
    this.seen.set(key, now + ttlMs);
    for (const k of this.seen.keys()) {
      if (this.seen.size <= this.cap) break;
      this.seen.delete(k);
      const forgotten = Number(k.slice(k.lastIndexOf(':') + 1));
      if (forgotten > this.floorTs) this.floorTs = forgotten;
    }
    return true;
  }
}
