// A hostile or broken server, and hostile senders to a receiver: credentials only to the
// configured host, echoed secrets redacted, terminal injection, unbounded answers, redirects,
// nonsense rate limits, broken and TLS-failing servers, retries. Merged from hostile-server,
// hardening and receiver-hostile.
import { selfSigned } from '../helpers/endpoints.js';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, type RunOptions, startTestSandbox, type TestSandbox } from '../helpers/cli.js';
import { expectedSignature, spawnCli, waitFor, type LongRun } from '../helpers/receiver.js';

// A malicious server on 127.0.0.1 (issue 14): it echoes the Authorization header back, answers
// without end, dribbles, redirects, names things with terminal escape sequences and sends NaN
// rate-limit headers. The real CLI runs against it; each case failed on the code before the fix.
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

let server: http.Server;
let base: string;
let handler: Handler;
let hits: Array<{ method: string; url: string; authorization?: string }> = [];
// A second host: whatever reaches it was sent to the wrong place.
let other: http.Server;
let otherBase: string;
let otherHits: Array<{ url: string; authorization?: string }> = [];

const SECRET = 'hostile-api-secret-0123456789';
const TOKEN = '783214-hostileaccesstoken0123456789';
const TOKEN_SECRET = 'hostile-token-secret-0123456789';
const BEARER = 'AAAAhostilebearertoken0123456789abcdef';

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    XCTL_CONFIG_DIR: tempDir('xctl-hostile-'),
    XCTL_BASE_URL: base,
    XCTL_API_KEY: 'hostile-key',
    XCTL_API_SECRET: SECRET,
    XCTL_ACCESS_TOKEN: TOKEN,
    XCTL_ACCESS_TOKEN_SECRET: TOKEN_SECRET,
    XCTL_BEARER_TOKEN: BEARER,
    XCTL_ACCOUNT_ID: '18ce54d4x5t',
    XCTL_RETRY_BASE_MS: '10',
    ...extra,
  };
}

const run = (args: string[], o: RunOptions & { extra?: Record<string, string> } = {}) =>
  runCli(args, { ...o, env: { ...env(o.extra), ...(o.env ?? {}) } });

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Every raw byte a terminal would act on: C0 (but newline and tab), DEL, C1, bidi overrides. */
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const EVIL = '\u001b]0;pwned\u0007\u001b[2J\u001b[1;1H$ sudo rm -rf /\r\u009b31m\u202egnp.exe';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  other = http.createServer((req, res) => {
    otherHits.push({ url: req.url!, authorization: req.headers.authorization });
    json(res, 200, { data: { stolen: true } });
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  other.closeAllConnections();
  await new Promise((r) => server.close(r));
  await new Promise((r) => other.close(r));
});

beforeEach(() => {
  hits = [];
  otherHits = [];
  handler = (_q, res) => json(res, 200, { data: [] });
});

function expectNoSecret(text: string): void {
  for (const s of [SECRET, TOKEN, TOKEN_SECRET, BEARER, encodeURIComponent(TOKEN)])
    expect(text, `leaks ${s}`).not.toContain(s);
}

describe('credentials go only to the configured host', () => {
  // The refusals ("//host" paths, credentials for another host) are in-process
  // (test/unit/refusals.test.ts); here what does reach a server.
  it('an absolute URL to another host is sent with --auth none and no credentials', async () => {
    const r = await run(['request', `${otherBase}/x`, '--auth', 'user']);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('refusing to send credentials')]);
    expect(otherHits).toEqual([]);
    const none = await run(['request', `${otherBase}/x`, '--auth', 'none']);
    expect(none.code, none.stderr).toBe(0);
    expect(otherHits).toEqual([{ url: '/x', authorization: undefined }]);
    // the configured host still gets its credentials from an absolute URL
    const same = await run(['request', `${base}/2/users/me`]);
    expect(same.code, same.stderr).toBe(0);
    expect(hits[0]!.authorization).toMatch(/^OAuth /);
  });
});

