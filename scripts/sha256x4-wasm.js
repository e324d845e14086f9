#!/usr/bin/env node
// Writes src/audiences/sha256x4-wasm.ts: a WebAssembly SIMD SHA-256 that hashes four
// single-block messages (up to 55 bytes) at once, one message per 32-bit lane, and writes each
// digest as lowercase hex. The text format below is generated (transposition and hex encoding
// unrolled; schedule and rounds as loops: V8 runs them as fast as fully unrolled rounds, from a
// quarter of the code and far less compilation memory) and assembled by wabt; the output is committed, and
// test/unit/sha256x4.test.ts checks that it is what this script makes.
//   node scripts/sha256x4-wasm.js          rewrite the module
//   node scripts/sha256x4-wasm.js --check  exit 1 if the committed module differs
// Memory: message slots of 64 bytes at IN (bytes of the message, zero after them), lengths as
// i32 at LENS, hex digests (64 bytes each) at OUT. hash(n) hashes slots 0..n-1 (n a multiple of
// 4, at most MAX), pads in place and zeroes the slots again for the next batch.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
];
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
const MAX = 1024;
const IN = 0;
const LENS = IN + MAX * 64;
const OUT = LENS + MAX * 4;
// the message schedule of the current step (64 words x 4 lanes) and the round constants, 4 lanes each
const WAREA = OUT + MAX * 64;
const KAREA = WAREA + 1024;
const PAGES = Math.ceil((KAREA + 1024) / 65536);
const L = [];
const e = (s) => L.push(s);
const i32 = (x) => `(i32.const ${x | 0})`;
const splat = (x) => `(v128.const i32x4 ${x | 0} ${x | 0} ${x | 0} ${x | 0})`;
const rotr = (x, n) => `(v128.or (i32x4.shr_u ${x} (i32.const ${n})) (i32x4.shl ${x} (i32.const ${32 - n})))`;
// byte reverse within each 32-bit word
const BSWAP = '3 2 1 0 7 6 5 4 11 10 9 8 15 14 13 12';

e('(module');
e(`(memory (export "memory") ${PAGES})`);
const hexBytes = (k) =>
  [k & 255, (k >>> 8) & 255, (k >>> 16) & 255, k >>> 24].map((x) => '\\' + x.toString(16).padStart(2, '0')).join('');
