// Issue 42 (hardening, fourth round), in-process: the outbound exchange's overall limit, and the
// terminal and input fixes of the low findings (their end-to-end side: test/e2e/hardening-4.test.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { exchange } from '../../src/webhooks/outbound.js';

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
