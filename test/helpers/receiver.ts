// Test doubles around webhooks: a programmable receiver (answers CRC checks correctly, wrongly,
// with a redirect or an error) that records every delivery, and a long-running CLI process.
import http from 'node:http';
import crypto from 'node:crypto';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { BIN } from './cli.js';

export type ReceiverMode = 'ok' | 'wrong' | 'redirect' | 'e500' | 'e404' | 'close' | 'hang';

/**
 * A delivered body as tests read it: a v2 event ({data}), a filtered-stream post with the rules
 * it matched (and includes), or a v1.1 account activity body (other fields by name).
 */
export interface DeliveredBody {
  data?: Record<string, unknown>;
  matching_rules?: Array<{ id: string; tag?: string }>;
  includes?: { users: Array<{ id: string }> };
  [field: string]: unknown;
}

export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  json: DeliveredBody;
}

export interface TestReceiver {
  url: string;
  mode: ReceiverMode;
  /** Status answered to deliveries (POST). */
  postStatus: number;
  crcCount: number;
  deliveries: Received[];
  close(): Promise<void>;
}

export async function startReceiver(secret: string): Promise<TestReceiver> {
  const r: TestReceiver = { url: '', mode: 'ok', postStatus: 200, crcCount: 0, deliveries: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET') {
      r.crcCount++;
      const token = u.searchParams.get('crc_token') ?? '';
      switch (r.mode) {
        case 'ok':
        case 'wrong': {
          const key = r.mode === 'ok' ? secret : 'not-the-secret';
          const body = JSON.stringify({
            response_token: 'sha256=' + crypto.createHmac('sha256', key).update(token).digest('base64'),
          });
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(body);
        }
        case 'redirect':
          res.writeHead(302, { location: 'https://example.com/' });
          return res.end();
        case 'e500':
          res.writeHead(500);
          return res.end('boom');
        case 'e404':
          res.writeHead(404);
          return res.end();
        case 'close':
          return req.socket.destroy();
        case 'hang':
          return; // never answers: the checker's timeout decides
      }
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      r.deliveries.push({ headers: req.headers, raw, json: JSON.parse(raw.toString('utf8')) });
      res.writeHead(r.postStatus);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

/** The signature a delivery must carry, computed here with node:crypto only. */
export function expectedSignature(secret: string, raw: Buffer): string {
  return 'sha256=' + crypto.createHmac('sha256', secret).update(raw).digest('base64');
}

export async function waitFor<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  tries = 200,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface LongRun {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  waitStderr(re: RegExp): Promise<RegExpMatchArray>;
  waitStdout(re: RegExp): Promise<RegExpMatchArray>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `xctl ...args` and leaves it running (listen, activity stream). */
export function spawnCli(args: string[], env: Record<string, string>): LongRun {
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('XCTL_')) full[k] = v;
  delete full.DBUS_SESSION_BUS_ADDRESS; // no keychain unless the test passes one
  Object.assign(full, { NO_COLOR: '1' }, env);
  const child = spawn(process.execPath, [BIN, ...args], { env: full, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitStderr: (re) => waitFor(() => err.match(re) ?? undefined, `stderr ${re}: ${err}`, 400),
    waitStdout: (re) => waitFor(() => out.match(re) ?? undefined, `stdout ${re}: ${out}`, 400),
    async stop(signal = 'SIGINT') {
      child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const c = await exited;
      clearTimeout(t);
      return c;
    },
  };
}

/**
 * The app's bearer, fetched once: CLI runs with env credentials do not cache it, and the sandbox
 * answers 403 code 99 to an app asking too often (as the service does).
 */
export async function appBearer(baseUrl: string, key: string, secret: string): Promise<string> {
  const res = await fetch(baseUrl + '/oauth2/token', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded;charset=UTF-8',
    },
    body: 'grant_type=client_credentials',
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
