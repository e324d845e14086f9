// Worker thread entry: receives raw chunks, answers with normalized, hashed JSON fragments.
// One per core, so hashing (the expensive part) runs in parallel with reading and sending.
import { parentPort, workerData } from 'node:worker_threads';
import { processChunk, type ProcessorConfig } from './chunk-processor.js';

const cfg = workerData as ProcessorConfig;
parentPort!.on('message', (m: { seq: number; buf: Uint8Array }) => {
  const r = processChunk(m.seq, m.buf, cfg);
    const transfer = [r.ends.buffer as ArrayBuffer];
  // Buffer.from may hand out a slice of its shared pool; only a buffer of its own (ByteOut's,
  // or one larger than the pool) can be transferred.
  if (r.frags.byteLength && r.frags.buffer.byteLength > 8192) transfer.push(r.frags.buffer as ArrayBuffer);
  parentPort!.postMessage(r, transfer);
});
