// `xctl request` tested where it lives: flags -> options through runF, the request it builds
// (HTTP registry), the refusals made before anything is sent and the errors an answer maps to.
// -d JSON bodies and --paginate are in test/unit/request-body-paginate.test.ts; the signatures an
// independent verifier accepts, and the sandbox's answers, in test/e2e/request.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { registerRequest, request } from '../../../src/commands/request.js';
import { exitOf } from '../../helpers/exit-of.js';
import { HttpRegistry, json, networkError, route, text } from '../../helpers/http-registry.js';
import { testContext, type TestContext } from '../../helpers/test-context.js';

let t: TestContext;
afterEach(() => t.cleanup());

describe('request: flags -> options (runF)', () => {
  const optionsOf = (argv: string[]) =>
    t.optionsOf((p, runF) => registerRequest(p.command('request'), runF), ['request', ...argv]);
  it('defaults: --auth user, the path', async () => {
    t = testContext();
    expect(await optionsOf(['/2/webhooks'])).toEqual({ path: '/2/webhooks', auth: 'user', data: [], header: [] });
  });
  it('-d and -H repeat; -X, --ads, -i, --raw, --paginate, --body', async () => {
    t = testContext();
    const argv = ['/x', '-X', 'post', '-d', 'a=1', '-d', 'b=2', '-H', 'X-A: 1', '-H', 'X-B: 2', '--ads'];
    expect(await optionsOf([...argv, '-i', '--raw', '--paginate', '--body', '-', '--auth', 'app'])).toEqual({
      path: '/x',
      method: 'post',
      data: ['a=1', 'b=2'],
      header: ['X-A: 1', 'X-B: 2'],
      ads: true,
      include: true,
      raw: true,
      paginate: true,
      body: '-',
      auth: 'app',
    });
  });
});

describe('request: refusals before anything is sent (exit 2)', () => {
  it.each([
    [{ path: 'no-slash' }, 'the path must start with "/" (got "no-slash")'],
    [{ path: '/x', data: ['novalue'] }, '-d'],
    [{ path: '/x', method: 'FETCH' }, '-X must be one of GET, POST, PUT, DELETE, PATCH, HEAD (got "FETCH")'],
    [{ path: '/x', auth: 'magic' }, '--auth must be one of user, app, oauth2, none, basic (got "magic")'],
    [{ path: '/x', body: '@/nonexistent/file.json' }, '/nonexistent/file.json'],
    [{ path: '/x', header: ['Authorization: Bearer x'] }, '-H cannot set Authorization: use --auth'],
    [{ path: '/x', header: ['no colon'] }, '-H takes "Name: value" (got "no colon")'],
    [{ path: '/x', data: ['a=1'], body: '-' }, '-d and --body cannot be combined: a request has one body'],
    [{ path: '/x', method: 'POST', paginate: true }, '--paginate reads pages with GET (got POST)'],
  ])('%j', async (o, words) => {
    const http = new HttpRegistry();
    t = testContext({ transport: http });
    const r = await exitOf(request(t.ctx, o));
    expect(r.code).toBe(2);
    expect(r.message).toContain(words);
    expect(http.requests).toEqual([]);
  });

  it('a --body on stdin that is not JSON', async () => {
    const http = new HttpRegistry();
    t = testContext({ transport: http, stdin: '{not json' });
    const r = await exitOf(request(t.ctx, { path: '/x', body: '-' }));
    expect([r.code, r.message]).toEqual([2, expect.stringMatching(/not valid JSON/)]);
    expect(http.requests).toEqual([]);
  });

  it('plain http for a host off loopback', async () => {
    const http = new HttpRegistry();
    t = testContext({ transport: http, env: { XCTL_BASE_URL: 'http://example.com' } });
    const r = await exitOf(request(t.ctx, { path: '/x' }));
    expect([r.code, r.message]).toEqual([2, expect.stringMatching(/plain http is refused/)]);
    expect(http.requests).toEqual([]);
  });
});

describe('request: what it sends and prints', () => {
  it('GET with the query as given, signed as the user; the body printed as JSON', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/1.1/things.json', { query: { q: 'café & crème', count: '5' } }),
      json({ ok: true }),
    );
    t = testContext({ transport: http });
    await request(t.ctx, { path: '/1.1/things.json?q=caf%C3%A9%20%26%20cr%C3%A8me&count=5', auth: 'user' });
    http.verify();
    expect(http.requests[0]!.headers.authorization).toMatch(/^OAuth oauth_consumer_key="test-api-key"/);
    expect(JSON.parse(t.stdout())).toEqual({ ok: true });
    expect(t.stderr()).toBe('');
  });

  it('-d pairs are a form body and make it a POST', async () => {
    const http = new HttpRegistry().register(route('POST', '/1.1/statuses/update.json'), json({ ok: true }));
    t = testContext({ transport: http });
    await request(t.ctx, { path: '/1.1/statuses/update.json', data: ['status=Hello + you', 'emoji=☃ ünï'] });
    expect([...http.requests[0]!.form()]).toEqual([
      ['status', 'Hello + you'],
      ['emoji', '☃ ünï'],
    ]);
  });

  it('a 401 code 32 is an auth error (exit 3) with a hint', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/1.1/x.json'),
      json({ errors: [{ code: 32, message: 'Could not authenticate you.' }] }, 401),
    );
    t = testContext({ transport: http });
    const err: unknown = await request(t.ctx, { path: '/1.1/x.json' }).catch((e: unknown) => e);
    const e = err as { exitCode: number; message: string; hint?: string };
    expect([e.exitCode, e.message]).toEqual([3, 'Could not authenticate you. (HTTP 401, code 32)']);
    expect(e.hint).toBeTruthy();
  });

  it('an HTML answer where JSON was expected is one error (exit 1) naming the HTML page', async () => {
    const http = new HttpRegistry().register(
      route('GET', '/html'),
      text('<html><body>login</body></html>', 200, 'text/html'),
    );
    t = testContext({ transport: http });
    const err: unknown = await request(t.ctx, { path: '/html' }).catch((e: unknown) => e);
    const e = err as { exitCode: number; message: string; hint?: string };
    expect(e.exitCode).toBe(1);
    expect(e.message).toMatch(/HTML page/);
    // main.ts prints "error: MESSAGE" and at most one hint line
    expect(`${e.message}${e.hint ?? ''}`).not.toContain('\n');
  });

  it('a refused connection is a network error (exit 1) saying so', async () => {
    const http = new HttpRegistry().register(route('GET', '/x'), networkError('ECONNREFUSED'), { times: 10 });
    t = testContext({ transport: http });
    const r = await exitOf(request(t.ctx, { path: '/x' }));
    expect(r.code).toBe(1);
    expect(r.message).toMatch(/connection refused/);
  });
});
