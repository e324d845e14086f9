// The OAuth 1.0a signature's HMAC-SHA1 in JavaScript (src/core/hmac-sha1.ts) against RFC 2202's
// test vectors and node:crypto on random keys and messages of every length around the block size.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha1Base64, randomHex, sha1 } from '../../src/core/hmac-sha1.js';

const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

describe('hmac-sha1', () => {
  it('gives the RFC 2202 vectors', () => {
    expect(hmacSha1Base64('\x0b'.repeat(20), 'Hi There')).toBe(b64('b617318655057264e28bc0b6fb378c8ef146be00'));
    expect(hmacSha1Base64('Jefe', 'what do ya want for nothing?')).toBe(
      b64('effcdf6ae5eb2fa2d27416d5f184df9c259a7c79'),
    );
    // A key longer than the block (80 bytes) is hashed first.
    expect(hmacSha1Base64('a'.repeat(80), 'x')).toBe(
      crypto.createHmac('sha1', 'a'.repeat(80)).update('x').digest('base64'),
    );
    expect(Buffer.from(sha1(Buffer.from('abc'))).toString('hex')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(Buffer.from(sha1(new Uint8Array(0))).toString('hex')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
  });

  it('agrees with node:crypto on keys and messages of every length from 0 to 200, UTF-8 included', () => {
    for (let n = 0; n <= 200; n++) {
      const key =
        crypto
          .randomBytes(n % 90)
          .toString('base64')
          .slice(0, n % 90) + (n % 7 === 0 ? 'é€' : '');
      const msg = crypto.randomBytes(n).toString('latin1') + (n % 5 === 0 ? '😀' : '');
      expect(hmacSha1Base64(key, msg), `n=${n}`).toBe(crypto.createHmac('sha1', key).update(msg).digest('base64'));
      const data = crypto.randomBytes(n);
      expect(Buffer.from(sha1(data)).toString('hex')).toBe(crypto.createHash('sha1').update(data).digest('hex'));
    }
  });

  it('makes random nonces', () => {
    const a = randomHex(16);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(randomHex(16)).not.toBe(a);
  });
});
