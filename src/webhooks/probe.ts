// The network steps of `webhooks doctor`, each bounded by a timer and pinned to one address:
// a name lookup, a TCP connect, a TLS handshake that reports the certificate instead of hiding
// it behind a generic error, and one HTTP exchange that follows no redirect (the platform does
// not follow them) and keeps the answer's headers.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { errnoCode, errorMessage } from '../core/errors.js';

export interface Address {
  address: string;
  family: number;
}

/** Resolves within `ms` or rejects with code ETIMEOUT (dns.lookup cannot be cancelled). */
export function lookupAll(host: string, ms: number): Promise<Address[]> {
  const h = host.replace(/^\[|\]$/g, '');
  if (net.isIP(h)) return Promise.resolve([{ address: h, family: net.isIP(h) }]);
  return withTimeout(dns.promises.lookup(h, { all: true, verbatim: true }), ms, 'ETIMEOUT');
}

/** Connects to the first address that accepts, trying each in turn within `ms` overall. */
export async function connectFirst(
  addrs: Address[],
  port: number,
  ms: number,
): Promise<{ addr: Address; errors: string[] }> {
  const errors: string[] = [];
  const deadline = Date.now() + ms;
  for (const addr of addrs) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    try {
      await tcpOnce(addr, port, left);
      return { addr, errors };
    } catch (e) {
      errors.push(`${fmtAddr(addr)}:${port} ${errnoCode(e) ?? errorMessage(e)}`);
    }
  }
  throw Object.assign(new Error(errors.join('; ') || `no connection within ${ms} ms`), { errors });
}

function tcpOnce(addr: Address, port: number, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: addr.address, port, family: addr.family });
    const t = setTimeout(() => {
      s.destroy();
      reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
    }, ms);
    s.once('connect', () => {
      clearTimeout(t);
      s.destroy();
      resolve();
    });
    s.once('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
  });
}

export function fmtAddr(a: Address): string {
  return a.family === 6 ? `[${a.address}]` : a.address;
}

export interface TlsResult {
  authorized: boolean;
  /** OpenSSL's or node's code: CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, ... */
  error?: string;
  subject?: string;
  altNames?: string;
  issuer?: string;
  validFrom?: string;
  validTo?: string;
  protocol?: string;
}

/** One handshake (SNI = the host name) that reports what the certificate is, valid or not. */
export function tlsHandshake(addr: Address, port: number, hostname: string, ms: number): Promise<TlsResult> {
  return new Promise((resolve, reject) => {
    const servername = net.isIP(hostname) ? undefined : hostname;
    const s = tls.connect({
      host: addr.address,
      port,
      servername,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    // Without a servername node checks the identity against `host` (the address): name it.
    const t = setTimeout(() => {
      s.destroy();
      reject(Object.assign(new Error(`no TLS handshake within ${ms} ms`), { code: 'ETIMEDOUT' }));
    }, ms);
    s.once('secureConnect', () => {
      clearTimeout(t);
      const c = s.getPeerCertificate();
      let error = s.authorizationError ? String(s.authorizationError) : undefined;
      // The identity check ran against `host` (an address) when there was no servername.
      if (!error && servername === undefined && hostname !== addr.address) {
        error = errnoCode(tls.checkServerIdentity(hostname, c));
      }
      resolve({
        authorized: !error,
        ...(error ? { error } : {}),
        subject: first(c.subject?.CN),
        altNames: c.subjectaltname,
        issuer: first(c.issuer?.CN ?? c.issuer?.O),
        validFrom: c.valid_from,
        validTo: c.valid_to,
        protocol: s.getProtocol() ?? undefined,
      });
      s.destroy();
    });
    s.once('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
  });
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Body bytes kept from an answer: enough for a CRC reply or an error page's first lines. */
const BODY_MAX = 65_536;

/**
 * One request to `url`, connected to `addr` (the one the earlier steps checked), no redirect
 * followed, answered within `ms` or rejected with code ETIMEDOUT.
 */
export function request(
  url: URL,
  addr: Address,
  o: { method: string; headers?: Record<string, string>; body?: string | Buffer; ms: number },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string | number> = {
      'user-agent': 'xctl-webhooks-doctor',
      ...(o.headers ?? {}),
    };
    if (o.body !== undefined) headers['content-length'] = Buffer.byteLength(o.body);
    const lookup = ((_h: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) => {
      if (opts?.all) cb(null, [addr]);
      else cb(null, addr.address, addr.family);
    }) as unknown as net.LookupFunction; // an overload set no single arrow function can be typed as
    const req = lib.request(url, { method: o.method, headers, agent: false, lookup }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < BODY_MAX) chunks.push(c.subarray(0, BODY_MAX - size));
        size += c.length;
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    // The whole exchange counts against the limit, not only the idle time between packets.
    const timer = setTimeout(() => {
      req.destroy(Object.assign(new Error(`no answer within ${o.ms} ms`), { code: 'ETIMEDOUT' }));
    }, o.ms);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(o.body);
  });
}

function withTimeout<T>(p: Promise<T>, ms: number, code: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code })), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}
