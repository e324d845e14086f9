// The fast path of an audience upload body, read as it arrives: bodies in the compact shape
// clients like xctl send (one hashed value per user, no whitespace) are scanned chunk by chunk
// straight into a batch of binary digests, with no JSON objects, no string per user and no copy
// of the whole body (a 5 MB body is 80 socket chunks). Anything else, including every invalid
// body, ends as undefined: the route then parses the whole body as JSON, which gives the precise
// error. Nothing is checked against the clock or the state here (the route does that, after the
// credentials): the scan only says what the body holds.
import { parseDigestBytes } from './digest-set.js';
import { MAX_OPERATIONS } from '../contract/audience-users.js';

/** One operation of a scanned body: its users [from, to) and its times as raw JSON strings. */
export interface ScannedOp {
  del: boolean;
  from: number;
  to: number;
  effectiveAt?: string;
  expiresAt?: string;
}

/** What a compact body holds: per user its digest (8 words) and its type number. */
export class ScannedBatch {
  constructor(
    readonly ops: ScannedOp[],
    readonly words: Uint32Array,
    readonly types: Uint8Array,
    readonly total: number,
    /** The body's size in bytes. */
    readonly bytes: number,
  ) {}

  /** Gives the buffers back for the next body (nothing may read them afterwards). */
  release(): void {
    if (POOL.length < POOL_MAX) POOL.push({ words: this.words, types: this.types });
  }
}

// Buffers of the batches in flight, reused: fresh ones of a few MB per request are page faults
// to fill and garbage to collect. As many as a client has requests in flight (xctl: 4).
const POOL: Array<{ words: Uint32Array; types: Uint8Array }> = [];
const POOL_MAX = 4;

/** Buffers in the pool (for the tests). */
export function pooledBuffers(): number {
  return POOL.length;
}

function buffersFor(users: number): { words: Uint32Array; types: Uint8Array } {
  const i = POOL.findIndex((b) => b.types.length >= users);
  if (i >= 0) return POOL.splice(i, 1)[0]!;
  return { words: new Uint32Array(users * 8), types: new Uint8Array(users) };
}

