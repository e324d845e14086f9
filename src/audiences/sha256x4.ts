// Multi-buffer SHA-256 for the upload's hot path: messages are copied into WebAssembly memory
// and hashed four at a time with 128-bit SIMD (scripts/sha256x4-wasm.js), digests written as
// lowercase hex beside them. Per short message this costs about half of crypto.hash, whose
// per-call work (argument checks, a fresh digest context, a new hex string) dominates the
// hashing itself for values of a few dozen bytes (BENCHMARKS.md).
import { IN, LENS, MAX, MAX_LEN, OUT, WASM_BASE64 } from './sha256x4-wasm.js';

export { MAX, MAX_LEN };

export interface Sha256x4 {
  /** The module's memory: message i goes at slotOffset(i), its hex digest comes at hexOffset(i). */
  readonly mem: Uint8Array;
  readonly lens: Int32Array;
  /** A 64-byte view of digest i's hex, made once per slot (no allocation per message). */
  readonly hexViews: Uint8Array[];
  /** Hashes messages 0..n-1 (their bytes and lengths in place; the rest of each slot zero). */
  hash(n: number): void;
}

export const slotOffset = (i: number): number => IN + i * 64;

// The lib settings (ES2023, no DOM) do not declare WebAssembly: just what is used here.
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: { memory: { buffer: ArrayBuffer }; hash: (n: number) => void } };
}

let made: Sha256x4 | null | undefined;

/** The hasher, or null where WebAssembly SIMD is unavailable (the caller then uses crypto.hash). */
export function sha256x4(): Sha256x4 | null {
  if (made !== undefined) return made;
  try {
    // Node's types (no DOM lib here) do not declare the WebAssembly global: `Wasm` is the part used.
    const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
    const instance = new wasm.Instance(new wasm.Module(Buffer.from(WASM_BASE64, 'base64')));
    const { memory, hash: raw } = instance.exports;
    const mem = new Uint8Array(memory.buffer);
    const lens = new Int32Array(memory.buffer, LENS, MAX);
    const hexViews = Array.from({ length: MAX }, (_, i) => mem.subarray(OUT + i * 64, OUT + i * 64 + 64));
    made = {
      mem,
      lens,
      hexViews,
      hash(n: number) {
        // Four lanes per step: the slots after n up to the next multiple of 4 are hashed as empty
        // messages (they are zero) and ignored.
        const m = (n + 3) & ~3;
        for (let i = n; i < m; i++) lens[i] = 0;
        raw(m);
      },
    };
  } catch {
    made = null;
  }
  return made;
}
