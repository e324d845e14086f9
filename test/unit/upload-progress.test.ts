// The upload progress line (issue 20, item 4): it fits one terminal line at any width, never
// wraps, and counts records the service acknowledged, not bytes read.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Progress, estimate, fmtCount, progressLine, type ProgressSnapshot } from '../../src/audiences/progress.js';
import { testContext } from '../helpers/test-context.js';

afterEach(() => {
  vi.useRealTimers();
});

// 40% of the bytes read, 1.2M acknowledged in 25 s, batches of 75k.
const mid: ProgressSnapshot = {
  read: 1_160_000,
  valid: 1_160_000,
  acknowledged: 1_200_000,
  bytesRead: 40,
  totalBytes: 100,
  elapsedMs: 25_000,
  batches: 16,
  batchSize: 75_000,
};
const done: ProgressSnapshot = {
  read: 2_900_000,
  valid: 2_900_000,
  acknowledged: 1_200_000,
  bytesRead: 100,
  totalBytes: 100,
  elapsedMs: 25_000,
  batches: 16,
  batchSize: 75_000,
};

describe('progress line', () => {
  it('at 80 columns: bar, percent of acknowledged records, counts, rate, batches, ETA', () => {
    expect(progressLine(done, 80)).toBe(
      '▕██████████░░░░░░░░░░░░░░░▏ 41% 1.2M/2.9M acked · 48k/s · batch 16/39 · ETA 36s',
    );
  });

  it('all bytes read with nothing acknowledged is 0%, not 100%', () => {
    expect(estimate({ ...done, acknowledged: 0 }).frac).toBe(0);
    expect(progressLine({ ...done, acknowledged: 0, batches: 0 }, 80)).toMatch(
      /^▕░+▏ 0% 0\/2\.9M acked · 0\/s · batch 0\/39$/,
    );
  });

  it('while reading, the total is an estimate from the bytes (marked ~)', () => {
    expect(progressLine(mid, 100)).toContain('1.2M/~2.9M acked');
  });

  it('never wider than the terminal minus one column, from 10 to 200 columns', () => {
    for (const s of [
      mid,
      done,
      { ...mid, totalBytes: undefined },
      { read: 5, acknowledged: 0, bytesRead: 1, totalBytes: 10, elapsedMs: 0 },
    ]) {
      for (let w = 10; w <= 200; w++)
        expect(progressLine(s, w).length, `${w}: ${progressLine(s, w)}`).toBeLessThanOrEqual(Math.max(10, w - 1));
    }
  });

  it('narrow terminals drop the ETA, batches, rate, then the bar', () => {
    expect(progressLine(done, 60)).toBe('▕██████░░░░░░░░░▏ 41% 1.2M/2.9M acked · 48k/s · batch 16/39');
    expect(progressLine(done, 50)).toBe('▕████████░░░░░░░░░░░▏ 41% 1.2M/2.9M acked · 48k/s');
    expect(progressLine(done, 40)).toBe('▕████░░░░░▏ 41% 1.2M/2.9M acked · 48k/s');
    expect(progressLine(done, 30)).toBe('41% 1.2M/2.9M acked · 48k/s');
    expect(progressLine(done, 20)).toBe('41% 1.2M/2.9M acked');
  });

  it('stdin (no size): no percent and no bar', () => {
    expect(progressLine({ ...mid, totalBytes: undefined }, 80)).toBe('1.2M acked · 48k/s · batch 16');
  });

  it('fmtCount', () => {
    expect([0, 999, 1234, 48_000, 1_200_000, 29_000_000].map(fmtCount)).toEqual([
      '0',
      '999',
      '1.2k',
      '48k',
      '1.2M',
      '29M',
    ]);
  });

  it('redraws in place on a terminal within its width; "packed" in a dry run', () => {
    vi.useFakeTimers();
    const t = testContext({ tty: { stderr: true }, columns: 50 });
    const p = new Progress(t.ctx.io, () => done, 5000, 'packed');
    vi.advanceTimersByTime(450);
    p.stop();
    const frames = t.stderr().split('\r').filter(Boolean);
    expect(frames.length).toBeGreaterThanOrEqual(2);
    for (const f of frames) expect(f.replace(/\n$/, '').length).toBeLessThanOrEqual(49);
    expect(frames.at(-1)).toBe('▕███████░░░░░░░░░░░▏ 41% 1.2M/2.9M packed · 48k/s\n');
    t.cleanup();
  });

  // issue 46 item 11: a warning printed while the bar is drawn went on the bar's line
  it('a message while the bar is drawn clears its line first; the bar redraws under it', () => {
    vi.useFakeTimers();
    const t = testContext({ tty: { stderr: true }, columns: 60 });
    const p = new Progress(t.ctx.io, () => done, 5000, 'packed');
    vi.advanceTimersByTime(250);
    t.ctx.io.warn('no snapshot for this audience yet');
    t.ctx.io.warn('a second one');
    vi.advanceTimersByTime(250);
    p.stop();
    const text = t.stderr();
    expect(text).toContain('\r\u001b[2Kwarning: no snapshot for this audience yet\nwarning: a second one\n\r▕');
    expect(text.match(/\u001b\[2K/g)).toHaveLength(1);
    t.cleanup();
  });
});
