// The upload pipeline's parts on their own: the worker pool (order, buffers going round), the
// dispatcher (concurrency, ack -> journal, recycling, resume checks, drain on failure) and the
// outcome (exit and journal action for every way a run can end).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
// First: the pool starts real worker threads, which load the built hash-worker.js.
import '../helpers/hash-worker.js';
import type { Batch } from '../../src/audiences/batcher.js';
import { Dispatcher, type DispatcherConfig } from '../../src/audiences/dispatcher.js';
import { JournalWriteError, type AckEntry } from '../../src/audiences/journal.js';
import { uploadOutcome, type EndState } from '../../src/audiences/outcome.js';
import { BatchFailed } from '../../src/audiences/sender.js';
import { ApiError, AuthError, ExitCode, InterruptedError, PartialError, UsageError } from '../../src/core/errors.js';
import { sha256Hex } from '../../src/audiences/normalize.js';

import { WorkerPool } from '../../src/audiences/worker-pool.js';

function batch(index: number, users = 10): Batch {
  return { index, users, ops: 1, bytes: 3, body: Buffer.from(`[${index}]`), head: `h${index}` };
}

/** A send whose outcome the test decides, batch by batch. */
function manualSend() {
  const calls: Array<{ b: Batch; ok: () => void; fail: (e: Error) => void }> = [];
  let inflight = 0;
  let peak = 0;
  const send = (b: Batch) =>
    new Promise<void>((resolve, reject) => {
      inflight++;
      peak = Math.max(peak, inflight);
      calls.push({
        b,
        ok: () => {
          inflight--;
          resolve();
        },
        fail: (e) => {
          inflight--;
          reject(e);
        },
      });
    });
  return { send, calls, peak: () => peak };
}

function journal(acked: Array<[number, AckEntry]> = []) {
  const log: number[] = [];
  return { acked: new Map(acked), ack: (i: number, users: number, head: string) => (log.push(i), undefined), log };
}

const tick = () => new Promise((r) => setImmediate(r));

function dispatcher(over: Partial<DispatcherConfig> = {}) {
  const recycled: string[] = [];
  const ac = new AbortController();
  const d = new Dispatcher({ concurrency: 2, signal: ac.signal, recycle: (b) => recycled.push(b.toString()), ...over });
  return { d, recycled, ac };
}

