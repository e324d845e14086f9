// The production wire: node's own http/https with one keep-alive agent per protocol. Node's HTTP
// parser is native and already in the binary, so a command pays nothing to load it; undici parses
// HTTP in WebAssembly, which cost every short command ~150 ms of CPU and ~50 MB to compile and
// instantiate. Idle sockets do not keep the process alive, and closeTransports() (main.ts, when
// the command is done) drops them so that nothing waits at exit.
import type http from 'node:http';
import { atCommandEnd } from './command-end.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';
import { bufferOf } from '../contract/guards.js';

interface Wire {
  lib: typeof import('node:http') | typeof import('node:https');
  agent: http.Agent;
}

// One per protocol, made on first use: a loopback sandbox never loads TLS.
const wires: Partial<Record<'http:' | 'https:', Wire>> = {};

async function wireFor(url: URL): Promise<Wire> {
  const proto = url.protocol === 'https:' ? 'https:' : 'http:';
  let w = wires[proto];
  if (!w) {
    const lib = proto === 'https:' ? await import('node:https') : await import('node:http');
    w = wires[proto] ??= { lib, agent: new lib.Agent({ keepAlive: true }) };
    atCommandEnd(closeTransports);
  }
  return w;
}

/** Closes every pooled connection: the command is done, nothing should wait on them. */
export function closeTransports(): void {
  for (const proto of ['http:', 'https:'] as const) {
    wires[proto]?.agent.destroy();
    delete wires[proto];
  }
}

/** What node's own abort handling destroys a request with: the client maps it by name and code. */
class AbortError extends Error {
  override name = 'AbortError';
  code = 'ABORT_ERR';
  constructor(cause: unknown) {
    super('The operation was aborted', { cause });
  }
}

/**
 * The request's signal, watched here instead of handed to http.request: node's own handling
 * (addAbortSignal, and end-of-stream to drop its listener) cost every request about 6M
 * instructions, 3% of a short command, for an abort that hardly ever comes. The effect is node's:
 * the request is destroyed with an AbortError (a response being read ends with it), at once when
 * the signal has fired already; the listener goes when the request closes.
 */
function watchAbort(cr: http.ClientRequest, signal: AbortSignal | undefined): void {
  if (!signal) return;
  const abort = () => cr.destroy(new AbortError(signal.reason));
  if (signal.aborted) {
    process.nextTick(abort);
    return;
  }
  signal.addEventListener('abort', abort, { once: true });
  cr.once('close', () => signal.removeEventListener('abort', abort));
}

/** A failure with the code the HTTP client maps to its message (timeouts named as undici names them). */
function wireError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

export async function sendNode(req: TransportRequest): Promise<TransportResponse> {
  const { lib, agent } = await wireFor(req.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    const cr = lib.request(req.url, { method: req.method, headers, agent });
    watchAbort(cr, req.signal);
    let settled = false;
    const headersTimer = setTimeout(
      () => cr.destroy(wireError(`no response headers within ${req.headersTimeoutMs} ms`, 'UND_ERR_HEADERS_TIMEOUT')),
      req.headersTimeoutMs,
    );
    cr.on('error', (e) => {
      clearTimeout(headersTimer);
      if (!settled) {
        settled = true;
        reject(e);
      }
    });
    cr.on('response', (res) => {
      clearTimeout(headersTimer);
      settled = true;
      if (req.bodyTimeoutMs > 0) {
        // An idle socket while the body is still due: the server stalled mid-answer. The socket
        // goes back to the pool afterwards, so the listener goes with the response.
        const socket = res.socket;
        const stalled = () =>
          res.destroy(wireError(`the response body stalled for ${req.bodyTimeoutMs} ms`, 'UND_ERR_BODY_TIMEOUT'));
        socket.setTimeout(req.bodyTimeoutMs);
        socket.on('timeout', stalled);
        const done = () => {
          socket.off('timeout', stalled);
          socket.setTimeout(0);
        };
        res.once('end', done);
        res.once('close', done);
      }
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: res,
        text: async () => {
          const chunks: Buffer[] = [];
          for await (const c of res) chunks.push(bufferOf(c));
          return Buffer.concat(chunks).toString('utf8');
        },
      });
    });
    cr.end(req.body);
  });
}

/** The production transport (http.ts loads this file on the first request). */
export const nodeTransport: Transport = { send: sendNode };
