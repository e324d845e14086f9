// Worker thread entry: receives raw chunks, answers with normalized, hashed JSON fragments.
// One per core, so hashing (the expensive part) runs in parallel with reading and sending.
// Buffers go round (see WorkerPool): the input chunk goes back with the answer, and fragment
// buffers the main thread has batched come back here to be written into again.
import { parentPort, workerData } from 'node:worker_threads';
import { processChunk, type ProcessorConfig } from './chunk-processor.js';

const cfg = workerData as ProcessorConfig;
const spares: ArrayBuffer[] = [];
parentPort!.on('message', (m: { seq: number; buf: Uint8Array } | { spare: ArrayBuffer }) => {
  if ('spare' in m) {
    if (spares.length < 2) spares.push(m.spare);
    // One too many goes back to be dropped by the main thread, whose GC runs often. This thread
    // allocates almost nothing per record, so a buffer dropped here could wait out the whole run.
    else parentPort!.postMessage({ unused: m.spare }, [m.spare]);
    return;
  }
  const r = processChunk(m.seq, m.buf, cfg, spares);
  const transfer = [r.ends.buffer as ArrayBuffer];
  // Buffer.from may hand out a slice of its shared pool; only a buffer of its own (ByteOut's,
  // or one larger than the pool) can be transferred.
  if (r.frags.byteLength && r.frags.buffer.byteLength > 8192) transfer.push(r.frags.buffer as ArrayBuffer);
  const input = m.buf.buffer as ArrayBuffer;
  if (input.byteLength > 8192 && input !== r.frags.buffer) transfer.push(input);
  parentPort!.postMessage(transfer.includes(input) ? { ...r, input } : r, transfer);
});
