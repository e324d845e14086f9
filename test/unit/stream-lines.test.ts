// `activity stream` line handling (issue 14, items 5 and 10): characters split across chunks stay
// whole, a line over the cap is dropped rather than buffered, each byte is scanned once, and only
// JSON lines are printed, escaped with JSON escapes.
import { describe, expect, it } from 'vitest';
import { LineSplitter, printableEvent } from '../../src/commands/activity/stream.js';

describe('LineSplitter', () => {
  it('keeps a multi-byte character whole when a chunk boundary cuts it, at every cut', () => {
    const bytes = Buffer.from('{"t":"café 日本 🚀"}\n{"t":"ü"}\n');
    for (let cut = 1; cut < bytes.length; cut++) {
      const s = new LineSplitter(() => {});
      const lines = [...s.push(bytes.subarray(0, cut)), ...s.push(bytes.subarray(cut))];
      expect(lines).toEqual(['{"t":"café 日本 🚀"}', '{"t":"ü"}']);
    }
  });

  it('drops a line longer than the cap and resumes at the next line', () => {
    let over = 0;
    const s = new LineSplitter(() => over++, 100);
    const out = [
      ...s.push('a'.repeat(60)),
      ...s.push('b'.repeat(60)),
      ...s.push('c'.repeat(500)),
      ...s.push('tail\nnext\n'),
    ];
    expect(out).toEqual(['next']);
    expect(over).toBe(1);
  });

  it('scans each byte once: a long line in many small chunks stays linear', () => {
    const s = new LineSplitter(() => {}, 10_000_000);
    const chunk = Buffer.alloc(64, 'x');
    const started = performance.now();
    for (let i = 0; i < 100_000; i++) s.push(chunk); // 6.4 MB without a newline
    expect(s.push('\n')[0]!.length).toBe(6_400_000);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe('printableEvent', () => {
  it('prints only lines that parse, escaped, with the same value', () => {
    expect(printableEvent('<html>')).toBeUndefined();
    expect(printableEvent('{"a":')).toBeUndefined();
    expect(printableEvent('{"a":1}')).toBe('{"a":1}');
    const evil = JSON.stringify({ t: 'x\u009b2J\u202ey' });
    const out = printableEvent(evil)!;
    expect(out).not.toMatch(/[\u0080-\u009f\u202e]/);
    expect(JSON.parse(out)).toEqual(JSON.parse(evil));
    const ws = '{"a":\t1}'; // a tab between tokens is JSON whitespace, and escaped it would not be
    expect(JSON.parse(printableEvent(ws)!)).toEqual({ a: 1 });
  });
});
