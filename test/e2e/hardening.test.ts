// Bad input, broken servers and secrets, through the real CLI (issue: hardening).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startTestSandbox, tempDir, type TestSandbox } from '../helpers/cli.js';

let garbage: http.Server;
let garbageUrl: string;
let tls: https.Server | undefined;
let tlsUrl: string | undefined;
let t: TestSandbox;

beforeAll(async () => {
  garbage = http.createServer((req, res) => {
    if (req.url?.startsWith('/json-garbage')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"data": [1, 2,');
    }
    if (req.url?.startsWith('/binary')) {
      res.writeHead(500, { 'content-type': 'application/octet-stream' });
      return res.end(Buffer.from([0, 1, 2, 255, 254]));
    }
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end(
      '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
    );
  });
  await new Promise<void>((r) => garbage.listen(0, '127.0.0.1', r));
  garbageUrl = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}`;

  const dir = tempDir('xctl-tls-');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        path.join(dir, 'k.pem'),
        '-out',
        path.join(dir, 'c.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      {
        stdio: 'ignore',
      },
    );
    tls = https.createServer(
      { key: fs.readFileSync(path.join(dir, 'k.pem')), cert: fs.readFileSync(path.join(dir, 'c.pem')) },
      (_q, s) => s.end('{}'),
    );
    await new Promise<void>((r) => tls!.listen(0, '127.0.0.1', r));
    tlsUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
  } catch {
    console.warn('openssl is not available: the TLS-failure case is skipped');
  }
  t = await startTestSandbox();
});

afterAll(async () => {
  garbage.close();
  tls?.close();
  await t.close();
});

const creds = () => ({
  XCTL_CONFIG_DIR: tempDir(),
  XCTL_API_KEY: 'k',
  XCTL_API_SECRET: 'super-secret-value',
  XCTL_ACCESS_TOKEN: 't-1234567',
  XCTL_ACCESS_TOKEN_SECRET: 'token-secret-value',
  XCTL_RETRY_BASE_MS: '1',
});

function oneLineError(stderr: string): void {
  const lines = stderr.split('\n').filter((l) => l && !l.startsWith('HTTP ') && !/retrying in/.test(l));
  expect(lines[0]).toMatch(/^error: /);
  expect(lines.length).toBeLessThanOrEqual(2); // error + hint
  expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe('broken servers', () => {
  it('an HTML error page gives a one-line error with the status', async () => {
    const r = await runCli(['request', '/x'], { env: { ...creds(), XCTL_BASE_URL: garbageUrl } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/502 Bad Gateway.*HTTP 502/);
    oneLineError(r.stderr);
  });
  it('malformed JSON is reported, not crashed on', async () => {
    const r = await runCli(['request', '/json-garbage'], { env: { ...creds(), XCTL_BASE_URL: garbageUrl } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/malformed JSON/);
    oneLineError(r.stderr);
  });
  it('a binary 500 body is summarised', async () => {
    const r = await runCli(['request', '-X', 'POST', '/binary', '-d', 'a=b'], {
      env: { ...creds(), XCTL_BASE_URL: garbageUrl },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 500/);
    expect(r.stderr).toMatch(/not retried/); // a POST is not repeated after a 500
    oneLineError(r.stderr);
  });
  it('a TLS failure names TLS and hints at the certificate', async () => {
    if (!tlsUrl) return;
    const r = await runCli(['request', '/x'], { env: { ...creds(), XCTL_BASE_URL: tlsUrl } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/TLS failure/);
    oneLineError(r.stderr);
  });
  it('a base URL that is not a URL is a usage error', async () => {
    for (const bad of ['not a url', 'ftp://x', 'http://example.com']) {
      const r = await runCli(['request', '/x'], { env: { ...creds(), XCTL_BASE_URL: bad } });
      expect(r.code, bad).toBe(2);
      oneLineError(r.stderr);
    }
  });
  it('--verbose adds the HTTP trace but no stack (that is for internal errors); --json prints the error as one JSON object', async () => {
    const v = await runCli(['request', '/x', '--verbose'], { env: { ...creds(), XCTL_BASE_URL: garbageUrl } });
    expect(v.stderr).toMatch(/^error: /m);
    expect(v.stderr).not.toMatch(/\n\s+at /);
    const j = await runCli(['request', '/x', '--json'], { env: { ...creds(), XCTL_BASE_URL: garbageUrl } });
    const err = JSON.parse(j.stderr.trim().split('\n').pop()!);
    expect(err.error).toMatchObject({ type: 'ApiError', status: 502, exit_code: 1 });
  });
});

describe('retries', () => {
  it('a GET is retried through 5xx, and the retry is shown', async () => {
    await t.admin('POST', '/_sandbox/faults', { error_rate: 1, status: 500, count: 2, match: '^/oauth/authorize' });
    const r = await t.run(['request', '/oauth/authorize?oauth_token=unknown', '--auth', 'none']);
    expect(r.stderr.match(/HTTP 500 from GET \/oauth\/authorize; retrying/g)).toHaveLength(2);
    expect(r.stderr).toMatch(/HTTP 400/); // the third attempt reached the handler
    await t.admin('DELETE', '/_sandbox/faults');
  });
  it('a POST answered 503 is not retried, and the user is told why', async () => {
    await t.admin('POST', '/_sandbox/faults', { error_rate: 1, status: 503, count: 2, match: '^/oauth2/token' });
    const r = await t.run(['auth', 'token', '--type', 'app']);
    // POST /oauth2/token is not idempotent: a 503 is not retried, and the user is told why
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 503/);
    await t.admin('DELETE', '/_sandbox/faults');
  });
  it('a dropped connection on a GET is retried and succeeds', async () => {
    await t.admin('POST', '/_sandbox/faults', { drop_rate: 1, count: 2, match: '^/_nothing|^/1\\.1/account' });
    const r = await t.run(['request', '/1.1/account/no_such_thing.json']);
    // no such route in the sandbox: after two dropped attempts the third gets the real 404
    expect(r.stderr).toMatch(/closed unexpectedly; retrying/);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 404/);
    await t.admin('DELETE', '/_sandbox/faults');
  });
});

// Secrets: test/e2e/secrets.test.ts (every verb family, files, the store); argv: bad-input.test.ts.
