// The multi-buffer SHA-256 (WebAssembly SIMD, four messages at a time) on the published vectors
// (FIPS 180-2 / NIST examples, the docs/contract.md, notes vector) and against crypto.hash on random
// messages; the upload's email path that uses it against the string rules (crypto.hash) on
// thousands of records; the committed module against its generator.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processChunk, type ProcessorConfig } from '../../src/audiences/chunk-processor.js';
import { prepare, sha256Hex } from '../../src/audiences/normalize.js';
import { MAX, MAX_LEN, sha256x4, slotOffset } from '../../src/audiences/sha256x4.js';

const x4 = sha256x4()!;

/** Hashes the messages (each at most MAX_LEN bytes) in one call and returns the hex digests. */
function hashAll(msgs: Uint8Array[]): string[] {
  msgs.forEach((m, i) => {
    x4.mem.set(m, slotOffset(i));
    x4.lens[i] = m.length;
  });
  x4.hash(msgs.length);
  return msgs.map((_, i) => Buffer.from(x4.hexViews[i]!).toString('latin1'));
}

const ascii = (s: string) => new TextEncoder().encode(s);

describe('multi-buffer SHA-256', () => {
  it('is available here (WebAssembly SIMD)', () => {
    expect(x4).toBeTruthy();
  });

  it('gives the published digests', () => {
    // FIPS 180-2 appendix B.1 ("abc"), the empty message (NIST CSRC examples), docs/contract.md, notes
    const vectors: Array<[string, string]> = [
      ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
      ['adsapi', sha256Hex('adsapi')],
    ];
    expect(sha256Hex('adsapi')).toMatch(/^49e0be2a[0-9a-f]{48}b9b1470d$/);
    // in each of the four lanes, and in a partial group
    for (let lane = 0; lane < 4; lane++) {
      const msgs = Array.from({ length: 4 }, (_, i) => ascii(i === lane ? vectors[lane % 3]![0] : 'filler'));
      expect(hashAll(msgs)[lane]).toBe(vectors[lane % 3]![1]);
    }
    expect(hashAll([ascii('abc')])).toEqual([vectors[0]![1]]);
    // FIPS 180-2 B.2 is 56 bytes: two blocks, beyond this hasher; the email path hands such
    // values to crypto.hash (checked below), whose answer must be the published one.
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('agrees with crypto.hash on random messages of every length it takes, batch after batch', () => {
    for (let round = 0; round < 20; round++) {
      const n = 1 + crypto.randomInt(MAX);
      const msgs = Array.from({ length: n }, (_, i) =>
        crypto.randomBytes(round === 0 ? i % (MAX_LEN + 1) : crypto.randomInt(MAX_LEN + 1)),
      );
      const got = hashAll(msgs);
      msgs.forEach((m, i) => expect(got[i], `length ${m.length}`).toBe(crypto.hash('sha256', m, 'hex')));
    }
  });

  it('is the module the generator makes', () => {
    const r = spawnSync(process.execPath, [path.join(__dirname, '../../scripts/sha256x4-wasm.js'), '--check'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('the email path through it', () => {
  const cfg: ProcessorConfig = {
    format: 'lines',
    columns: [{ type: 'email', name: 'email', index: 0 }],
    hashed: false,
  };

  it('matches the string rules (crypto.hash) on 20,000 records of 3-70 bytes, with rejects and non-ASCII between them', () => {
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const k = crypto.randomInt(100);
      if (k === 0) lines.push('not an email'.padEnd(crypto.randomInt(56), '-'));
      else if (k === 1) lines.push(`Ünï${i}@Cödé.de`);
      else if (k === 2) lines.push('ab'.repeat(32));
      else if (k === 3) lines.push('');
      else {
        // values of 3-70 bytes: both sides of MAX_LEN, and shorter than what a slot held before
        const len = 3 + crypto.randomInt(68);
        const tail = `${i % 10}@Ex.COM`.slice(-Math.max(3, Math.min(len - 1, 9)));
        lines.push(` ${'x'.repeat(Math.max(1, len - tail.length))}${tail}\t`);
      }
    }
    const bytes = ascii(lines.join('\n') + '\n');
    const r = processChunk(0, bytes, cfg);
    let want = '';
    let read = 0;
    const rejects: number[] = [];
    lines.forEach((raw, i) => {
      if (raw.trim() === '') return;
      read++;
      const p = prepare('email', raw, false);
      if ('value' in p) want += `{"email":["${p.value}"]},`;
      else if ('reason' in p) rejects.push(i + 1);
    });
    expect(Buffer.from(r.frags).toString('latin1')).toBe(want);
    expect(r.read).toBe(read);
    expect(r.rejects.map((x) => x[0])).toEqual(rejects);
    expect(r.valid).toBe(want.split('},').length - 1);
  });
});
