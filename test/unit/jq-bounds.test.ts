// --jq bounded (issue 25 item 8): jq runs in a worker thread, so a program that never ends is
// stopped by its time limit or by Ctrl-C, with a clear error.
import { describe, expect, it } from 'vitest';
import { InterruptedError, UsageError } from '../../src/core/errors.js';
import { runJq } from '../../src/core/jq.js';

describe('runJq', () => {
  it('runs a program as jq -r does', async () => {
    expect(await runJq('.[] | .id', '[{"id":"a"},{"id":"b"}]')).toBe('a\nb');
    await expect(runJq('.a.b.c', '[1]')).rejects.toThrow(UsageError);
  });

  it('stops a program that never ends at its time limit, with what happened', async () => {
    const e = await runJq('def f: f; f', '1', undefined, 1500).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).toBe(
      '--jq: the program ran for 1.5 s without finishing (a recursion that never ends?): stopped',
    );
  });

  it('honours the interrupt signal while jq runs', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 500);
    await expect(runJq('def f: f; f', '1', ac.signal)).rejects.toBeInstanceOf(InterruptedError);
  });
});
