// Requirements of the ads spec the line-by-line audit found the sandbox breaking, each checked
// against a real sandbox over loopback: the rate-limit headers of the category that counted a
// request, JSON-only bodies, promotion of a RETWEETS_ONLY user's post.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth1Header } from '../../src/core/oauth1.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(() => sb.close());

/** A request signed with the seeded owner's OAuth 1.0a user token. */
async function signed(
  method: string,
  path: string,
  o: { body?: string; type?: string } = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const url = `${sb.app.baseUrl}${path}`;
  const s = sb.app.seed;
  const form = o.type === 'application/x-www-form-urlencoded' ? [...new URLSearchParams(o.body ?? '')] : undefined;
  const authorization = oauth1Header(
    { consumerKey: s.api_key, consumerSecret: s.api_secret, token: s.access_token, tokenSecret: s.access_token_secret },
    { method, url, ...(form ? { form } : {}) },
  );
  const res = await fetch(url, {
    method,
    headers: { authorization, ...(o.type ? { 'content-type': o.type } : {}) },
    body: o.body,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe('rate-limit headers name the category that counted the request', () => {
  it('with_total_count: its own 200-a-window limit in the headers, the 429 included', async () => {
    const before = sb.app.rates.limits['ads-total-count']!;
    sb.app.rates.limits['ads-total-count'] = { limit: 2, windowMs: 15 * 60_000 };
    try {
      const path = `/12/accounts/${sb.app.seed.account_id}/campaigns`;
      const plain = await signed('GET', path);
      expect(plain.headers.get('x-rate-limit-limit')).toBe('10000');
      const first = await signed('GET', `${path}?with_total_count=true`);
      expect(first.status).toBe(200);
      expect([first.headers.get('x-rate-limit-limit'), first.headers.get('x-rate-limit-remaining')]).toEqual([
        '2',
        '1',
      ]);
      expect(first.headers.get('x-account-rate-limit-limit')).toBe('2');
      await signed('GET', `${path}?with_total_count=true`);
      const refused = await signed('GET', `${path}?with_total_count=true`);
      expect(refused.status).toBe(429);
      expect([refused.headers.get('x-rate-limit-limit'), refused.headers.get('x-rate-limit-remaining')]).toEqual([
        '2',
        '0',
      ]);
    } finally {
      sb.app.rates.limits['ads-total-count'] = before;
      sb.app.rates.reset();
    }
  });
});

describe('batches and JSON-body endpoints take JSON only', () => {
  const item = JSON.stringify([
    { operation_type: 'Create', params: { name: 'plain text', funding_instrument_id: 'x', objective: 'REACH' } },
  ]);
  it('a batch sent as text/plain is refused, not read as JSON', async () => {
    const r = await signed('POST', `/12/batch/accounts/${sb.app.seed.account_id}/campaigns`, {
      body: item,
      type: 'text/plain',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { code: 'INVALID_PARAMETER', message: 'the request body must be sent as application/json (got text/plain)' },
    ]);
  });

  it('POST cards sent as text/plain is refused', async () => {
    const r = await signed('POST', `/12/accounts/${sb.app.seed.account_id}/cards`, {
      body: JSON.stringify({ name: 'c', components: [] }),
      type: 'text/plain',
    });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.errors)).toContain('must be sent as application/json (got text/plain)');
  });
});

describe('promoting a post by id (docs/contract.md, ads 5)', () => {
  it("a RETWEETS_ONLY user's post is promoted as a nullcasted repost with a tweet_id of its own; a FULL user's as it is", async () => {
    const acct = sb.app.seed.account_id;
    const li = 'walkli1';
    sb.app.state
      .collection('line_items')
      .set(li, { id: li, account_id: acct, deleted: false, product_type: 'PROMOTED_TWEETS' });
    const posts = sb.app.state.collection('posts');
    posts.set('1450000000000000001', { id: '1450000000000000001', text: 'by alice', author_id: '783214' });
    posts.set('1450000000000000002', {
      id: '1450000000000000002',
      text: 'by the owner',
      author_id: sb.app.seed.user_id,
    });
    const promote = (id: string) =>
      signed('POST', `/12/accounts/${acct}/promoted_tweets`, {
        body: new URLSearchParams({ line_item_id: li, tweet_ids: id }).toString(),
        type: 'application/x-www-form-urlencoded',
      });
    const alice = await promote('1450000000000000001');
    expect(alice.status, JSON.stringify(alice.body)).toBe(200);
    const [rt] = alice.body.data as Array<{ tweet_id: string }>;
    expect(rt!.tweet_id).not.toBe('1450000000000000001');
    expect(sb.app.state.collection('tweets').get(rt!.tweet_id)).toMatchObject({
      nullcast: true,
      retweeted_status_id: '1450000000000000001',
    });
    // Asked again, the same promotion answers (no second repost).
    const again = await promote('1450000000000000001');
    expect((again.body.data as Array<{ tweet_id: string }>)[0]!.tweet_id).toBe(rt!.tweet_id);
    const owner = await promote('1450000000000000002');
    expect((owner.body.data as Array<{ tweet_id: string }>)[0]!.tweet_id).toBe('1450000000000000002');
  });
});
