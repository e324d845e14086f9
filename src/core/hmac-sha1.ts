// HMAC-SHA1 (RFC 2104, FIPS 180-4) in JavaScript, for OAuth 1.0a signatures: one signature per
// request over a few hundred bytes. Loading node:crypto for it cost every signed command about
// 4 ms (a dozen internal modules: ciphers, keys, X.509...), more than the whole signature.
// Checked against node:crypto and RFC 2202's vectors (test/unit/hmac-sha1.test.ts).
// node:crypto is called here only without /dev/urandom.
import crypto from 'node:crypto';
import fs from 'node:fs';

/** SHA-1 of `data`: 20 bytes. */
export function sha1(data: Uint8Array): Uint8Array {
  const bitLen = data.length * 8;
  const padded = new Uint8Array((((data.length + 8) >> 6) + 1) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLen / 2 ** 32));
  view.setUint32(padded.length - 4, bitLen >>> 0);
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new Int32Array(80);
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getInt32(off + i * 4);
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!;
      w[i] = (x << 1) | (x >>> 31);
    }
    let [a, b, c, d, e] = h as [number, number, number, number, number];
    for (let i = 0; i < 80; i++) {
      let f: number;
      let k: number;
      if (i < 20) [f, k] = [(b & c) | (~b & d), 0x5a827999];
      else if (i < 40) [f, k] = [b ^ c ^ d, 0x6ed9eba1];
      else if (i < 60) [f, k] = [(b & c) | (b & d) | (c & d), 0x8f1bbcdc];
      else [f, k] = [b ^ c ^ d, 0xca62c1d6];
      const t = (((a << 5) | (a >>> 27)) + f + e + k + w[i]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h[0] = (h[0]! + a) | 0;
    h[1] = (h[1]! + b) | 0;
    h[2] = (h[2]! + c) | 0;
    h[3] = (h[3]! + d) | 0;
    h[4] = (h[4]! + e) | 0;
  }
  const out = new Uint8Array(20);
  const ov = new DataView(out.buffer);
  h.forEach((x, i) => ov.setInt32(i * 4, x));
  return out;
}

/** HMAC-SHA1 of the UTF-8 `message` under the UTF-8 `key`, base64 (what OAuth 1.0a sends). */
export function hmacSha1Base64(key: string, message: string): string {
  let k: Uint8Array = Buffer.from(key, 'utf8');
  if (k.length > 64) k = sha1(k);
  const msg = Buffer.from(message, 'utf8');
  const inner = new Uint8Array(64 + msg.length);
  const outer = new Uint8Array(64 + 20);
  for (let i = 0; i < 64; i++) {
    inner[i] = (k[i] ?? 0) ^ 0x36;
    outer[i] = (k[i] ?? 0) ^ 0x5c;
  }
  inner.set(msg, 64);
  outer.set(sha1(inner), 64);
  return Buffer.from(sha1(outer)).toString('base64');
}

/** `n` random bytes as hex, from the kernel's generator (node:crypto only where there is none). */
export function randomHex(n: number): string {
  const buf = Buffer.alloc(n);
  let fd: number | undefined;
  try {
    fd = fs.openSync('/dev/urandom', 'r');
    if (fs.readSync(fd, buf, 0, n, null) === n) return buf.toString('hex');
  } catch {
    // No /dev/urandom (Windows): below.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  return crypto.randomBytes(n).toString('hex');
}
