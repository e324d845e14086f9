// Packs user fragments (in input order) into request bodies under the three limits of the
// upload endpoints (docs/contract.md, ads section 8): users per request (--batch-size), 2500 operations
// and 5,000,000 bytes per request. Batches are cut deterministically from the input, so a
// resumed run rebuilds exactly the batches the journal acknowledged.
import crypto from 'node:crypto';
import { MAX_BYTES, MAX_OPERATIONS } from '../contract/audience-users.js';

export interface BatchLimits {
  maxUsers: number;
  maxOps?: number;
  maxBytes?: number;
  /** Users per operation; default: all users of a request in one operation. */
  usersPerOp?: number;
}

export interface OperationShape {
  operationType: 'Update' | 'Delete';
  effectiveAt?: string;
  expiresAt?: string;
}

export interface Batch {
  index: number;
  users: number;
  ops: number;
  bytes: number;
  body: Buffer;
  /** Short digest of the first user: a resumed run checks it is rebuilding the same batch. */
  head: string;
}

/** Fragments as the hash workers deliver them: users each followed by a comma, and end offsets. */
export interface FragmentRun {
  frags: Uint8Array;
  ends: Int32Array;
}

interface Piece {
  run: FragmentRun;
  from: number; // user index, inclusive
  to: number; // exclusive
}

export class Batcher {
  private readonly maxUsers: number;
  private readonly perOp: number;
  private readonly maxBytes: number;
  private readonly opPrefix: Buffer;
  private readonly opSuffix = Buffer.from(']}}');
  private readonly opOverhead: number;
  private pieces: Piece[] = [];
  private users = 0;
  private userBytes = 0;
  private next = 0;
  /** Users of the first batch cut for being full: what a batch holds (for progress estimates). */
  fullUsers: number | undefined;
  /** Bodies given back (recycle) for the next batches: a few MB each, reused rather than left to the GC. */
  private spareBodies: Buffer[] = [];

  /**
   * `release` is called with each run once every one of its users is in a cut batch: its bytes
   * are no longer read (bodies are copies), so the caller may reuse its buffer.
   */
  constructor(
    limits: BatchLimits,
    shape: OperationShape,
    private readonly release?: (run: FragmentRun) => void,
  ) {
    const maxOps = limits.maxOps ?? MAX_OPERATIONS;
    this.perOp = Math.max(1, limits.usersPerOp ?? limits.maxUsers);
    this.maxUsers = Math.min(limits.maxUsers, maxOps * this.perOp);
    this.maxBytes = limits.maxBytes ?? MAX_BYTES;
    const params: string[] = [];
    if (shape.effectiveAt) params.push(`"effective_at":${JSON.stringify(shape.effectiveAt)}`);
    if (shape.expiresAt) params.push(`"expires_at":${JSON.stringify(shape.expiresAt)}`);
    this.opPrefix = Buffer.from(
      `{"operation_type":"${shape.operationType}","params":{${params.map((p) => p + ',').join('')}"users":[`,
    );
    this.opOverhead = this.opPrefix.length + this.opSuffix.length;
  }

  /** Bytes of a request holding n users whose fragments (with commas) take u bytes. */
  private bytesFor(n: number, u: number): number {
    const ops = Math.ceil(n / this.perOp);
    // "[" + ops joined by "," + "]"; each op drops its last user's trailing comma.
    return 1 + ops * this.opOverhead + u;
  }

  /** Adds a run of users; returns the batches that became full. */
  push(run: FragmentRun): Batch[] {
    const out: Batch[] = [];
    const n = run.ends.length;
    let i = 0;
    while (i < n) {
      const start = i === 0 ? 0 : run.ends[i - 1]!;
      const room = Math.min(n, i + (this.maxUsers - this.users));
      // Largest j in (i, room] whose bytes fit; fragments are ASCII, so length == bytes.
      let lo = i;
      let hi = room;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (this.bytesFor(this.users + (mid - i), this.userBytes + run.ends[mid - 1]! - start) <= this.maxBytes)
          lo = mid;
        else hi = mid - 1;
      }
      if (lo === i) {
        if (this.users === 0) throw new Error(`one user object is larger than the ${this.maxBytes}-byte request limit`);
        this.fullUsers ??= this.users;
        out.push(this.cut());
        continue;
      }
      this.pieces.push({ run, from: i, to: lo });
      this.users += lo - i;
      this.userBytes += run.ends[lo - 1]! - start;
      i = lo;
      if (this.users === this.maxUsers || lo < room) {
        this.fullUsers ??= this.users;
        out.push(this.cut());
      }
    }
    return out;
  }

  /** Gives a batch's body back once it is written or sent (nothing may read it afterwards). */
  recycle(body: Buffer): void {
    // Enough for the batches in flight; more would only hold memory.
    if (this.spareBodies.length < 2)
      this.spareBodies.push(Buffer.from(body.buffer, body.byteOffset, body.buffer.byteLength - body.byteOffset));
  }

  /** The last, partly filled batch (if any). */
  flush(): Batch | undefined {
    return this.users > 0 ? this.cut() : undefined;
  }

  private cut(): Batch {
    const parts: Uint8Array[] = [OPEN];
    let inOp = 0;
    let ops = 0;
    let lastPart = -1;
    const close = () => {
      // drop the last user's trailing comma
      const l = parts[lastPart]!;
      parts[lastPart] = l.subarray(0, l.length - 1);
      parts.push(this.opSuffix);
      inOp = 0;
    };
    for (const p of this.pieces) {
      let k = p.from;
      while (k < p.to) {
        if (inOp === 0) parts.push(ops++ === 0 ? this.opPrefix : Buffer.concat([COMMA, this.opPrefix]));
        const take = Math.min(p.to - k, this.perOp - inOp);
        const a = k === 0 ? 0 : p.run.ends[k - 1]!;
        parts.push(p.run.frags.subarray(a, p.run.ends[k + take - 1]!));
        lastPart = parts.length - 1;
        inOp += take;
        k += take;
        if (inOp === this.perOp) close();
      }
    }
    if (inOp > 0) close();
    parts.push(CLOSE);
    let size = 0;
    for (const x of parts) size += x.length;
    const spare = this.spareBodies.findIndex((x) => x.length >= size);
    const body = (spare >= 0 ? this.spareBodies.splice(spare, 1)[0]! : Buffer.allocUnsafeSlow(size)).subarray(0, size);
    let o = 0;
    for (const x of parts) {
      body.set(x, o);
      o += x.length;
    }
    const p0 = this.pieces[0]!;
    const a0 = p0.from === 0 ? 0 : p0.run.ends[p0.from - 1]!;
    const head = crypto
      .createHash('sha1')
      .update(p0.run.frags.subarray(a0, p0.run.ends[p0.from]!))
      .digest('hex')
      .slice(0, 12);
    const b: Batch = { index: this.next++, users: this.users, ops, bytes: body.length, body, head };
    if (this.release) for (const p of this.pieces) if (p.to === p.run.ends.length) this.release(p.run);
    this.pieces = [];
    this.users = 0;
    this.userBytes = 0;
    return b;
  }
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');
