import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandboxClock } from '../../src/sandbox/clock.js';
import { parseDuration } from '../../src/contract/time.js';

afterEach(() => vi.useRealTimers());

describe('sandbox clock', () => {
  it('manual: advancing runs due jobs in time order, each at its own time, including jobs they schedule', async () => {
    const c = new SandboxClock('manual', 0);
    const seen: Array<[string, number]> = [];
    c.at(3000, () => seen.push(['b', c.now()]));
    c.at(1000, () => {
      seen.push(['a', c.now()]);
      c.after(500, () => seen.push(['a2', c.now()]));
    });
    c.at(9000, () => seen.push(['late', c.now()]));
    const r = await c.advance(5000);
    expect(seen).toEqual([
      ['a', 1000],
      ['a2', 1500],
      ['b', 3000],
    ]);
    expect(r.ran).toBe(3);
    expect(c.now()).toBe(5000);
  });

  it('real: a job more than 24.8 days away does not fire at once', () => {
    vi.useFakeTimers({ now: 0 });
    const c = new SandboxClock('real');
    let fired = 0;
    c.at(40 * 86_400_000, () => fired++);
    vi.advanceTimersByTime(1000);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(26 * 86_400_000);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(15 * 86_400_000);
    return Promise.resolve().then(() => expect(fired).toBe(1));
  });

  it('parses durations', () => {
    expect(parseDuration('29h')).toBe(29 * 3_600_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration(250)).toBe(250);
    expect(parseDuration('soon')).toBeUndefined();
  });
});
