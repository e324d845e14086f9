// The sandbox's scan of audience upload bodies as they arrive: the same answer whatever the
// chunks, and undefined (the JSON path) for anything not in the compact shape.
import { describe, expect, it } from 'vitest';
import { ScannedBatch, UploadScanner } from '../../src/sandbox/upload-scan.js';
import { parseDigest } from '../../src/sandbox/digest-set.js';
import { sha256Hex } from '../../src/audiences/normalize.js';

const TYPES = new Map([
  ['email', 0],
  ['device_id', 1],
  ['handle', 2],
  ['twitter_id', 3],
  ['service_id', 3],
  ['phone_number', 4],
]);

function scan(body: Buffer, cuts: number[], types = TYPES): ScannedBatch | undefined {
  const s = new UploadScanner(types, body.length);
  let at = 0;
  for (const c of [...cuts, body.length]) {
    s.push(body.subarray(at, c));
    at = c;
  }
  return s.end();
}

function plain(b: ScannedBatch | undefined) {
  if (!b) return undefined;
  return {
    ops: b.ops,
    total: b.total,
    bytes: b.bytes,
    words: [...b.words.subarray(0, b.total * 8)],
    types: [...b.types.subarray(0, b.total)],
  };
}

const op = (type: string, users: string[], params = '') =>
  `{"operation_type":"${type}","params":{${params}"users":[${users.join(',')}]}}`;
const user = (key: string, i: number) => `{"${key}":["${sha256Hex(`${key}${i}`)}"]}`;

