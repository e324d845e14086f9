// An HTTP registry for in-process tests (gh's pkg/httpmock): register a stub per expected
// request, run the command, then verify() that every stub was used. Every request is recorded,
// so a test sees exactly what was sent (method, path, query, headers, body).
import { Readable } from 'node:stream';
import type { Transport, TransportRequest, TransportResponse } from '../../src/core/transport.js';

export interface RecordedRequest {
  method: string;
  url: URL;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON (throws when it is not JSON). */
  json(): unknown;
  /** The body parsed as a form. */
  form(): URLSearchParams;
}

export interface Matcher {
  (req: RecordedRequest): boolean;
  /** For verify()'s report. */
  describe: string;
}

export interface StubResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export type Responder = (req: RecordedRequest) => StubResponse | Promise<StubResponse>;

/** Matches a method and a path (exact string, or a RegExp on the path), and optionally query values. */
export function route(method: string, path: string | RegExp, o: { query?: Record<string, string> } = {}): Matcher {
  const m = ((req: RecordedRequest) => {
    if (req.method !== method.toUpperCase()) return false;
    if (typeof path === 'string' ? req.path !== path : !path.test(req.path)) return false;
    for (const [k, v] of Object.entries(o.query ?? {})) if (req.query.get(k) !== v) return false;
    return true;
  }) as Matcher;
  m.describe = `${method.toUpperCase()} ${String(path)}${o.query ? ` ${JSON.stringify(o.query)}` : ''}`;
  return m;
}

/** A JSON answer. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Responder {
  return () => ({ status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** A text answer (HTML pages, form-encoded token replies, garbage). */
export function text(
  body: string,
  status = 200,
  contentType = 'text/plain',
  headers: Record<string, string> = {},
): Responder {
  return () => ({ status, headers: { 'content-type': contentType, ...headers }, body });
}

/** A connection failure with a system code (ECONNREFUSED: never sent; ECONNRESET: lost mid-flight). */
export function networkError(code = 'ECONNRESET', message = `socket failure ${code}`): Responder {
  return () => {
    throw Object.assign(new Error(message), { code });
  };
}

interface Stub {
  matcher: Matcher;
  responder: Responder;
  /** Uses left; Infinity for `times: Infinity`. */
  left: number;
  used: number;
}

export class HttpRegistry implements Transport {
  readonly requests: RecordedRequest[] = [];
  private stubs: Stub[] = [];

  /** A stub answers `times` matching requests (default once); the first stub with uses left wins. */
  register(matcher: Matcher, responder: Responder, o: { times?: number } = {}): this {
    this.stubs.push({ matcher, responder, left: o.times ?? 1, used: 0 });
    return this;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const body = req.body === undefined ? '' : Buffer.isBuffer(req.body) ? req.body.toString('utf8') : req.body;
    const rec: RecordedRequest = {
      method: req.method,
      url: req.url,
      path: req.url.pathname,
      query: req.url.searchParams,
      headers: { ...req.headers },
      body,
      json: () => JSON.parse(body),
      form: () => new URLSearchParams(body),
    };
    this.requests.push(rec);
    const stub = this.stubs.find((s) => s.left > 0 && s.matcher(rec));
    if (!stub)
      throw new Error(
        `HttpRegistry: no stub for ${req.method} ${req.url.pathname}${req.url.search} (registered: ${this.stubs.map((s) => s.matcher.describe).join('; ') || 'none'})`,
      );
    stub.left--;
    stub.used++;
    const res = await stub.responder(rec);
    const buf = Buffer.from(res.body ?? '');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers ?? {})) headers[k.toLowerCase()] = v;
    return {
      status: res.status,
      headers,
      body: Readable.from(buf.length ? [buf] : []),
      text: async () => buf.toString('utf8'),
    };
  }

  /** Throws when a stub was never used: a test that stubs a request the code never makes is wrong. */
  verify(): void {
    const unused = this.stubs.filter((s) => s.used === 0);
    if (unused.length)
      throw new Error(
        `HttpRegistry: ${unused.length} stub(s) never used: ${unused.map((s) => s.matcher.describe).join('; ')}`,
      );
  }
}