// An operation's times are taken as printable ASCII without escapes: a raw control character is
// not JSON, and JSON.parse of the raw text would throw where the JSON path answers 400.
const OP_HEAD =
  /\{"operation_type":"(Update|Delete)","params":\{(?:"effective_at":("[ !#-[\]-~]*"),)?(?:"expires_at":("[ !#-[\]-~]*"),)?"users":\[/y;
const USER_HEAD = /\{"(email|device_id|handle|twitter_id|service_id|phone_number)":\["/y;
/** An operation's head is matched on this much text (a longer one takes the JSON path). */
const OP_WINDOW = 512;
const USER_WINDOW = 24;
/** Bytes of the next chunk joined to an unfinished token: more than any token takes. */
const JOIN = 2 * OP_WINDOW;

/** Where the scan is: what the next token must be. */
const State = { Start: 0, Op: 1, User: 2, OpEnd: 3, Done: 4, Failed: 5 } as const;

export class UploadScanner {
  private state: number = State.Start;
  private bytes = 0;
  private carry: Buffer | undefined;
  private ops: ScannedOp[] = [];
  private op: ScannedOp | undefined;
  private n = 0;
  private words: Uint32Array;
  private types: Uint8Array;
  /** The last user head seen (`{"email":["`) and its type: most bodies repeat one. */
  private head: Buffer | undefined;
  private type = 0;

  /**
   * `allowed`: the identifier types the list takes, by wire name, with their type numbers;
   * `bytes`: the body's Content-Length (its users are at least 70 bytes each), if known.
   */
  constructor(
    private readonly allowed: ReadonlyMap<string, number>,
    bytes?: number,
  ) {
    const b = buffersFor(bytes !== undefined && bytes > 0 ? Math.ceil(bytes / 70) + 1 : 1024);
    this.words = b.words;
    this.types = b.types;
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.state === State.Failed) return;
    let from = 0;
    if (this.carry) {
      // A token cut by the chunk's edge: finish it on the carry joined to the chunk's start.
      const carry = this.carry;
      const joined = Buffer.concat([carry, chunk.subarray(0, JOIN)]);
      const p = this.scan(joined, 0, false);
      this.carry = undefined;
      if (this.state === State.Failed) return;
      if (p < carry.length) {
        // Only when the chunk is shorter than JOIN: all of it is in `joined`.
        this.carry = Buffer.from(joined.subarray(p));
        return;
      }
      from = p - carry.length;
    }
    const p = this.scan(chunk, from, false);
    if (this.state === State.Failed || p >= chunk.length) return;
    this.carry = Buffer.from(chunk.subarray(p)); // a copy: the chunk is not kept
  }

  /** The batch, or undefined when the body is not in the compact shape (or is invalid). */
  end(): ScannedBatch | undefined {
    if (this.carry && this.state !== State.Failed) {
      const c = this.carry;
      this.carry = undefined;
      if (this.scan(c, 0, true) < c.length) this.state = State.Failed;
    }
    const batch = new ScannedBatch(this.ops, this.words, this.types, this.n, this.bytes);
    if (this.state === State.Done) return batch;
    batch.release();
    return undefined;
  }

  private fail(): number {
    this.state = State.Failed;
    return Number.MAX_SAFE_INTEGER;
  }

  /**
   * Takes every whole token of b[pos..): returns where the first unfinished one starts (b.length
   * when none is), unless the body ends here (`last`), where an unfinished token fails.
   */
  private scan(b: Buffer, pos: number, last: boolean): number {
    const len = b.length;
    for (;;) {
      switch (this.state) {
        case State.Start:
          if (pos >= len) return pos;
          if (b[pos] !== 91) return this.fail(); // [
          pos++;
          this.state = State.Op;
          break;
        case State.Op: {
          if (len - pos < OP_WINDOW && !last) return pos;
          const m = matchAt(OP_HEAD, b, pos, OP_WINDOW);
          if (!m) return this.fail();
          this.op = { del: m[1] === 'Delete', from: this.n, to: this.n };
          if (m[2] !== undefined) this.op.effectiveAt = m[2];
          if (m[3] !== undefined) this.op.expiresAt = m[3];
          pos += OP_HEAD.lastIndex;
          this.head = undefined;
          this.state = State.User;
          break;
        }
        case State.User: {
          pos = this.run(b, pos);
          const next = this.user(b, pos, last);
          if (next < 0) return pos;
          pos = next;
          break;
        }
        case State.OpEnd: {
          if (len - pos < 3) return last ? this.fail() : pos;
          if (b[pos] !== 125 || b[pos + 1] !== 125) return this.fail(); // }}
          const c = b[pos + 2];
          pos += 3;
          this.op!.to = this.n;
          this.ops.push(this.op!);
          // Over the limit: the JSON path gives the error.
          if (this.ops.length > MAX_OPERATIONS) return this.fail();
          // , another operation; ] the end
          if (c === 44) this.state = State.Op;
          else if (c === 93) this.state = State.Done;
          else return this.fail();
          break;
        }
        case State.Done:
          return pos < len ? this.fail() : pos;
        default:
          return this.fail();
      }
    }
  }

  /**
   * The users of a run that repeat the last head (usually the whole operation): each checked as
   * user() checks it, in one loop over the chunk instead of a pass of the state machine per
   * user. Stops where user() must take over: another head, the operation's last user, a record
   * cut by the chunk's edge, a full buffer, or anything not valid (user() then fails on it).
   * Returns the position after the users taken.
   */
  private run(b: Buffer, pos: number): number {
    const head = this.head;
    if (!head) return pos;
    const words = this.words;
    const types = this.types;
    const type = this.type;
    const hl = head.length;
    const end = b.length - (hl + 68);
    const cap = types.length;
    let n = this.n;
    while (pos <= end && n < cap && sameBytes(b, pos, head)) {
      const at = pos + hl;
      // Not a digest, not `"]}`, or not followed by a comma: user() decides (and fails).
      if (b[at + 67] !== 44 || b[at + 64] !== 34 || b[at + 65] !== 93 || b[at + 66] !== 125) break;
      if (!parseDigestBytes(b, at, words, n * 8)) break;
      types[n++] = type;
      pos = at + 68;
    }
    this.n = n;
    return pos;
  }

  /** One user and the separator after it: the position after them, or -1 for more bytes. */
  private user(b: Buffer, pos: number, last: boolean): number {
    const len = b.length;
    let at: number;
    const head = this.head;
    if (head && len - pos >= head.length && sameBytes(b, pos, head)) at = pos + head.length;
    else {
      if (len - pos < USER_WINDOW && !last) return -1;
      const u = matchAt(USER_HEAD, b, pos, USER_WINDOW);
      const type = u ? this.allowed.get(u[1]!) : undefined;
      if (!u || type === undefined) return this.fail();
      this.head = Buffer.from(u[0], 'latin1');
      this.type = type;
      at = pos + USER_HEAD.lastIndex;
    }
    if (len - at < 68) return last ? this.fail() : -1;
    if (this.n === this.types.length) this.grow();
    if (!parseDigestBytes(b, at, this.words, this.n * 8)) return this.fail();
    if (b[at + 64] !== 34 || b[at + 65] !== 93 || b[at + 66] !== 125) return this.fail(); // "]}
    this.types[this.n++] = this.type;
    const c = b[at + 67];
    // , another user; ] the operation's last
    if (c === 93) this.state = State.OpEnd;
    else if (c !== 44) return this.fail();
    return at + 68;
  }

  private grow(): void {
    const words = new Uint32Array(this.words.length * 2);
    const types = new Uint8Array(this.types.length * 2);
    words.set(this.words);
    types.set(this.types);
    this.words = words;
    this.types = types;
  }
}

function matchAt(re: RegExp, b: Buffer, pos: number, window: number): RegExpExecArray | null {
  re.lastIndex = 0;
  return re.exec(b.toString('latin1', pos, Math.min(b.length, pos + window)));
}

function sameBytes(b: Buffer, at: number, what: Buffer): boolean {
  for (let i = 0; i < what.length; i++) if (b[at + i] !== what[i]) return false;
  return true;
}
