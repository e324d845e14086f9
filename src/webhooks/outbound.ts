// One outbound HTTP exchange with a classified outcome: what the sandbox needs to run CRC checks
// and deliveries (docs/contract.md, credentials 3.2 sorts failures into "invalid at once" and
// "transient"), and what `webhooks listen --forward-to` needs. No redirects are followed (a 3XX
// is an outcome of its own) and no connection is pooled.
import http from 'node:http';
import https from 'node:https';

export type OutcomeKind = 'ok' | 'redirect' | 'client_error' | 'server_error' | 'timeout' | 'closed' | 'tls';

export interface Outcome {
  kind: OutcomeKind;
  status?: number;
  body: string;
  ms: number;
  error?: string;
}

export function classifyStatus(status: number): OutcomeKind {
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 300 && status < 400) return 'redirect';
  if (status >= 400 && status < 500) return 'client_error';
  return 'server_error';
}

export function exchange(
  method: string,
  url: string,
  opts: {
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Idle limit: no byte for this long ends the exchange. */
    timeoutMs: number;
    /** Overall limit: a receiver dripping a byte now and then is cut off here all the same. */
    deadlineMs?: number;
    /** Ends the exchange at once (Ctrl-C, SIGTERM). */
    signal?: AbortSignal;
  },
): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    let deadline: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    const done = (o: Omit<Outcome, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ ...o, ms: Date.now() - started });
    };
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return done({ kind: 'closed', body: '', error: 'invalid URL' });
    }
    const lib = u.protocol === 'https:' ? https : http;
    const headers: Record<string, string | number> = { 'user-agent': 'xctl-sandbox-webhooks', ...(opts.headers ?? {}) };
    if (opts.body !== undefined) headers['content-length'] = Buffer.byteLength(opts.body);
    const req = lib.request(u, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= 65_536) chunks.push(c);
      });
      res.on('end', () =>
        done({
          kind: classifyStatus(res.statusCode ?? 0),
          status: res.statusCode,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', (e) => done({ kind: 'closed', status: res.statusCode, body: '', error: e.message }));
    });
    if (opts.deadlineMs !== undefined)
      deadline = setTimeout(() => {
        req.destroy();
        done({ kind: 'timeout', body: '', error: `no complete answer within ${opts.deadlineMs} ms` });
      }, opts.deadlineMs);
    onAbort = () => {
      req.destroy();
      done({ kind: 'closed', body: '', error: 'interrupted' });
    };
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.setTimeout(opts.timeoutMs, () => {
      req.destroy();
      done({ kind: 'timeout', body: '', error: `no answer within ${opts.timeoutMs} ms` });
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      const tls = /CERT|SSL|TLS|SELF_SIGNED|ERR_TLS/i.test(e.code ?? '') || /certificate|ssl|tls/i.test(e.message);
      done({ kind: tls ? 'tls' : 'closed', body: '', error: e.code ?? e.message });
    });
    req.end(opts.body);
  });
}