describe('a server that echoes the Authorization header', () => {
  beforeEach(() => {
    handler = (req, res) =>
      json(res, 401, {
        errors: [
          {
            code: 32,
            message: `Could not authenticate you: ${req.headers.authorization} (token ${TOKEN}, secret ${TOKEN_SECRET})`,
          },
        ],
      });
  });

  it('never gets the token printed: plain, --json and the --verbose stack', async () => {
    for (const args of [
      ['request', '/1.1/account/verify_credentials.json'],
      ['request', '/2/webhooks', '--auth', 'app'],
    ]) {
      for (const mode of [[], ['--json'], ['--verbose']]) {
        const r = await run([...args, ...mode]);
        expect(r.code, r.stderr).toBe(3);
        expect(r.stderr).toMatch(/Could not authenticate you/);
        expectNoSecret(r.stdout + r.stderr);
      }
    }
    expect(hits.some((h) => h.authorization?.includes(BEARER))).toBe(true); // the echo did carry it
  });

  it('an echoed Basic header (base64 of key:secret) is redacted too', async () => {
    const r = await run([
      'request',
      '-X',
      'POST',
      '/oauth2/token',
      '--auth',
      'basic',
      '-d',
      'grant_type=client_credentials',
    ]);
    expect(r.code).toBe(3);
    const basic = Buffer.from(`hostile-key:${SECRET}`).toString('base64');
    expect(hits[0]!.authorization).toBe(`Basic ${basic}`);
    expect(r.stderr).not.toContain(basic);
    expect(r.stderr).toContain('Basic [redacted]');
  });

  it('an HTML error page that quotes the header is redacted', async () => {
    handler = (req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(`<html><body><h1>Bad request</h1><pre>Authorization: ${req.headers.authorization}</pre></body></html>`);
    };
    const r = await run(['request', '-X', 'POST', '/2/webhooks', '--auth', 'app', '--verbose']);
    expect(r.code).toBe(1);
    expectNoSecret(r.stdout + r.stderr);
  });
});

describe('terminal injection', () => {
  it('escapes control characters and bidi overrides in table, tsv, errors and raw text; JSON stays exact', async () => {
    handler = (_q, res) =>
      json(res, 200, {
        data: [
          { id: '1', url: `https://e.example/${EVIL}`, valid: true, created_at: '2026-01-01T00:00:00.000Z', [EVIL]: 1 },
        ],
      });
    for (const o of ['table', 'tsv']) {
      // COLUMNS: a table wide enough that the escaped URL is shown whole.
      const r = await run(['webhooks', 'list', '-o', o], { env: { COLUMNS: '300' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(TERMINAL_CONTROLS);
      expect(r.stdout).toContain('\\u001b]0;pwned\\u0007');
      expect(r.stdout).toContain('\\u202egnp.exe');
    }
    const one = await run(['webhooks', 'list', '-o', 'table', '--fields', `id,${EVIL}`]);
    expect(one.stdout + one.stderr).not.toMatch(TERMINAL_CONTROLS);
    const j = await run(['webhooks', 'list', '-o', 'json']);
    expect(JSON.parse(j.stdout)[0].url).toBe(`https://e.example/${EVIL}`);
    const jr = await run(['request', '/2/webhooks']);
    expect(jr.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(JSON.parse(jr.stdout).data[0].url).toBe(`https://e.example/${EVIL}`);

    handler = (_q, res) => json(res, 400, { errors: [{ code: 'INVALID', message: `bad ${EVIL}`, parameter: EVIL }] });
    for (const mode of [[], ['--json'], ['--verbose']]) {
      const r = await run(['webhooks', 'list', ...mode]);
      expect(r.code).toBe(1);
      expect(r.stderr).not.toMatch(TERMINAL_CONTROLS);
      expect(r.stderr).toContain('\\u001b[2J');
      if (mode[0] === '--json') expect(JSON.parse(r.stderr.trim()).error.message).toContain(`bad ${EVIL}`);
    }
    handler = (_q, res) => {
      res.writeHead(502, { 'content-type': 'text/html', 'x-evil': 'a\u009b2Jb' });
      res.end(`<html><title>${EVIL}</title></html>`);
    };
    const page = await run(['request', '/2/x', '-i']);
    expect(page.code).toBe(1);
    expect(page.stderr).not.toMatch(TERMINAL_CONTROLS);
  });
});

describe('unbounded answers', () => {
  it('an endless chunked body is cut at the cap, with a clear error, and not retried', async () => {
    let written = 0;
    handler = (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) {
          written += chunk.length;
          if (written > 200 * 1024 * 1024) return res.end();
        }
        if (!res.destroyed) res.once('drain', pump);
      };
      res.write('{"data":"');
      pump();
    };
    const r = await run(['request', '/2/endless'], { timeoutMs: 25_000 });
    expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/larger than 8 MiB/)]);
    expect(hits).toHaveLength(1);
    expect(written).toBeLessThan(100 * 1024 * 1024);
  });

  it('a huge error body is refused at once by its Content-Length and not retried', async () => {
    handler = (_q, res) => {
      res.writeHead(503, { 'content-type': 'text/plain', 'content-length': String(1024 ** 3) });
      res.write('x'.repeat(1024));
    };
    const r = await run(['request', '/2/huge']);
    expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/larger than 8 MiB/)]);
    expect(hits).toHaveLength(1);
  });

  it('a server that dribbles one byte at a time hits the overall deadline', async () => {
    handler = (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 100);
    };
    const started = Date.now();
    const r = await run(['request', '-X', 'POST', '/2/slow'], { extra: { XCTL_TIMEOUT: '1' } });
    expect([r.code, r.stderr]).toEqual([
      1,
      expect.stringMatching(/no complete answer from 127\.0\.0\.1:\d+ within 1\.0 s/),
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('XCTL_TIMEOUT is checked', async () => {
    const r = await run(['request', '/2/x'], { extra: { XCTL_TIMEOUT: '1e3' } });
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('XCTL_TIMEOUT must be')]);
  });
});

