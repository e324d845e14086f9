// The one-email-per-line path works on the raw bytes (no decoding, no per-record strings) for
// speed. It must give exactly what the string rules give (prepare('email', ...) on each decoded
// line): checked here line by line against that reference, on awkward input.
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { processChunk, type ProcessorConfig } from '../../src/audiences/chunk-processor.js';
import { prepare } from '../../src/audiences/normalize.js';

const cfg: ProcessorConfig = { format: 'lines', columns: [{ type: 'email', name: 'email', index: 0 }], hashed: false };

/** The string rules, line by line, over the chunk decoded as a whole. */
function reference(bytes: Uint8Array) {
  const text = new TextDecoder('utf-8').decode(bytes);
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  let frags = '';
  let read = 0;
  let digestLine = 0;
  const rejects: Array<[number, string, string]> = [];
  // Bytes that are not UTF-8 decode to U+FFFD: such a value is rejected, never hashed.
  const badUtf8 = !isUtf8(bytes);
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    read++;
    if (badUtf8 && raw.includes('\uFFFD')) return void rejects.push([i + 1, 'email', 'not valid UTF-8']);
    const p = prepare('email', raw, false);
    if ('digest' in p) digestLine ||= i + 1;
    else if ('reason' in p) rejects.push([i + 1, 'email', p.reason]);
    else frags += `{"email":["${p.value}"]},`;
  });
  return { frags, read, digestLine, rejects, lines: text === '' ? 0 : lines.length };
}

const AWKWARD = [
  'a@b.c',
  ' First.Last@Example.COM ',
  'x@y\r',
  '',
  '   ',
  '\t\v\f',
  'no-at',
  '@x',
  'x@',
  'a@@b',
  'a b@c',
  'a\u000bb@c',
  'Ünï@Cödé.de',
  '\u00a0nb@sp.com\u00a0',
  '\ufeffbom@x.com',
  'İ@x.com',
  'ß@X.COM',
  'A'.repeat(64),
  'abcdef0123456789'.repeat(4),
  'abcdef0123456789'.repeat(4) + '0',
  'é@é',
  'x'.repeat(300) + '@y.com',
  'q@w\u2028',
  'MIXED@CASE.Org\r',
  '\u3000',
  'z@z\u0085',
  'user@x',
  'user@x..com',
  'a@.com',
  'a@b.',
  'a.b@c.d',
  'a..b@c.d',
  '.a@b.c',
];

function check(bytes: Uint8Array): void {
  const r = processChunk(0, bytes, cfg);
  const want = reference(bytes);
  expect(Buffer.from(r.frags).toString('latin1')).toBe(want.frags);
  expect(r.ends.length).toBe(r.valid);
  expect([r.read, r.digestLine, r.rejects, r.lines]).toEqual([want.read, want.digestLine, want.rejects, want.lines]);
}

describe('one email per line, on bytes', () => {
  it('matches the string rules on every awkward line, alone and with CRLF', () => {
    for (const l of AWKWARD) {
      check(new TextEncoder().encode(l + '\n'));
      check(new TextEncoder().encode(`a@b.c\r\n${l}\r\nC@D.E`));
    }
  });
  it('matches them on random mixes, a leading byte order mark and invalid UTF-8', () => {
    let seed = 7;
    const rnd = (k: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % k;
    };
    for (let t = 0; t < 500; t++) {
      const lines = Array.from({ length: rnd(8) }, () => AWKWARD[rnd(AWKWARD.length)]!);
      let text = lines.join(rnd(2) ? '\n' : '\r\n') + (rnd(2) ? '\n' : '');
      if (rnd(4) === 0) text = '\ufeff' + text;
      let bytes = new TextEncoder().encode(text);
      if (rnd(5) === 0) bytes = new Uint8Array([...bytes, 0xe2, 0x82, 10, 0xc3, 0x41, 0x40, 0x42, 10, 0xff]);
      check(bytes);
    }
  });
  it('hashes the lowercased, trimmed address (the docs/contract.md, notes vector shape)', () => {
    const r = processChunk(0, new TextEncoder().encode('  AdsApi@Example.com \n'), cfg);
    const p = prepare('email', 'adsapi@example.com', false) as { value: string };
    expect(Buffer.from(r.frags).toString('latin1')).toBe(`{"email":["${p.value}"]},`);
  });
});
