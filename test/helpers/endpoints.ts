// Webhook receivers each broken one way (for `webhooks doctor`), on loopback, over http or https
// with certificates from a throwaway CA made by `openssl` in a temporary folder.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll } from 'vitest';
import { tempDir } from './cli.js';

export type EndpointMode =
  | 'ok'
  | 'redirect'
  | 'e500'
  | 'html'
  | 'malformed'
  | 'wrong_secret'
  | 'slow'
  | 'text_plain'
  | 'post_500';

export interface Endpoint {
  url: string;
  /** POST bodies received, raw, with their headers. */
  posts: Array<{ raw: Buffer; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

function answer(
  secret: string,
  mode: EndpointMode,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  posts: Endpoint['posts'],
): void {
  const token = new URL(req.url ?? '/', 'http://x').searchParams.get('crc_token') ?? '';
  const sign = (key: string) => 'sha256=' + crypto.createHmac('sha256', key).update(token).digest('base64');
  const json = (body: unknown, type = 'application/json') => {
    res.writeHead(200, { 'content-type': type });
    res.end(JSON.stringify(body));
  };
  if (req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push({ raw: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(mode === 'post_500' ? 500 : 200).end();
    });
    return;
  }
  switch (mode) {
    case 'redirect':
      res.writeHead(301, { location: 'https://hooks.example.org/webhooks/' });
      return void res.end();
    case 'e500':
      res.writeHead(500, { 'content-type': 'text/plain' });
      return void res.end('Internal Server Error');
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>');
    case 'malformed':
      return json({
        response_token: 'sha256=' + crypto.createHmac('sha256', secret).update(token).digest('hex'),
      });
    case 'wrong_secret':
      return json({ response_token: sign('another-apps-secret') });
    case 'slow':
      return void setTimeout(() => json({ response_token: sign(secret) }), 3_500);
    case 'text_plain':
      return json({ response_token: sign(secret) }, 'text/plain');
    default:
      return json({ response_token: sign(secret) });
  }
}

/** A receiver answering as `mode` says; https when `cert` is given. */
export async function startEndpoint(
  secret: string,
  mode: EndpointMode,
  cert?: { key: string; cert: string },
): Promise<Endpoint> {
  const posts: Endpoint['posts'] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => answer(secret, mode, req, res, posts);
  const server = cert ? https.createServer({ key: cert.key, cert: cert.cert }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${cert ? 'https' : 'http'}://${cert ? 'localhost' : '127.0.0.1'}:${port}/webhooks`,
    posts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * For the tests of a file or a describe: a function that starts a receiver answering as `mode`
 * says (keyed with `secret`, or what it returns once the sandbox is up), all closed after them.
 */
export function useEndpoints(
  secret: string | (() => string),
): (mode: EndpointMode, cert?: { key: string; cert: string }) => Promise<Endpoint> {
  const open: Endpoint[] = [];
  afterAll(async () => {
    for (const e of open.splice(0)) await e.close();
  });
  return async (mode, cert) => {
    const e = await startEndpoint(typeof secret === 'string' ? secret : secret(), mode, cert);
    open.push(e);
    return e;
  };
}

export interface ThrowawayCa {
  dir: string;
  /** The CA certificate's path (NODE_EXTRA_CA_CERTS for the CLI). */
  caPath: string;
  /** A leaf signed by the CA: for `host`, valid `days` (negative: already expired). */
  leaf(host: string, days: number): { key: string; cert: string };
}

/** A CA made with `openssl`, or undefined when openssl is not on the machine. */
export function makeThrowawayCa(): ThrowawayCa | undefined {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const dir = tempDir('xctl-ca-');
  const p = (f: string) => path.join(dir, f);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=xctl throwaway test CA',
  ]);
  let n = 0;
  return {
    dir,
    caPath: p('ca.pem'),
    leaf(host, days) {
      const name = `leaf${n++}`;
      run(['req', ...ec, '-keyout', p(`${name}.key`), '-out', p(`${name}.csr`), '-subj', `/CN=${host}`]);
      fs.writeFileSync(p(`${name}.ext`), `subjectAltName=DNS:${host}\n`);
      run([
        'x509',
        '-req',
        '-in',
        p(`${name}.csr`),
        '-CA',
        p('ca.pem'),
        '-CAkey',
        p('ca.key'),
        '-CAcreateserial',
        '-out',
        p(`${name}.pem`),
        '-days',
        String(days),
        '-extfile',
        p(`${name}.ext`),
      ]);
      return {
        key: fs.readFileSync(p(`${name}.key`), 'utf8'),
        cert: fs.readFileSync(p(`${name}.pem`), 'utf8'),
      };
    },
  };
}

/** A self-signed RSA certificate for `cn`, valid a day, written to dir as k.pem and c.pem (openssl). */
export function selfSigned(dir: string, cn: string): { key: string; cert: string } {
  const key = path.join(dir, 'k.pem');
  const cert = path.join(dir, 'c.pem');
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert];
  execFileSync('openssl', [...args, '-days', '1', '-subj', `/CN=${cn}`], { stdio: 'ignore' });
  return { key, cert };
}
