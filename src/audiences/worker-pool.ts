// The hash workers: one per core; a chunk's answer comes back in the order the chunk went in.
import { Worker } from 'node:worker_threads';
import type { ChunkResult, ProcessorConfig } from './chunk-processor.js';

type Waiter = { resolve: (r: ChunkResult) => void; reject: (e: Error) => void };

/**
 * Buffers go round: a worker hands each input chunk back with its answer (the reader fills it
 * again), and the main thread hands fragment buffers back once batched (a worker writes into
 * them again). Memory then stays flat by construction, rather than waiting for each thread's GC
 * to notice megabytes of dead buffers.
 */
// The command line's bundle (scripts/bundle.js) names its worker script; tsc's dist/ has it as
// hash-worker.js beside this module.
declare const XCTL_HASH_WORKER: string | undefined;
const HASH_WORKER = typeof XCTL_HASH_WORKER === 'string' ? XCTL_HASH_WORKER : './hash-worker.js';

export class WorkerPool {
  private workers: Array<{ w: Worker; queue: Waiter[] }> = [];
  private spareInputs: ArrayBuffer[] = [];
  private nextSpare = 0;

  constructor(n: number, cfg: ProcessorConfig) {
    for (let i = 0; i < n; i++) {
      // Small heaps: a worker holds only the chunk in hand, and V8 otherwise grows the heap lazily.
      const w = new Worker(new URL(HASH_WORKER, import.meta.url), {
        workerData: cfg,
        resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
      });
      const queue: Waiter[] = [];
      const slot = { w, queue };
      w.on('message', (m: (ChunkResult & { input?: ArrayBuffer }) | { unused: ArrayBuffer }) => {
        if ('unused' in m) return; // a spare the worker could not keep: dropped here, where GC runs often
        if (m.input) {
          if (this.spareInputs.length < 2) this.spareInputs.push(m.input);
          delete m.input;
        }
        slot.queue.shift()?.resolve(m);
      });
      w.on('error', (e) => {
        for (const q of slot.queue.splice(0)) q.reject(e);
      });
      this.workers.push(slot);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  run(seq: number, buf: Uint8Array): Promise<ChunkResult> {
    let best = this.workers[0]!;
    for (const s of this.workers) if (s.queue.length < best.queue.length) best = s;
    return new Promise((resolve, reject) => {
      best.queue.push({ resolve, reject });
      best.w.postMessage({ seq, buf }, [buf.buffer as ArrayBuffer]);
    });
  }

  /** An input buffer a worker gave back, of at least `size` bytes, if there is one. */
  takeInput(size: number): Buffer | undefined {
    const i = this.spareInputs.findIndex((b) => b.byteLength >= size);
    return i < 0 ? undefined : Buffer.from(this.spareInputs.splice(i, 1)[0]!);
  }

  /** Hands a fragment buffer back to a worker (only buffers of their own can move). */
  giveFrags(frags: Uint8Array): void {
    if (frags.byteLength === 0 || frags.buffer.byteLength <= 8192 || this.workers.length === 0) return;
    const s = this.workers[this.nextSpare++ % this.workers.length]!;
    s.w.postMessage({ spare: frags.buffer }, [frags.buffer as ArrayBuffer]);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((s) => s.w.terminate()));
  }
}
