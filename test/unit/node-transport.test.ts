// The wire under the HTTP client (node:http with a keep-alive pool): answers, reuse of one
// connection, the pool closed at the end of a command, timeouts and dropped connections as the
// codes the client maps to its messages.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeTransports, sendNode } from '../../src/core/node-transport.js';
import type { TransportRequest } from '../../src/core/transport.js';
import { runCommandEnd } from '../../src/core/command-end.js';

const servers: http.Server[] = [];
afterEach(async () => {
  closeTransports();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(
  handler: http.RequestListener,
): Promise<{ url: string; sockets: Set<Socket>; connections: () => number }> {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, handler);
  servers.push(server);
  const sockets = new Set<Socket>();
  let connections = 0;
  server.on('connection', (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets, connections: () => connections };
}

const req = (url: string, extra: Partial<TransportRequest> = {}): TransportRequest => ({
  method: 'GET',
  url: new URL(url),
  headers: { accept: 'application/json' },
  headersTimeoutMs: 5_000,
  bodyTimeoutMs: 5_000,
  ...extra,
});

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? (e as Error).name;
  }
  return undefined;
}

describe('node transport', () => {
  it('sends method, headers and body with its length, and reads the answer', async () => {
    let seen: { method?: string; len?: string; body?: string; ua?: string } = {};
    const s = await serve((q, r) => {
      let body = '';
      q.on('data', (d) => (body += d));
      q.on('end', () => {
        seen = { method: q.method, len: q.headers['content-length'], body, ua: q.headers['user-agent'] };
        r.writeHead(201, { 'content-type': 'application/json', 'x-rate-limit-remaining': '7' }).end(
          '{"ok":true,"é":1}',
        );
      });
    });
    const res = await sendNode(
      req(s.url + '/x?y=1', { method: 'POST', headers: { 'user-agent': 'xctl/test' }, body: Buffer.from('{"a":"é"}') }),
    );
    expect(res.status).toBe(201);
    expect(res.headers['x-rate-limit-remaining']).toBe('7');
    expect(await res.text()).toBe('{"ok":true,"é":1}');
    expect(seen).toEqual({
      method: 'POST',
      len: String(Buffer.byteLength('{"a":"é"}')),
      body: '{"a":"é"}',
      ua: 'xctl/test',
    });
  });

  it('reuses one connection, and the end of the command closes it', async () => {
    const s = await serve((_q, r) => r.end('x'));
    const timeoutListeners: number[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await sendNode(req(s.url));
      const socket = (res.body as http.IncomingMessage).socket;
      expect(await res.text()).toBe('x');
      timeoutListeners.push(socket.listenerCount('timeout'));
    }
    // the stall listener leaves with its response: none pile up on the pooled socket
    expect(timeoutListeners.at(-1)).toBe(timeoutListeners[0]);
    expect(s.connections()).toBe(1);
    expect(s.sockets.size).toBe(1);
    const closed = new Promise((r) => [...s.sockets][0]!.once('close', r));
    runCommandEnd();
    await closed;
    expect(s.sockets.size).toBe(0);
  });

  it('gives up waiting for headers after headersTimeoutMs', async () => {
    const s = await serve(() => {
      /* never answers */
    });
    expect(await codeOf(sendNode(req(s.url, { headersTimeoutMs: 100 })))).toBe('UND_ERR_HEADERS_TIMEOUT');
  });

  it('gives up on a body that stalls for bodyTimeoutMs, but not on a stream (0)', async () => {
    const s = await serve((_q, r) => {
      r.writeHead(200);
      r.write('partial');
      setTimeout(() => r.end('-rest'), 400);
    });
    const stalled = await sendNode(req(s.url, { bodyTimeoutMs: 100 }));
    expect(await codeOf(stalled.text())).toBe('UND_ERR_BODY_TIMEOUT');
    const stream = await sendNode(req(s.url, { bodyTimeoutMs: 0 }));
    expect(await stream.text()).toBe('partial-rest');
  });

  it('a connection dropped mid-body fails the read; a refused one is ECONNREFUSED', async () => {
    const s = await serve((q, r) => {
      r.writeHead(200, { 'content-length': '100' });
      r.write('only part');
      setTimeout(() => q.socket.destroy(), 20);
    });
    const res = await sendNode(req(s.url));
    expect(await codeOf(res.text())).toBe('ECONNRESET');
    const port = new URL(s.url).port;
    servers.pop()!.close();
    expect(await codeOf(sendNode(req(`http://127.0.0.1:${port}`)))).toBe('ECONNREFUSED');
  });

  it('an abort signal ends the request', async () => {
    const s = await serve(() => {
      /* never answers */
    });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    expect(await codeOf(sendNode(req(s.url, { signal: ac.signal })))).toBe('ABORT_ERR');
  });

  // The transport watches the signal itself (node's handling in http.request cost every request
  // about 3% of a short command): the same errors as node's, and no listener left behind.
  it('a signal that has fired already: an AbortError with its reason, nothing sent', async () => {
    let asked = 0;
    const s = await serve((_q, r) => {
      asked++;
      r.end('{}');
    });
    const ac = new AbortController();
    const why = new Error('interrupted');
    ac.abort(why);
    const e = await sendNode(req(s.url, { signal: ac.signal })).then(
      () => undefined,
      (x: unknown) => x as Error & { code?: string },
    );
    expect({ name: e?.name, code: e?.code, cause: e?.cause }).toEqual({
      name: 'AbortError',
      code: 'ABORT_ERR',
      cause: why,
    });
    expect(asked).toBe(0);
  });

  it('an abort mid-body ends the read; a request done leaves no listener behind', async () => {
    const s = await serve((q, r) => {
      if (q.url === '/slow') {
        r.writeHead(200, { 'content-length': '100' });
        r.write('only part');
      } else r.end('{"ok":true}');
    });
    const ac = new AbortController();
    // (node 20's getEventListeners; the installed types lack it)
    const events = (await import('node:events')) as unknown as {
      getEventListeners(target: EventTarget, type: string): unknown[];
    };
    const { getEventListeners } = events;
    const done = await sendNode(req(`${s.url}/fast`, { signal: ac.signal }));
    expect(await done.text()).toBe('{"ok":true}');
    await new Promise((r) => setImmediate(r));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    const slow = await sendNode(req(`${s.url}/slow`, { signal: ac.signal }));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    setTimeout(() => ac.abort(), 20);
    expect(await codeOf(slow.text())).toMatch(/^(ABORT_ERR|ECONNRESET)$/);
  });
});
