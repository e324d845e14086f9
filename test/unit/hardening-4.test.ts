// Issue 42 (hardening, fourth round), in-process: the outbound exchange's overall limit, and the
// terminal and input fixes of the low findings (their end-to-end side: test/e2e/hardening-4.test.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedError, UsageError } from '../../src/core/errors.js';
import { checkJq } from '../../src/core/jq.js';
import { printList } from '../../src/core/output.js';
import { exchange } from '../../src/webhooks/outbound.js';
import { testContext } from '../helpers/test-context.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('item 5: an outbound exchange has an overall limit', () => {
  it('a receiver that drips its answer is cut off at deadlineMs, and an abort ends it at once', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200);
      const t = setInterval(() => res.write('.'), 20); // well inside the idle limit
      res.on('close', () => clearInterval(t));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const o = await exchange('POST', url, { body: '{}', timeoutMs: 10_000, deadlineMs: 300 });
    expect(o).toMatchObject({ kind: 'timeout', error: 'no complete answer within 300 ms' });
    const c = new AbortController();
    const pending = exchange('POST', url, { body: '{}', timeoutMs: 10_000, signal: c.signal });
    c.abort();
    expect(await pending).toMatchObject({ kind: 'closed', error: 'interrupted' });
  });
});

describe('item 7: the --jq compile check runs in the worker, under its limits and Ctrl-C', () => {
  // The program closes the branch that keeps it from running, and loops.
  const ESCAPE = '1) else (def f: f; f) end, if false then (1';

  it('a program that escapes the check and never ends is stopped by the time limit, or by Ctrl-C', async () => {
    const e = await checkJq(ESCAPE, undefined, 800).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).toBe(
      '--jq: the program ran for 0.8 s without finishing (a recursion that never ends?): stopped',
    );
    const ac = new AbortController();
    const pending = checkJq(ESCAPE, ac.signal).catch((x: unknown) => x);
    setTimeout(() => ac.abort(), 200);
    expect(await pending).toBeInstanceOf(InterruptedError);
  });

  it('still names a compile error in jq words, and passes a good program', async () => {
    await expect(checkJq('.[] | .id')).resolves.toBeUndefined();
    await expect(checkJq('.[] |')).rejects.toThrow(/^--jq: syntax error/);
  });
});

describe('item 8: -o json and -o jsonl lists escape C1 and bidi characters on a terminal', () => {
  const rows = [{ id: '1', name: 'a\u009b31mb\u009dc\u202ed' }];
  const ESCAPED = 'a\\u009b31mb\\u009dc\\u202ed';

  it.each(['json', 'jsonl'] as const)(
    '-o %s: escaped on a terminal (the same value), exact when piped',
    async (format) => {
      const tty = testContext({ tty: true });
      cleanups.push(() => tty.cleanup());
      await printList(tty.ctx.io, { format }, rows);
      expect(tty.stdout()).toContain(ESCAPED);
      expect(tty.stdout()).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
      const parsed = format === 'json' ? JSON.parse(tty.stdout()) : [JSON.parse(tty.stdout())];
      expect(parsed).toEqual(rows);
      const piped = testContext();
      cleanups.push(() => piped.cleanup());
      await printList(piped.ctx.io, { format }, rows);
      expect(piped.stdout()).toContain(rows[0]!.name);
    },
  );
});
