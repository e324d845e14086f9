// `xctl request` as xurl and `gh api` users type it (issue 29, item 1): a JSON object after -d,
// -d @file, --paginate over next_token / next_cursor (with --jq on each page), and a 403
// "Unsupported Authentication" that names the --auth to pass.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpRegistry, json, route, type Matcher, type RecordedRequest } from '../helpers/http-registry.js';
import { useTestContexts } from '../helpers/test-context.js';

const tc = useTestContexts();

/** The first page: the path without the cursor parameter. */
function firstPage(p: string, param: string): Matcher {
  return Object.assign((r: RecordedRequest) => r.path === p && !r.query.has(param), {
    describe: `GET ${p} (no ${param})`,
  });
}

describe('request -d', () => {
  it('a JSON object after -d is the JSON body (POST, unsigned body)', async () => {
    const reg = new HttpRegistry().register(route('POST', '/2/tweets'), json({ data: { id: '7', text: 'hi' } }, 201));
    const t = tc({ transport: reg });
    await t.run(['request', '-X', 'POST', '/2/tweets', '-d', '{"text":"hi"}']);
    expect(reg.requests[0]!.headers['content-type']).toMatch(/^application\/json/);
    expect(reg.requests[0]!.json()).toEqual({ text: 'hi' });
    expect(JSON.parse(t.stdout())).toEqual({ data: { id: '7', text: 'hi' } });
  });

  it('-d @file reads the body from a file: JSON, or key=value&... as a signed form', async () => {
    const reg = new HttpRegistry()
      .register(route('POST', '/2/tweets'), json({ data: { id: '8' } }, 201))
      .register(route('POST', '/1.1/x.json'), json({ ok: true }));
    const u = tc({ transport: reg });
    const body = path.join(u.configDir, 'body.json');
    fs.writeFileSync(body, '{"text": "from a file", "reply": {"in_reply_to_tweet_id": "1"}}\n');
    const form = path.join(u.configDir, 'form.txt');
    fs.writeFileSync(form, 'status=a%20b&x=1\n');
    await u.run(['request', '/2/tweets', '-d', `@${body}`]);
    await u.run(['request', '/1.1/x.json', '-d', `@${form}`]);
    expect(reg.requests[0]!.method).toBe('POST');
    expect(reg.requests[0]!.json()).toEqual({ text: 'from a file', reply: { in_reply_to_tweet_id: '1' } });
    expect([...reg.requests[1]!.form()]).toEqual([
      ['status', 'a b'],
      ['x', '1'],
    ]);
    expect(reg.requests[1]!.headers.authorization).toMatch(/^OAuth /);
    await expect(u.run(['request', '/2/tweets', '-d', '@/nonexistent/body.json'])).rejects.toMatchObject({
      exitCode: 2,
      message: '--data: cannot read /nonexistent/body.json: no such file',
    });
  });

  it('bad -d values exit 2 before anything is sent, pointing at the JSON forms', async () => {
    const reg = new HttpRegistry();
    const t = tc({ transport: reg });
    await expect(t.run(['request', '/2/tweets', '-d', 'hi'])).rejects.toMatchObject({
      exitCode: 2,
      message: '-d takes key=value, a JSON object or @file (got "hi")',
      hint: `a JSON body: -d '{"text":"hi"}', -d @body.json or --body - (stdin)`,
    });
    await expect(t.run(['request', '/2/tweets', '-d', '{"text":'])).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^--data: the JSON body is not valid JSON/),
    });
    await expect(t.run(['request', '/2/tweets', '-d', '{"a":1}', '-d', 'b=2'])).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/one body/),
    });
    expect(reg.requests).toEqual([]);
  });
});

describe('request --paginate', () => {
  function v2Pages(): HttpRegistry {
    const reg = new HttpRegistry();
    reg.register(
      firstPage('/2/users/1/followers', 'pagination_token'),
      json({ data: [{ id: 'a' }, { id: 'b' }], meta: { result_count: 2, next_token: 'T2' } }),
    );
    reg.register(
      route('GET', '/2/users/1/followers', { query: { pagination_token: 'T2', max_results: '2' } }),
      json({ data: [{ id: 'c' }], meta: { result_count: 1, next_token: 'T3' } }),
    );
    reg.register(
      route('GET', '/2/users/1/followers', { query: { pagination_token: 'T3' } }),
      json({ data: [{ id: 'd' }], meta: { result_count: 1 } }),
    );
    return reg;
  }

  it('follows meta.next_token (as pagination_token) and prints every page; --jq runs on each page', async () => {
    const reg = v2Pages();
    const t = tc({ transport: reg });
    await t.run(['request', '/2/users/1/followers?max_results=2', '--paginate', '--jq', '.data[].id']);
    expect(t.stdout()).toBe('a\nb\nc\nd\n');
    reg.verify();
    const j = tc({ transport: v2Pages() });
    await j.run(['request', '/2/users/1/followers?max_results=2', '--paginate', '-o', 'jsonl']);
    expect(
      j
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).meta.result_count),
    ).toEqual([2, 1, 1]);
  });

  it('ads next_cursor (as cursor); -o tsv --fields makes one list of every page', async () => {
    const reg = new HttpRegistry();
    reg.register(firstPage('/12/accounts', 'cursor'), json({ data: [{ id: 'x1', name: 'One' }], next_cursor: 'c2' }));
    reg.register(
      route('GET', '/12/accounts', { query: { cursor: 'c2' } }),
      json({ data: [{ id: 'x2', name: 'Two' }], next_cursor: null }),
    );
    const t = tc({ transport: reg });
    await t.run(['request', '--ads', '/12/accounts', '--paginate', '-o', 'tsv', '--fields', 'id,name', '--header-row']);
    expect(t.stdout()).toBe('id\tname\nx1\tOne\nx2\tTwo\n');
    reg.verify();
  });

  it('without --paginate only the first page is read; a repeated cursor stops; POST is refused', async () => {
    const one = v2Pages();
    const t = tc({ transport: one });
    await t.run(['request', '/2/users/1/followers', '--jq', '.data[].id']);
    expect(t.stdout()).toBe('a\nb\n');
    expect(one.requests).toHaveLength(1);
    const loop = new HttpRegistry().register(route('GET', '/2/x'), json({ data: [], meta: { next_token: 'same' } }), {
      times: Infinity,
    });
    const l = tc({ transport: loop });
    await l.run(['request', '/2/x', '--paginate', '--jq', '.meta.next_token']);
    expect(loop.requests).toHaveLength(2);
    await expect(l.run(['request', '-X', 'POST', '/2/x', '--paginate'])).rejects.toMatchObject({
      exitCode: 2,
      message: '--paginate reads pages with GET (got POST)',
    });
  });
});

describe('request: 403 Unsupported Authentication', () => {
  it('names the --auth the endpoint takes', async () => {
    const reg = new HttpRegistry().register(
      route('GET', '/2/tweets/search/stream/rules'),
      json(
        {
          title: 'Unsupported Authentication',
          detail:
            'Authenticating with OAuth 1.0a User Context is forbidden for this endpoint.  Supported authentication types are [OAuth 2.0 Application-Only].',
          type: 'https://api.twitter.com/2/problems/unsupported-authentication',
          status: 403,
        },
        403,
      ),
    );
    const t = tc({ transport: reg });
    await expect(t.run(['request', '/2/tweets/search/stream/rules'])).rejects.toMatchObject({
      exitCode: 3,
      hint: 'this endpoint takes OAuth 2.0 Application-Only: pass --auth app',
    });
  });
});