describe('Dispatcher', () => {
  it('keeps at most --concurrency batches in flight; each ack goes to the journal, then counts; bodies come back once', async () => {
    const m = manualSend();
    const j = journal();
    const { d, recycled } = dispatcher({ send: m.send, journal: j });
    const feeding = (async () => {
      for (let i = 0; i < 5; i++) await d.dispatch(batch(i));
    })();
    await tick();
    expect(m.calls).toHaveLength(2); // the third waits for a slot
    m.calls[1]!.ok();
    await tick();
    expect(m.calls).toHaveLength(3);
    for (let k = 0; k < 5; k++) {
      await tick();
      for (const c of m.calls) c.ok();
    }
    await feeding;
    await d.settle();
    expect(m.peak()).toBe(2);
    expect(j.log[0]).toBe(1); // acknowledged first, journaled first
    expect(new Set(j.log)).toEqual(new Set([0, 1, 2, 3, 4]));
    expect(d.tally).toEqual({ sent: 50, acknowledged: 50, batches: 5, resumed_batches: 0 });
    expect(recycled.sort()).toEqual(['[0]', '[1]', '[2]', '[3]', '[4]']);
    expect(d.failure).toBeUndefined();
  });

  it('frees the slot when the answer comes, and counts a batch only once the journal has it on disk', async () => {
    const m = manualSend();
    const syncs: Array<() => void> = [];
    const j = {
      acked: new Map<number, AckEntry>(),
      failed: undefined as JournalWriteError | undefined,
      ack: () => new Promise<void>((r) => syncs.push(r)),
    };
    const { d } = dispatcher({ send: m.send, journal: j, concurrency: 1 });
    await d.dispatch(batch(0));
    m.calls[0]!.ok();
    await tick();
    expect(syncs).toHaveLength(1); // on its way to disk
    expect(d.tally.acknowledged).toBe(0);
    await d.dispatch(batch(1)); // the slot is free already
    expect(m.calls).toHaveLength(2);
    syncs[0]!();
    await tick();
    expect(d.tally).toEqual({ sent: 20, acknowledged: 10, batches: 1, resumed_batches: 0 });
    // A journal that failed: the batch is not counted (it is sent again on resume).
    m.calls[1]!.ok();
    await tick();
    j.failed = new JournalWriteError('disk full');
    syncs[1]!();
    await d.settle();
    expect(d.tally).toEqual({ sent: 20, acknowledged: 10, batches: 1, resumed_batches: 0 });
  });

  it('skips a batch the journal acknowledged, and refuses one that differs from it (the input changed)', async () => {
    const m = manualSend();
    const j = journal([
      [0, { users: 10, head: 'h0' }],
      [1, { users: 10, head: 'other' }],
    ]);
    const { d, recycled } = dispatcher({ send: m.send, journal: j });
    await d.dispatch(batch(0));
    expect(d.tally.resumed_batches).toBe(1);
    expect(d.tally.acknowledged).toBe(10);
    expect(recycled).toEqual(['[0]']);
    await d.dispatch(batch(1));
    expect(d.inputError).toBeInstanceOf(UsageError);
    expect(d.inputError!.message).toMatch(/batch 2 differs/);
    expect(d.stopped()).toBe(true);
    expect(m.calls).toHaveLength(0);
  });

  it('after a failed batch nothing new starts; those in flight still finish and are journaled', async () => {
    const m = manualSend();
    const j = journal();
    const { d, recycled } = dispatcher({ send: m.send, journal: j, concurrency: 2 });
    await d.dispatch(batch(0));
    await d.dispatch(batch(1));
    const third = d.dispatch(batch(2)); // waits for a slot
    m.calls[0]!.fail(new BatchFailed(0, new Error('HTTP 503'), false));
    await third;
    expect(d.stopped()).toBe(true);
    expect(m.calls).toHaveLength(2); // batch 2 was never sent
    expect(recycled).toContain('[2]');
    m.calls[1]!.ok();
    await d.settle();
    expect(j.log).toEqual([1]);
    expect(d.failure!.batch).toBe(0);
    expect(d.tally.acknowledged).toBe(10);
  });

  it('a batch stopped by Ctrl-C is left for the next run, not reported as a failure', async () => {
    const m = manualSend();
    const { d, ac } = dispatcher({ send: m.send });
    await d.dispatch(batch(0));
    ac.abort();
    m.calls[0]!.fail(new BatchFailed(0, new Error('stopped'), false));
    await d.settle();
    expect(d.failure).toBeUndefined();
    expect(d.stopped()).toBe(true);
    await d.dispatch(batch(1));
    expect(m.calls).toHaveLength(1);
  });

  it('a dry run counts and recycles without sending; --out writes each body as one line', async () => {
    const { d, recycled } = dispatcher();
    await d.dispatch(batch(0, 7));
    expect(d.tally).toEqual({ sent: 7, acknowledged: 0, batches: 1, resumed_batches: 0 });
    expect(recycled).toEqual(['[0]']);
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (c) => chunks.push(String(c)));
    const w = dispatcher({ out });
    await w.d.dispatch(batch(3));
    await w.d.dispatch(batch(4));
    await tick();
    expect(chunks.join('')).toBe('[3]\n[4]\n');
    expect(w.recycled).toEqual(['[3]', '[4]']);
  });
});

