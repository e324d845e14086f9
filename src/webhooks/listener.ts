// The local webhook receiver behind `xctl webhooks listen` (docs/contract.md, design "Webhook receiver"):
// answers service-shaped CRC tokens only, verifies each delivery's signature on the raw body
// (either header name) in constant time, acknowledges with 200 at once, then hands the event on.
import http from 'node:http';
import { SIGNATURE_HEADERS, crcResponse, isServiceShapedCrcToken, verifySignature } from './crypto.js';

export interface ReceivedDelivery {
  raw: Buffer;
  headers: http.IncomingHttpHeaders;
  json: unknown;
}

export interface ReceiverOptions {
  secret: string;
  path: string;
  onCrc?: (token: string) => void;
  onDelivery: (d: ReceivedDelivery) => void;
  onRejected: (reason: string, req: http.IncomingMessage) => void;
}

export const MAX_BODY = 5_000_000;
/** Deliveries read at once, and the bytes they may hold together: a flood cannot exhaust memory. */
export const MAX_CONNECTIONS = 64;
export const MAX_BUFFERED = 32_000_000;
/**
 * Open sockets, requests or not: far above MAX_CONNECTIONS, which counts requests being read, so
 * connections that never send a request (half-open, idle) cannot lock real deliveries out; each
 * is closed after IDLE_MS without a byte, and a request's headers must arrive within HEADERS_MS.
 */
export const MAX_SOCKETS = 1024;
const IDLE_MS = 5_000;
const HEADERS_MS = 5_000;

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function createReceiver(o: ReceiverOptions): http.Server {
  let buffered = 0;
  let active = 0;
  const server = http.createServer(
    { headersTimeout: HEADERS_MS, requestTimeout: 30_000, connectionsCheckingInterval: 1000 },
    (req, res) => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      if (url.pathname !== o.path && url.pathname !== o.path + '/') return reply(res, 404, { error: 'not found' });
      if (req.method === 'GET') {
        const token = url.searchParams.get('crc_token');
        if (token === null) {
          o.onRejected('GET without crc_token', req);
          return reply(res, 400, { error: 'crc_token is required' });
        }
        if (!isServiceShapedCrcToken(token)) {
          // Never HMAC arbitrary input: a JSON "token" signed here would be a valid forged delivery.
          o.onRejected(
            "crc_token not shaped like the service's (refused so this endpoint cannot sign forged bodies)",
            req,
          );
          return reply(res, 400, { error: 'crc_token is not a service token' });
        }
        o.onCrc?.(token);
        return reply(res, 200, crcResponse(o.secret, token));
      }
      if (req.method !== 'POST') return reply(res, 405, { error: 'method not allowed' });
      const declared = Number(req.headers['content-length']);
      if (declared > MAX_BODY) {
        // Refused before a byte of it is read.
        o.onRejected(`body too large (Content-Length ${declared}, the limit is ${MAX_BODY})`, req);
        res.setHeader('connection', 'close');
        reply(res, 413, { error: 'too large' });
        return void req.destroy();
      }
      if (active >= MAX_CONNECTIONS) {
        o.onRejected(`more than ${MAX_CONNECTIONS} deliveries at once`, req);
        res.setHeader('connection', 'close');
        return reply(res, 503, { error: 'busy' });
      }
      active++;
      const chunks: Buffer[] = [];
      let size = 0;
      let held = 0;
      let counted = true;
      const release = () => {
        buffered -= held;
        held = 0;
        if (counted) active--;
        counted = false;
      };
      req.on('close', release);
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY || buffered + c.length > MAX_BUFFERED) {
          const why = size > MAX_BODY ? 'body too large' : 'too much buffered across connections';
          o.onRejected(why, req);
          if (!res.headersSent) reply(res, size > MAX_BODY ? 413 : 503, { error: why });
          size = Infinity;
          release();
          req.destroy();
        } else {
          chunks.push(c);
          held += c.length;
          buffered += c.length;
        }
      });
      req.on('end', () => {
        if (size > MAX_BODY) return;
        const raw = Buffer.concat(chunks);
        release();
        // Deliveries are JSON: anything else is refused before its signature is checked (a CRC
        // answer is the HMAC of a token, so a token posted back as a body carries a valid one).
        let json: unknown;
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          o.onRejected('body is not JSON (deliveries are)', req);
          return reply(res, 400, { error: 'not JSON' });
        }
        const given = SIGNATURE_HEADERS.map((h) => req.headers[h]).find((v): v is string => typeof v === 'string');
        if (!given) {
          o.onRejected('unsigned delivery (no signature header)', req);
          return reply(res, 403, { error: 'missing signature' });
        }
        if (!verifySignature(o.secret, raw, given)) {
          o.onRejected('forged delivery (signature does not match the body)', req);
          return reply(res, 403, { error: 'invalid signature' });
        }
        // Acknowledge first (the service allows 10 s); printing and forwarding happen afterwards.
        reply(res, 200, { ok: true });
        setImmediate(() => o.onDelivery({ raw, headers: req.headers, json }));
      });
    },
  );
  server.maxConnections = MAX_SOCKETS;
  // A connection idle this long (never sent a request, or done) is closed.
  server.setTimeout(IDLE_MS);
  server.keepAliveTimeout = IDLE_MS;
  return server;
}
