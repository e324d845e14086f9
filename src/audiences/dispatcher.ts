// Batches from the batcher to the service: at most `concurrency` requests in flight, each
// acknowledgement recorded in the journal before it counts, bodies given back for reuse once
// nothing reads them, and a journal-acknowledged batch skipped on resume (after checking it is
// the same batch). The first failure stops new batches; those in flight finish (drain).
import type { Writable } from 'node:stream';
import { UsageError, type XctlError } from '../core/errors.js';
import type { Batch } from './batcher.js';
import { batchDigest, type AckEntry } from './journal.js';
import type { BatchFailed } from './sender.js';

export interface DispatcherConfig {
  concurrency: number;
  /** Ctrl-C: no new batch starts (those in flight finish). */
  signal: AbortSignal;
  /** Sends one batch until it is acknowledged; rejects with BatchFailed. Absent in a dry run. */
  send?: (b: Batch) => Promise<void>;
  /** Dry run --out: each body is written as one line instead of sent. */
  out?: Writable;
  journal?: {
    acked: Map<number, AckEntry>;
    /** Resolves once the acknowledgement is on disk (or `failed` is set). */
    ack(index: number, users: number, head: string, digest?: string): Promise<void> | void;
    failed?: XctlError;
  };
  /** Gives a body back to the batcher once nothing reads it. */
  recycle: (body: Buffer) => void;
  /** Called once a batch is acknowledged (after the journal has it). */
  onAck?: (b: Batch) => void;
}

export interface DispatchTally {
  /** Users sent (or packed, in a dry run). */
  sent: number;
  acknowledged: number;
  batches: number;
  resumed_batches: number;
}

export class Dispatcher {
  readonly tally: DispatchTally = { sent: 0, acknowledged: 0, batches: 0, resumed_batches: 0 };
  /** The batch that could not be delivered (the first one). */
  failure?: BatchFailed;
  /** Batches the journal acknowledged whose content has changed since: sent again. */
  changedBatches = 0;
  /** Input that must stop the run (set here, or by the reader through stop()). */
  inputError?: XctlError;
  private inflight = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly active = new Set<Promise<void>>();

  constructor(private readonly c: DispatcherConfig) {}

  /** True once nothing new may start: Ctrl-C, a failed batch, or bad input. */
  stopped(): boolean {
    return this.c.signal.aborted || !!this.failure || !!this.inputError || !!this.c.journal?.failed;
  }

  /** Stops the run for bad input found while reading. */
  stop(e: XctlError): void {
    this.inputError = e;
  }

  /** Takes one batch: resolves once it is written, skipped, or in flight (not acknowledged). */
  async dispatch(b: Batch): Promise<void> {
    const c = this.c;
    const t = this.tally;
    if (c.out) {
      const out = c.out;
      t.sent += b.users;
      t.batches++;
      out.write(b.body, () => c.recycle(b.body));
      if (!out.write('\n')) await new Promise<void>((r) => out.once('drain', () => r()));
      return;
    }
    const prev = c.journal?.acked.get(b.index);
    // The digest of the whole body, journaled with the acknowledgement: a resumed run compares it,
    // so a record changed in the middle of a batch is noticed (size, ends and first user are not enough).
    const digest = c.journal ? batchDigest(b.body) : undefined;
    if (prev?.digest && prev.digest !== digest) {
      this.changedBatches++; // the input changed under this batch: send it again
    } else if (prev) {
      if (prev.users !== b.users || prev.head !== b.head) {
        this.inputError = new UsageError(
          `batch ${b.index + 1} differs from the one the journal acknowledged: the input or its order changed`,
          {
            flag: '--restart',
            hint: 'pass --restart to upload from the top',
          },
        );
        return;
      }
      t.resumed_batches++;
      t.acknowledged += b.users;
      c.recycle(b.body);
      return;
    }
    if (!c.send) {
      t.sent += b.users;
      t.batches++;
      c.recycle(b.body);
      return;
    }
    while (this.inflight >= c.concurrency) await new Promise<void>((r) => this.waiters.push(r));
    if (this.stopped()) return c.recycle(b.body);
    this.inflight++;
    t.sent += b.users;
    const p = c
      .send(b)
      .then(
        async () => {
          // Acknowledged: the service read the whole body, so nothing still writes from it. The
          // slot is free at once; the batch counts once the journal has it on disk.
          c.recycle(b.body);
          this.release();
          if (c.journal) {
            await c.journal.ack(b.index, b.users, b.head, digest);
            if (c.journal.failed) return; // not journaled: sent again on resume
          }
          t.acknowledged += b.users;
          t.batches++;
          c.onAck?.(b);
        },
        (e: BatchFailed) => {
          this.release();
          // A batch stopped by Ctrl-C is not a failure: it is left for the next run.
          if (!this.failure && (e.message !== 'stopped' || !c.signal.aborted)) this.failure = e;
        },
      )
      .finally(() => this.active.delete(p));
    this.active.add(p);
  }

  /** Frees the slot of a batch whose answer came. */
  private release(): void {
    this.inflight--;
    this.waiters.shift()?.();
  }

  /** Waits for every batch in flight to be acknowledged (and journaled) or to fail. */
  async settle(): Promise<void> {
    await Promise.all([...this.active]);
  }
}