describe('uploadOutcome', () => {
  const base: EndState = {
    dryRun: false,
    interrupted: false,
    isStdin: false,
    read: 100,
    valid: 90,
    acknowledged: 90,
    journal: { file: '/j.jsonl', ackedBatches: 3, isDefault: true },
  };

  it('success: exit 0; a default journal is removed, an explicit one marked done and kept; no journal, nothing to do', () => {
    expect(uploadOutcome(base)).toEqual({ exit: 0, journal: 'remove' });
    expect(uploadOutcome({ ...base, journal: { ...base.journal!, isDefault: false } })).toEqual({
      exit: 0,
      journal: 'done',
    });
    expect(uploadOutcome({ ...base, journal: undefined })).toEqual({ exit: 0, journal: 'none' });
  });

  it('bad input: its own exit (2 before anything was sent, 4 after); the journal kept only if it acknowledges something', () => {
    const u = new UsageError('line 7 looks like a SHA-256 digest');
    expect(uploadOutcome({ ...base, inputError: u })).toMatchObject({
      exit: ExitCode.USAGE,
      journal: 'close',
      error: u,
    });
    expect(uploadOutcome({ ...base, inputError: u, journal: { ...base.journal!, ackedBatches: 0 } })).toMatchObject({
      exit: 2,
      journal: 'remove',
    });
    expect(uploadOutcome({ ...base, inputError: new PartialError('x') })).toMatchObject({ exit: 4 });
  });

  it('Ctrl-C: exit 130, journal kept, and the notice says how to resume (stdin without a journal cannot)', () => {
    const o = uploadOutcome({ ...base, interrupted: true, acknowledged: 40 });
    expect(o.exit).toBe(130);
    expect(o.error).toBeInstanceOf(InterruptedError);
    expect(o.journal).toBe('close');
    expect(o.notice).toBe(
      'stopped after draining the batches in flight: 40 of 90 valid records acknowledged; re-run the same command to resume from the journal /j.jsonl',
    );
    expect(uploadOutcome({ ...base, interrupted: true, isStdin: true, journal: undefined }).notice).toMatch(
      /stdin input cannot resume without --journal/,
    );
    expect(uploadOutcome({ ...base, dryRun: true, interrupted: true, journal: undefined }).notice).toBe(
      'stopped: 100 records read',
    );
  });

  it('a batch given up: exit 4 with the resume hint; nothing acknowledged: the journal goes and the hint says run again', () => {
    const o = uploadOutcome({
      ...base,
      acknowledged: 30,
      failure: { batch: 5, cause: new Error('HTTP 503'), fatal: false },
    });
    expect(o).toMatchObject({ exit: 4, journal: 'close' });
    expect(o.error!.message).toBe('gave up on batch 6: HTTP 503; 30 of 90 valid records acknowledged');
    expect(o.error!.hint).toMatch(/resume from the journal \/j.jsonl/);
    const none = uploadOutcome({
      ...base,
      acknowledged: 0,
      journal: { ...base.journal!, ackedBatches: 0 },
      failure: { batch: 0, cause: new Error('HTTP 503'), fatal: false },
    });
    expect(none).toMatchObject({ exit: 4, journal: 'remove' });
    expect(none.error!.hint).toBe('nothing was acknowledged: run the same command again');
  });

  it("a fatal API error keeps its own exit (1, or 3 for auth); the hint gains the resume line without changing the caller's error", () => {
    const cause = new AuthError('forbidden (HTTP 403)', { hint: 'check the account' });
    const o = uploadOutcome({ ...base, acknowledged: 30, failure: { batch: 2, cause, fatal: true } });
    expect(o.exit).toBe(3);
    expect(o.error).toBeInstanceOf(AuthError);
    expect(o.error!.message).toBe('forbidden (HTTP 403)');
    expect(o.error!.hint).toBe(
      'check the account; 30 of 90 valid records acknowledged; re-run the same command to resume from the journal /j.jsonl',
    );
    expect(cause.hint).toBe('check the account');
    const first = uploadOutcome({
      ...base,
      acknowledged: 0,
      journal: { ...base.journal!, ackedBatches: 0 },
      failure: { batch: 0, cause: new ApiError('not found (HTTP 404)'), fatal: true },
    });
    expect(first).toMatchObject({ exit: 1, journal: 'remove' });
    expect(first.error!.hint).toBeUndefined();
  });
});

describe('WorkerPool', () => {
  const cfg = {
    format: 'lines' as const,
    columns: [{ type: 'email' as const, name: 'email', index: 0 }],
    hashed: false,
  };

  it('answers every chunk with its own result, whichever worker took it, and gives input buffers back', async () => {
    const pool = new WorkerPool(2, cfg);
    try {
      const chunks = Array.from({ length: 12 }, (_, i) =>
        Array.from({ length: 3000 + i }, (_, k) => `u${i}.${k}@example.com`),
      );
      const results = await Promise.all(
        chunks.map((lines, i) => pool.run(i, new Uint8Array(Buffer.from(lines.join('\n') + '\n')))),
      );
      results.forEach((r, i) => {
        expect(r.seq).toBe(i);
        expect(r.valid).toBe(chunks[i]!.length);
        const first = Buffer.from(r.frags).toString('latin1', 0, r.ends[0]);
        expect(first).toBe(`{"email":["${sha256Hex(chunks[i]![0]!)}"]},`);
      });
      expect(pool.takeInput(1)).toBeInstanceOf(Buffer);
      expect(pool.takeInput(1 << 30)).toBeUndefined();
      // A fragment buffer handed back is taken by a worker (moved, so detached here).
      const f = results[0]!.frags;
      pool.giveFrags(f);
      expect(f.byteLength).toBe(0);
    } finally {
      await pool.close();
    }
  });
});
