// `xctl ads tweets create` (POST accounts/:account_id/tweet): what it sends, and the post it prints.
import { afterEach, describe, expect, it } from 'vitest';
import { HttpRegistry, route, text } from '../helpers/http-registry.js';
import { testContext, type TestContext } from '../helpers/test-context.js';

const made: TestContext[] = [];
afterEach(() => {
  for (const t of made.splice(0)) t.cleanup();
});

const ANSWER =
  '{"data":{"id":1166476031668015104,"id_str":"1166476031668015104","text":"hello","nullcast":true,"tweet_type":"PUBLISHED","card_uri":null,"created_at":"Tue Aug 27 22:22:12 +0000 2019"},"request":{"params":{}}}';

describe('ads tweets create', () => {
  it('sends as_user_id and text (nullcast left to the service: promoted-only); tsv shows the exact id', async () => {
    const reg = new HttpRegistry();
    reg.register(route('POST', '/12/accounts/acct1/tweet'), text(ANSWER, 200, 'application/json'));
    const t = testContext({ transport: reg });
    made.push(t);
    await t.run(['ads', 'tweets', 'create', '--as-user-id', '756201191646691328', '--text', 'hello']);
    reg.verify();
    const r = reg.requests[0]!;
    const q = new URLSearchParams(r.url.search || r.body);
    expect([q.get('as_user_id'), q.get('text'), q.get('nullcast')]).toEqual(['756201191646691328', 'hello', null]);
    expect(t.stdout()).toBe('1166476031668015104\tPUBLISHED\ttrue\thello\t\tTue Aug 27 22:22:12 +0000 2019\n');
  });

  it('refuses a post with neither text nor media keys, sending nothing', async () => {
    const reg = new HttpRegistry();
    const t = testContext({ transport: reg });
    made.push(t);
    await expect(t.run(['ads', 'tweets', 'create', '--as-user-id', '1'])).rejects.toThrow(
      /--text is required when --media-keys is not given/,
    );
    expect(reg.requests).toEqual([]);
  });
});