e(`(data (i32.const ${KAREA}) "${K.map((k) => hexBytes(k).repeat(4)).join('')}")`);
e(
  '(func (export "hash") (param $n i32) (local $m i32) (local $base i32) (local $len i32) (local $lane i32) (local $slot i32) (local $t v128) (local $t1 v128) (local $t2 v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)',
);
for (let i = 0; i < 16; i++) e(`(local $w${i} v128)`);
for (const r of 'abcdefgh') e(`(local $${r} v128)`);
e(
  '(local $x0 v128) (local $x1 v128) (local $x2 v128) (local $x3 v128) (local $x4 v128) (local $x5 v128) (local $x6 v128) (local $x7 v128)',
);
e('(local $lo v128) (local $hi v128)');
e('(block $done (loop $next');
e('(br_if $done (i32.ge_u (local.get $m) (local.get $n)))');
// padding of the 4 slots
e('(local.set $lane (i32.const 0))');
e('(loop $pad');
e(`(local.set $slot (i32.add ${i32(IN)} (i32.shl (i32.add (local.get $m) (local.get $lane)) (i32.const 6))))`);
e(
  `(local.set $len (i32.load (i32.add ${i32(LENS)} (i32.shl (i32.add (local.get $m) (local.get $lane)) (i32.const 2)))))`,
);
e('(i32.store8 (i32.add (local.get $slot) (local.get $len)) (i32.const 0x80))');
// length in bits, big-endian, at slot+60 (len*8 < 2^16 here)
e('(i32.store8 offset=62 (local.get $slot) (i32.shr_u (i32.shl (local.get $len) (i32.const 3)) (i32.const 8)))');
e('(i32.store8 offset=63 (local.get $slot) (i32.and (i32.shl (local.get $len) (i32.const 3)) (i32.const 255)))');
e('(local.set $lane (i32.add (local.get $lane) (i32.const 1)))');
e('(br_if $pad (i32.lt_u (local.get $lane) (i32.const 4)))');
e(')');
e(`(local.set $base (i32.add ${i32(IN)} (i32.shl (local.get $m) (i32.const 6))))`);
// transpose + bswap: group g covers words 4g..4g+3
for (let g = 0; g < 4; g++) {
  for (let l = 0; l < 4; l++)
    e(
      `(local.set $a${l} (i8x16.shuffle ${BSWAP} (v128.load offset=${l * 64 + g * 16} (local.get $base)) (v128.const i32x4 0 0 0 0)))`,
    );
  // t = a0 b0 a1 b1 ; t1 = a2 b2 a3 b3 ; for c,d similarly
  e('(local.set $t (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a0) (local.get $a1)))');
  e('(local.set $t1 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a0) (local.get $a1)))');
  e('(local.set $t2 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a2) (local.get $a3)))');
  e('(local.set $a3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a2) (local.get $a3)))');
  e(`(local.set $w${4 * g} (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t) (local.get $t2)))`);
  e(
    `(local.set $w${4 * g + 1} (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t) (local.get $t2)))`,
  );
  e(
    `(local.set $w${4 * g + 2} (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t1) (local.get $a3)))`,
  );
  e(
    `(local.set $w${4 * g + 3} (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t1) (local.get $a3)))`,
  );
}
const regs = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
// schedule: w0..w15 to memory, then 48 more in a loop
for (let i = 0; i < 16; i++) e(`(v128.store offset=${WAREA + i * 16} (i32.const 0) (local.get $w${i}))`);
e('(local.set $lane (i32.const 256))');
e('(loop $sched');
{
  const at = (k) => `(v128.load offset=${WAREA - k * 16} (local.get $lane))`;
  e(`(local.set $t ${at(15)})`);
  e(`(local.set $t1 ${at(2)})`);
  const w15 = '(local.get $t)',
    w2 = '(local.get $t1)';
  const s0 = `(v128.xor (v128.xor ${rotr(w15, 7)} ${rotr(w15, 18)}) (i32x4.shr_u ${w15} (i32.const 3)))`;
  const s1 = `(v128.xor (v128.xor ${rotr(w2, 17)} ${rotr(w2, 19)}) (i32x4.shr_u ${w2} (i32.const 10)))`;
  e(
    `(v128.store offset=${WAREA} (local.get $lane) (i32x4.add (i32x4.add ${at(16)} ${s0}) (i32x4.add ${at(7)} ${s1})))`,
  );
}
e('(local.set $lane (i32.add (local.get $lane) (i32.const 16)))');
e('(br_if $sched (i32.lt_u (local.get $lane) (i32.const 1024)))');
e(')');
regs.forEach((r, i) => e(`(local.set $${r} ${splat(H0[i])})`));
e('(local.set $lane (i32.const 0))');
e('(loop $round');
{
  const [a, b, c, _d, ee, f, g, h] = regs.map((n) => `(local.get $${n})`);
  const S1 = `(v128.xor (v128.xor ${rotr(ee, 6)} ${rotr(ee, 11)}) ${rotr(ee, 25)})`;
  const ch = `(v128.xor (v128.and ${ee} ${f}) (v128.andnot ${g} ${ee}))`;
  e(
    `(local.set $t1 (i32x4.add (i32x4.add (i32x4.add ${h} ${S1}) (i32x4.add ${ch} (v128.load offset=${KAREA} (local.get $lane)))) (v128.load offset=${WAREA} (local.get $lane))))`,
  );
  const S0 = `(v128.xor (v128.xor ${rotr(a, 2)} ${rotr(a, 13)}) ${rotr(a, 22)})`;
  const maj = `(v128.or (v128.and ${a} ${b}) (v128.and ${c} (v128.or ${a} ${b})))`;
  e(`(local.set $t2 (i32x4.add ${S0} ${maj}))`);
  e('(local.set $h (local.get $g)) (local.set $g (local.get $f)) (local.set $f (local.get $e))');
  e('(local.set $e (i32x4.add (local.get $d) (local.get $t1)))');
  e('(local.set $d (local.get $c)) (local.set $c (local.get $b)) (local.set $b (local.get $a))');
  e('(local.set $a (i32x4.add (local.get $t1) (local.get $t2)))');
}
e('(local.set $lane (i32.add (local.get $lane) (i32.const 16)))');
e('(br_if $round (i32.lt_u (local.get $lane) (i32.const 1024)))');
e(')');
const names = [...regs];
// final: x_i = H0[i] + state
names.forEach((n, i) => e(`(local.set $x${i} (i32x4.add (local.get $${n}) ${splat(H0[i])}))`));
// transpose back: lanes l: words x0..x7 -> 32 bytes (BE). groups x0..x3 and x4..x7
const hexTable = '(v128.const i8x16 48 49 50 51 52 53 54 55 56 57 97 98 99 100 101 102)';
for (let half = 0; half < 2; half++) {
  const [p, q, r, s] = [0, 1, 2, 3].map((i) => `(local.get $x${half * 4 + i})`);
  e(`(local.set $t (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 ${p} ${q}))`);
  e(`(local.set $t1 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 ${p} ${q}))`);
  e(`(local.set $t2 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 ${r} ${s}))`);
  e(`(local.set $a3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 ${r} ${s}))`);
  e(`(local.set $a0 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t) (local.get $t2)))`);
  e(`(local.set $a1 (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t) (local.get $t2)))`);
  e(`(local.set $a2 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t1) (local.get $a3)))`);
  e(`(local.set $a3 (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t1) (local.get $a3)))`);
  for (let l = 0; l < 4; l++) {
    // bytes of lane l, words half*4.., big-endian
    e(`(local.set $t (i8x16.shuffle ${BSWAP} (local.get $a${l}) (v128.const i32x4 0 0 0 0)))`);
    e(`(local.set $hi (i8x16.shr_u (local.get $t) (i32.const 4)))`);
    e(`(local.set $lo (v128.and (local.get $t) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))`);
    const dst = `(i32.add ${i32(OUT)} (i32.shl (i32.add (local.get $m) (i32.const ${l})) (i32.const 6)))`;
    e(
      `(v128.store offset=${half * 32} ${dst} (i8x16.swizzle ${hexTable} (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $hi) (local.get $lo))))`,
    );
    e(
      `(v128.store offset=${half * 32 + 16} ${dst} (i8x16.swizzle ${hexTable} (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $hi) (local.get $lo))))`,
    );
  }
}
// re-zero the 4 slots
for (let k = 0; k < 16; k++) e(`(v128.store offset=${k * 16} (local.get $base) (v128.const i32x4 0 0 0 0))`);
e('(local.set $m (i32.add (local.get $m) (i32.const 4)))');
e('(br $next)');
e('))');
e(')');
e(')');

const wat = L.join('\n');
const wabt = await wabtInit();
const bytes = Buffer.from(wabt.parseWat('sha256x4.wat', wat, { simd: true }).toBinary({}).buffer);
const b64 = bytes.toString('base64');
const lines = [];
for (let i = 0; i < b64.length; i += 100) lines.push(`  '${b64.slice(i, i + 100)}'`);
const out = `// Generated by scripts/sha256x4-wasm.js: do not edit (see that script for the layout).
export const IN = ${IN};
export const LENS = ${LENS};
export const OUT = ${OUT};
/** Messages per hash() call at most. */
export const MAX = ${MAX};
/** Longest message: one block with its padding. */
export const MAX_LEN = 55;
export const WASM_BASE64 =
${lines.join(' +\n')};
`;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'src/audiences/sha256x4-wasm.ts');
if (process.argv.includes('--check')) {
  const same = fs.existsSync(file) && fs.readFileSync(file, 'utf8') === out;
  if (!same) console.error(`${file} is not what scripts/sha256x4-wasm.js makes: run it`);
  process.exit(same ? 0 : 1);
}
fs.writeFileSync(file, out);
console.log(`wrote ${file} (${bytes.length} bytes of WebAssembly)`);
