// The real CLI against a small loopback server that checks every OAuth 1.0a signature itself,
// with the sandbox's independent base-string code (not the client's library); then `xctl request`
// as xurl and `gh api` users type it against a real sandbox. Refusals before sending, the HTML
// answer and the flags are tested in-process in test/unit/verbs/request.test.ts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacSha1, parseOAuthHeader, signatureBaseString } from '../../src/sandbox/verify.js';
import { runCli, tempDir, useTestSandbox } from '../helpers/cli.js';

const KEY = 'test-consumer-key';
const SECRET = 'test-consumer-secret!*';
const TOKEN = '12345-test-token';
const TOKEN_SECRET = 'test token secret ü';

interface Seen {
  method: string;
  path: string;
  query: Array<[string, string]>;
  form: Array<[string, string]>;
  valid: boolean;
  contentType?: string;
  body: string;
}

let server: http.Server;
let base: string;
const seen: Seen[] = [];
const env = () => ({
  XCTL_CONFIG_DIR: tempDir(),
  XCTL_BASE_URL: base,
  XCTL_API_KEY: KEY,
  XCTL_API_SECRET: SECRET,
  XCTL_ACCESS_TOKEN: TOKEN,
  XCTL_ACCESS_TOKEN_SECRET: TOKEN_SECRET,
});

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const url = new URL(req.url!, `http://${req.headers.host}`);
      const form = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
        ? [...new URLSearchParams(body)]
        : [];
      const oauth = parseOAuthHeader(String(req.headers.authorization ?? '')) ?? {};
      const params: Array<[string, string]> = [
        ...url.searchParams,
        ...form,
        ...Object.entries(oauth).filter(([k]) => k !== 'oauth_signature'),
      ];
      const expected = hmacSha1(
        signatureBaseString(req.method!, `http://${req.headers.host}${url.pathname}`, params),
        SECRET,
        oauth.oauth_token ? TOKEN_SECRET : '',
      );
      const valid =
        oauth.oauth_signature === expected && oauth.oauth_token === TOKEN && oauth.oauth_consumer_key === KEY;
      seen.push({
        method: req.method!,
        path: url.pathname,
        query: [...url.searchParams],
        form,
        valid,
        contentType: req.headers['content-type'],
        body,
      });
      if (url.pathname === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>login</body></html>');
      }
      res.writeHead(valid ? 200 : 401, {
        'content-type': 'application/json',
        'x-rate-limit-limit': '900',
        'x-rate-limit-remaining': '899',
        'x-rate-limit-reset': '2000000000',
      });
      res.end(
        JSON.stringify(
          valid ? { ok: true, path: url.pathname } : { errors: [{ code: 32, message: 'Could not authenticate you.' }] },
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('xctl request (signed by the real CLI, checked by an independent verifier)', () => {
  it('signs a GET with query parameters, including reserved and unicode characters', async () => {
    const r = await runCli(['request', '/1.1/things.json?q=caf%C3%A9%20%26%20cr%C3%A8me&count=5&x=a+b'], {
      env: env(),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, path: '/1.1/things.json' });
    const s = seen.at(-1)!;
    expect(s.valid).toBe(true);
    expect(s.query).toContainEqual(['q', 'café & crème']);
  });

  it('signs a form body (-d) with unicode and reserved characters', async () => {
    const r = await runCli(
      [
        'request',
        '-X',
        'POST',
        '/1.1/statuses/update.json?include_entities=true',
        '-d',
        'status=Hello Ladies + Gentlemen, a signed OAuth request!',
        '-d',
        'emoji=☃ ünï',
      ],
      {
        env: env(),
      },
    );
    expect(r.code).toBe(0);
    const s = seen.at(-1)!;
    expect(s.valid).toBe(true);
    expect(s.method).toBe('POST');
    expect(s.form).toEqual([
      ['status', 'Hello Ladies + Gentlemen, a signed OAuth request!'],
      ['emoji', '☃ ünï'],
    ]);
  });

  it('sends a JSON body unsigned (--body from stdin) and still signs the query', async () => {
    const r = await runCli(['request', '-X', 'POST', '/2/things?tag=a%2Fb', '--body', '-'], {
      env: env(),
      input: '{"name":"x ü"}',
    });
    expect(r.code).toBe(0);
    const s = seen.at(-1)!;
    expect(s.valid).toBe(true);
    expect(s.contentType).toBe('application/json');
    expect(JSON.parse(s.body)).toEqual({ name: 'x ü' });
  });

  it('a wrong secret is rejected by the server: exit 3 with a hint, no secret printed', async () => {
    const r = await runCli(['request', '/1.1/x.json', '-v'], {
      env: { ...env(), XCTL_API_SECRET: 'wrong-secret-value' },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/error: Could not authenticate you\. \(HTTP 401, code 32\)/);
    expect(r.stderr).toMatch(/hint: /);
    expect(r.stderr).not.toContain('wrong-secret-value');
    expect(r.stderr).not.toContain(TOKEN_SECRET);
    expect(r.stderr).not.toContain(TOKEN);
    expect(r.stderr).toContain('authorization: OAuth [redacted]');
  });

  it('an unreachable host is a network error with a hint', async () => {
    const r = await runCli(['request', '/x'], {
      env: { ...env(), XCTL_BASE_URL: 'http://127.0.0.1:1', XCTL_RETRY_BASE_MS: '1' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/connection refused/);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace without --verbose
  });
});

// `xctl request` as xurl and `gh api` users type it (issue 29 items 1 and 2): a JSON object after
// -d, --paginate with --jq over every page, the --auth a 403 "Unsupported Authentication" asks
// for, and --header-row beside request's own -H/--header.
const t = useTestSandbox();

describe('xctl request against the sandbox', () => {
  it('-d with a JSON object is the JSON body; a 403 names the --auth to pass', async () => {
    const add = await t.run([
      'request',
      '-X',
      'POST',
      '/2/tweets/search/stream/rules',
      '--auth',
      'app',
      '-d',
      '{"add":[{"value":"dogs","tag":"d"}]}',
      '--jq',
      '.data[0].value',
    ]);
    expect(add.stderr).toBe('');
    expect(add.stdout).toBe('dogs\n');
    const user = await t.run(['request', '/2/tweets/search/stream/rules']);
    expect(user.code).toBe(3);
    expect(user.stderr).toContain('hint: this endpoint takes OAuth 2.0 Application-Only: pass --auth app');
  });

  it('--paginate follows next_cursor and --jq runs over every page; --header-row with -H', async () => {
    const all = await t.run(['request', '--ads', '/12/accounts', '--jq', '.data[].id']);
    const ids = all.stdout.trim().split('\n');
    expect(ids.length).toBeGreaterThan(1);
    const one = await t.run(['request', '--ads', '/12/accounts?count=1', '--jq', '.data[].id']);
    expect(one.stdout.trim().split('\n')).toHaveLength(1);
    const paged = await t.run(['request', '--ads', '/12/accounts?count=1', '--paginate', '--jq', '.data[].id']);
    expect(paged.stderr).toBe('');
    expect(paged.stdout.trim().split('\n')).toEqual(ids);
    const csv = await t.run([
      'request',
      '--ads',
      '/12/accounts?count=1',
      '--paginate',
      '-H',
      'X-Note: a',
      '-o',
      'csv',
      '--fields',
      'id',
      '--header-row',
    ]);
    expect(csv.stdout).toBe(['id', ...ids, ''].join('\r\n'));
  });
});