describe('redirects', () => {
  beforeEach(() => {
    handler = (_q, res) => {
      res.writeHead(302, { location: `${otherBase}/steal` });
      res.end();
    };
  });

  it('a 3xx is an error naming the Location, and is not followed', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['webhooks', 'delete', '123', '--yes'], /DELETE \/2\/webhooks\/123 answered HTTP 302/],
      [['webhooks', 'create', 'https://hooks.example.com/x'], /POST \/2\/webhooks answered HTTP 302/],
      [['audiences', 'create', '--name', 'x'], /answered HTTP 302/],
      [['request', '/2/webhooks'], /answered HTTP 302/],
    ];
    for (const [args, re] of cases) {
      const r = await run(args);
      expect([r.code, r.stdout], args.join(' ')).toEqual([1, '']);
      expect(r.stderr).toMatch(re);
      expect(r.stderr).toContain(`${otherBase}/steal`);
      expect(r.stderr).not.toMatch(/deleted webhook/);
    }
    expect(otherHits).toEqual([]);
  });
});

describe('rate-limit headers that make no sense', () => {
  it('a NaN or past reset is a bounded backoff, not a hot loop', async () => {
    for (const reset of ['NaN', '0', 'soon']) {
      hits = [];
      handler = (_q, res) =>
        json(
          res,
          429,
          { errors: [{ code: 88, message: 'Rate limit exceeded' }] },
          { 'x-rate-limit-limit': '15', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': reset },
        );
      const r = await run(['request', '/2/webhooks', '--max-wait', '1'], { timeoutMs: 25_000 });
      expect([r.code, r.stderr], reset).toEqual([1, expect.stringContaining('Rate limit exceeded')]);
      expect(hits.length, reset).toBeLessThanOrEqual(8);
    }
  });
});

describe('activity stream from a hostile server', () => {
  it('keeps split multi-byte characters whole, prints only JSON lines, escapes them, and drops overlong lines', async () => {
    const { spawnCli } = await import('../helpers/receiver.js');
    handler = (req, res) => {
      if (!req.url!.startsWith('/2/activity/stream')) return json(res, 404, {});
      res.writeHead(200, { 'content-type': 'application/json' });
      const first = Buffer.from(JSON.stringify({ data: { event_uuid: 'e1', payload: { title: 'café 日本' } } }) + '\n');
      const cut = first.indexOf(Buffer.from('é')) + 1; // inside the two bytes of é
      const steps: Array<Buffer | string> = [
        first.subarray(0, cut),
        first.subarray(cut),
        '<html>not json</html>\n',
        JSON.stringify({ data: { event_uuid: 'e2', payload: { title: EVIL } } }) + '\n',
        '{"data":{"event_uuid":"big","payload":"' + 'x'.repeat(600_000),
        'x'.repeat(600_000) + '"}}\n',
        JSON.stringify({ data: { event_uuid: 'e3', payload: { title: 'last' } } }) + '\n',
      ];
      let i = 0;
      const t = setInterval(() => {
        if (res.destroyed || i >= steps.length) return clearInterval(t);
        res.write(steps[i++]);
      }, 60);
    };
    const s = spawnCli(['activity', 'stream'], env());
    try {
      await s.waitStdout(/"last"/);
      const lines = s.stdout().trim().split('\n');
      expect(lines.map((l) => JSON.parse(l).data.event_uuid)).toEqual(['e1', 'e2', 'e3']);
      expect(JSON.parse(lines[0]!).data.payload.title).toBe('café 日本');
      expect(s.stdout()).not.toMatch(TERMINAL_CONTROLS);
      expect(JSON.parse(lines[1]!).data.payload.title).toBe(EVIL); // the value is exact
      expect(s.stderr()).toMatch(/skipped a stream line that is not JSON/);
      expect(s.stderr()).toMatch(/dropped a stream line longer than 1000000 characters/);
      expect(s.stderr()).not.toMatch(TERMINAL_CONTROLS);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });
});

describe('audience upload against nonsense rate-limit headers', () => {
  const users = () => {
    const f = `${tempDir('xctl-hostile-up-')}/users.txt`;
    fs.writeFileSync(f, 'a@example.com\nb@example.com\n');
    return f;
  };

  it('a NaN or past reset on every 429 is a bounded retry, then exit 4 with the resume hint', async () => {
    for (const reset of ['NaN', '1']) {
      hits = [];
      handler = (_q, res) =>
        json(
          res,
          429,
          { errors: [{ code: 'TOO_MANY_REQUESTS', message: 'Rate limit exceeded' }] },
          { 'x-rate-limit-limit': '1500', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': reset },
        );
      const r = await run(['audiences', 'upload', 'abc123', users(), '--type', 'email'], { timeoutMs: 20_000 });
      expect([r.code, r.stderr], reset).toEqual([4, expect.stringMatching(/gave up on batch 1/)]);
      expect(hits.length, reset).toBeLessThanOrEqual(8);
    }
  });

  it('a reset past the timer range is waited for (clamped), not fired at once in a loop', async () => {
    const { spawnCli } = await import('../helpers/receiver.js');
    const far = Math.floor(Date.now() / 1000) + 60 * 86_400;
    handler = (_q, res) =>
      json(
        res,
        429,
        { errors: [{ code: 'TOO_MANY_REQUESTS', message: 'Rate limit exceeded' }] },
        { 'x-rate-limit-limit': '1500', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(far) },
      );
    const s = spawnCli(
      ['audiences', 'upload', 'abc123', users(), '--type', 'email', '--max-wait', '99999999999'],
      env(),
    );
    try {
      await s.waitStderr(/waiting .* for the reset/);
      await new Promise((r) => setTimeout(r, 1500));
      expect(hits.length).toBe(1);
    } finally {
      expect(await s.stop()).toBe(130);
    }
  });
});

describe('small things a hostile server or a careless input could exploit', () => {
  it('--all stops after a fixed number of empty pages that keep naming a new cursor', async () => {
    let k = 0;
    handler = (_q, res) => json(res, 200, { data: [], next_cursor: `c${++k}`, request: {} });
    const r = await run(['ads', 'campaigns', 'list', '--all', '-o', 'json'], { timeoutMs: 20_000 });
    expect([r.code, r.stderr]).toEqual([
      1,
      expect.stringContaining('stopped following next_cursor after 10 empty pages in a row'),
    ]);
    expect(hits).toHaveLength(10);
  });
});

const HAS_OPENSSL = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;

// ---- hardening ----
// Bad input, broken servers and secrets, through the real CLI (issue: hardening).
describe('hardening', () => {
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

    if (HAS_OPENSSL) {
      // openssl is there: a certificate it cannot make is a failure, not a skip
      const { key, cert } = selfSigned(tempDir('xctl-tls-'), 'localhost');
      tls = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (_q, s) => s.end('{}'));
      await new Promise<void>((r) => tls!.listen(0, '127.0.0.1', r));
      tlsUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
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
    it.skipIf(!HAS_OPENSSL)(
      `a TLS failure names TLS and hints at the certificate${HAS_OPENSSL ? '' : ' (SKIPPED: openssl is not on this machine)'}`,
      async () => {
        const r = await runCli(['request', '/x'], { env: { ...creds(), XCTL_BASE_URL: tlsUrl! } });
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/TLS failure/);
        oneLineError(r.stderr);
      },
    );
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

  // Secrets: safety-input.test.ts (every verb family, files, the store); argv: bad-input there.
});

// ---- receiver-hostile ----
// `webhooks listen` against hostile senders (issue 14, items 1 and 9): CRC tokens that are JSON
// texts, escape sequences in event data, repeated deliveries, oversized and flooding bodies.
describe('receiver-hostile', () => {
  const SECRET = 'receiver-secret-0123456789';
  let l: LongRun;
  let url: string;
  let port: number;

  beforeAll(async () => {
    l = spawnCli(['webhooks', 'listen'], { XCTL_CONFIG_DIR: tempDir(), XCTL_API_KEY: 'k', XCTL_API_SECRET: SECRET });
    url = (await l.waitStderr(/listening on (http:\/\/\S+?)[;\s]/))[1]!;
    port = Number(new URL(url).port);
  });
  afterAll(async () => {
    expect(await l.stop()).toBe(0);
  });

  const post = (body: string) =>
    fetch(url, {
      method: 'POST',
      body,
      headers: { 'x-service-webhooks-signature': expectedSignature(SECRET, Buffer.from(body)) },
    });

  /** Sends raw bytes and resolves with what the listener answered (or '' when it closed). */
  function raw(bytes: string, keepOpen = false): Promise<{ answer: string; socket: net.Socket }> {
    return new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => s.write(bytes));
      let answer = '';
      s.on('data', (d) => {
        answer += d;
        if (!keepOpen) s.destroy();
        resolve({ answer, socket: s });
      });
      s.on('error', () => resolve({ answer, socket: s }));
      s.on('close', () => resolve({ answer, socket: s }));
    });
  }

  describe('webhooks listen against hostile senders', () => {
    it('refuses CRC tokens that are JSON texts: their signature would sign a forged body', async () => {
      for (const token of ['null', 'true', 'false', '12345', '-1.5e+300', '0']) {
        const r = await fetch(`${url}?crc_token=${encodeURIComponent(token)}`);
        expect(r.status, token).toBe(400);
      }
      const ok = await fetch(`${url}?crc_token=aGVsbG8td29ybGQ`);
      expect(ok.status).toBe(200);
    });

    it('escapes control characters and bidi overrides in event lines', async () => {
      const evil = '\u001b]0;pwned\u0007\u001b[2J\r\u009b1m\u202eexe';
      const body = JSON.stringify({ data: { id: '1', text: `hi ${evil}`, author_id: `u${evil}` } });
      expect((await post(body)).status).toBe(200);
      const line = (await l.waitStdout(/hi .*\n/))[0];
      expect(line).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(line).toContain('\\u001b]0;pwned\\u0007');
    });

    it('drops a repeated delivery of the same event_uuid and says so', async () => {
      const body = JSON.stringify({
        data: { event_uuid: 'dup-1', event_type: 'profile.update.bio', payload: { after: 'once-only' } },
      });
      expect((await post(body)).status).toBe(200);
      expect((await post(body)).status).toBe(200);
      await l.waitStderr(/dropped a repeated delivery of event dup-1/);
      expect(l.stdout().match(/once-only/g)).toHaveLength(1);
    });

    it('refuses a declared Content-Length over the cap before reading the body', async () => {
      const { answer } = await raw(
        `POST ${new URL(url).pathname} HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\nx-service-webhooks-signature: sha256=x\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 413/);
      await l.waitStderr(/body too large \(Content-Length 999999999/);
    });

    it('bounds the bytes held across connections', async () => {
      const path = new URL(url).pathname;
      const chunk = 'x'.repeat(4_000_000);
      const sockets: net.Socket[] = [];
      const answers: string[] = [];
      for (let i = 0; i < 10; i++) {
        const s = net.connect(port, '127.0.0.1');
        s.on('error', () => {});
        s.on('data', (d) => answers.push(String(d)));
        s.write(
          `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 4900000\r\nx-service-webhooks-signature: sha256=x\r\n\r\n`,
        );
        s.write(chunk);
        sockets.push(s);
      }
      try {
        await waitFor(() => answers.some((a) => /^HTTP\/1\.1 503/.test(a)), 'a 503 once 32 MB are held');
        await l.waitStderr(/too much buffered across connections/);
      } finally {
        for (const s of sockets) s.destroy();
      }
      // the held bytes are released: an ordinary delivery is taken again
      await waitFor(
        async () => (await post(JSON.stringify({ data: { id: '9', text: 'after the flood' } }))).status === 200,
        'a delivery after the flood',
      );
    });

    it('bounds concurrent connections', async () => {
      const sockets: net.Socket[] = [];
      let closed = 0;
      for (let i = 0; i < 100; i++) {
        const s = net.connect(port, '127.0.0.1');
        s.on('error', () => {});
        s.on('close', () => closed++);
        sockets.push(s);
      }
      try {
        await waitFor(() => closed >= 36, 'connections beyond the cap to be closed');
      } finally {
        for (const s of sockets) s.destroy();
      }
      await waitFor(
        async () => (await fetch(`${url}?crc_token=abc-def`)).status === 200,
        'the listener to answer again',
      );
    });
  });
});