describe('UploadScanner', () => {
  const body = Buffer.from(
    `[${[
      op(
        'Update',
        Array.from({ length: 9 }, (_, i) => user(i % 3 ? 'email' : 'handle', i)),
        '"effective_at":"2026-01-01T00:00:00Z","expires_at":"2026-03-01T00:00:00Z",',
      ),
      op('Delete', [user('phone_number', 1), user('service_id', 2)]),
    ].join(',')}]`,
  );

  it('reads the compact shape the same at every cut, and in one piece', () => {
    const whole = scan(body, []);
    expect(whole?.total).toBe(11);
    expect(whole?.ops).toEqual([
      {
        del: false,
        from: 0,
        to: 9,
        effectiveAt: '"2026-01-01T00:00:00Z"',
        expiresAt: '"2026-03-01T00:00:00Z"',
      },
      { del: true, from: 9, to: 11 },
    ]);
    const w = new Uint32Array(8);
    parseDigest(sha256Hex('phone_number1'), w, 0);
    expect([...whole!.words.subarray(9 * 8, 10 * 8)]).toEqual([...w]);
    expect([...whole!.types.subarray(0, 11)]).toEqual([2, 0, 0, 2, 0, 0, 2, 0, 0, 4, 3]);
    const want = plain(whole);
    whole!.release();
    for (let c = 1; c < body.length; c++) {
      const got = scan(body, [c]);
      expect(plain(got)).toEqual(want);
      got!.release();
    }
    // Many small pieces: every token cut, some of them twice.
    const cuts = Array.from({ length: Math.floor(body.length / 7) }, (_, i) => (i + 1) * 7);
    expect(plain(scan(body, cuts))).toEqual(want);
  });

  it('grows past the size Content-Length suggests, and reads 50,000 users in 64 KB chunks', () => {
    const users = Array.from({ length: 50_000 }, (_, i) => user('email', i));
    const big = Buffer.from(`[${op('Update', users)}]`);
    const cuts = Array.from({ length: Math.floor(big.length / 65536) }, (_, i) => (i + 1) * 65536);
    const s = new UploadScanner(TYPES, 100);
    let at = 0;
    for (const c of [...cuts, big.length]) {
      s.push(big.subarray(at, c));
      at = c;
    }
    const b = s.end();
    expect(b?.total).toBe(50_000);
    const w = new Uint32Array(8);
    parseDigest(sha256Hex('email49999'), w, 0);
    expect([...b!.words.subarray(49_999 * 8, 50_000 * 8)]).toEqual([...w]);
  });

  it('checks every user of a run of one head: a bad one in the middle means the JSON path', () => {
    const h = sha256Hex('x');
    const run = (middle: string) => {
      const users = Array.from({ length: 7 }, (_, i) => user('email', i));
      users[3] = middle;
      return Buffer.from(`[${op('Update', users)}]`);
    };
    // A different head in the middle ends the run and starts another: still the compact shape.
    const mixed = scan(run(user('handle', 3)), []);
    expect([...mixed!.types.subarray(0, 7)]).toEqual([0, 0, 0, 2, 0, 0, 0]);
    mixed!.release();
    const bad = [
      `{"email":["${h.toUpperCase()}"]}`,
      `{"email":["${h.slice(0, 40)}g${h.slice(41)}"]}`,
      `{"email":["${h.slice(1)}"]}`,
      `{"email":["${h}0"]}`,
      `{"email":["${h}","${h}"]}`,
      `{"email":["${h}"],"handle":["${h}"]}`,
      `{"email":["${h}"}`,
      `{"email":["${h}"]]`,
      `{"email":["${h}"]} `,
      `{"emaul":["${h}"]}`,
    ];
    for (const middle of bad) {
      const b = run(middle);
      expect(scan(b, []), middle).toBeUndefined();
      for (let c = 1; c < b.length; c++) expect(scan(b, [c]), `${middle} cut at ${c}`).toBeUndefined();
    }
    // The separator after a run's user: a comma, or the operation's end; anything else fails.
    const two = op('Update', [user('email', 1), user('email', 2)]);
    const semi = Buffer.from(`[${two.replace('},{', '};{')}]`);
    expect(scan(semi, [])).toBeUndefined();
  });

  it('leaves everything else to the JSON path, at every cut', () => {
    const h = sha256Hex('x');
    const bad = [
      '',
      '[]',
      ` [${op('Update', [user('email', 1)])}]`,
      `[${op('Update', [user('email', 1)])}] `,
      `[${op('Update', [user('email', 1)])},]`,
      `[${op('Update', [user('email', 1)])}`,
      `[${op('Update', [user('email', 1)]).slice(0, -1)}]`,
      `[${op('Update', [`{"email":["${h.toUpperCase()}"]}`])}]`,
      `[${op('Update', [`{"email":["${h.slice(1)}"]}`])}]`,
      `[${op('Update', [`{"email":["${h}","${h}"]}`])}]`,
      `[${op('Update', [`{"email":["${h}"],"handle":["${h}"]}`])}]`,
      `[${op('Update', [`{"partner_user_id":["abc"]}`])}]`,
      `[${op('Update', [])}]`,
      `[${op('Upsert', [user('email', 1)])}]`,
      `[${op('Update', [user('email', 1)], '"effective_at":"a\\"b",')}]`,
      // Not a JSON string (a raw control character), or not ASCII: the JSON path's error.
      `[${op('Update', [user('email', 1)], '"effective_at":"2026-01-01\tT00:00:00Z",')}]`,
      `[${op('Update', [user('email', 1)], '"expires_at":"2026-01-01\nT00:00:00Z",')}]`,
      `[${op('Update', [user('email', 1)], '"effective_at":"2026-01-01T00:00:00Z\u00e9",')}]`,
      `[{"params":{"users":[${user('email', 1)}]},"operation_type":"Update"}]`,
    ];
    for (const text of bad) {
      const b = Buffer.from(text);
      expect(scan(b, []), text).toBeUndefined();
      for (let c = 1; c < b.length; c++) {
        expect(scan(b, [c]), `${text} cut at ${c}`).toBeUndefined();
      }
    }
    // A type the list does not take (do-not-reach lists: email and phone_number).
    const dnr = new Map([
      ['email', 0],
      ['phone_number', 4],
    ]);
    expect(scan(Buffer.from(`[${op('Update', [user('handle', 1)])}]`), [], dnr)).toBeUndefined();
    expect(scan(Buffer.from(`[${op('Update', [user('email', 1)])}]`), [], dnr)?.total).toBe(1);
  });
});
