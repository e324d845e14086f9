// Unknown ids, an unreachable host, HTML and garbage answers (issue 10's bad-input corpus),
// in-process against a real sandbox and real loopback servers through the node transport: every
// group turns the answer into one error line with the documented exit code (1; 3 for an account).
// The real process's printing of such errors (one line, a hint, no stack) and `audiences upload`
// (its hashing workers run from the bundle) are in test/e2e/safety-input.test.ts.
import http from 'node:http';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { type CorpusCase, expectCorpus } from '../helpers/outcome.js';
import { testContext } from '../helpers/test-context.js';
import { startHtmlServer } from '../helpers/bad-input.js';
import { sandboxCredentials } from '../helpers/cli.js';

let sb: Sandbox;
let html: http.Server;
let htmlUrl: string;
beforeAll(async () => {
  sb = await startSandbox();
  // Every path answers an HTML page, or (under /garbage) truncated JSON.
  ({ server: html, url: htmlUrl } = await startHtmlServer());
});
afterAll(async () => {
  html.close();
  await sb.close();
});

/** Each case in-process with the sandbox's owner credentials (a fresh store each: no cached bearer). */
async function corpus(cases: CorpusCase[]): Promise<void> {
  await expectCorpus(cases, (c) =>
    testContext({ env: { ...sandboxCredentials(sb.seed), XCTL_BEARER_TOKEN: undefined, ...c.env } }),
  );
}

describe('unknown ids: the 404 (or 403) becomes one line, exit 1 (3 for an account)', () => {
  it('every group', async () => {
    await corpus([
      { args: ['webhooks', 'delete', '999999', '--yes'], code: 1, re: /no webhook with id 999999.*HTTP 404/ },
      { args: ['webhooks', 'validate', '999999'], code: 1, re: /HTTP 404/ },
      { args: ['stream', 'webhooks', 'link', '999999'], code: 1, re: /HTTP 404/ },
      { args: ['activity', 'subscriptions', 'delete', '999999', '--yes'], code: 1, re: /HTTP 404/ },
      { args: ['ads', 'campaigns', 'get', 'nosuch'], code: 1, re: /campaign_id nosuch was not found \(HTTP 404/ },
      { args: ['ads', 'campaigns', 'delete', 'nosuch', '--yes'], code: 1, re: /HTTP 404/ },
      { args: ['ads', 'line-items', 'get', 'nosuch'], code: 1, re: /HTTP 404/ },
      { args: ['ads', 'polls', 'get', 'nosuch'], code: 1, re: /HTTP 404/ },
      {
        args: ['ads', 'campaigns', 'list', '--account', 'nosuchacct'],
        code: 1,
        re: /account nosuchacct was not found.*HTTP 403/,
      },
      { args: ['audiences', 'get', 'nosuch'], code: 1, re: /custom audience nosuch was not found.*HTTP 404/ },
      { args: ['audiences', 'permissions', 'list', 'nosuch'], code: 1, re: /HTTP 404/ },
      { args: ['audiences', 'do-not-reach', 'delete', 'nosuch', '--yes'], code: 1, re: /HTTP 404/ },
      { args: ['request', '/1.1/no/such/path.json'], code: 1, re: /HTTP 404/ },
    ]);
  });
});

describe('unreachable host, HTML and garbage answers', () => {
  const families = [
    ['webhooks', 'list'],
    ['activity', 'subscriptions', 'list'],
    ['activity', 'stream'], // gives up when it never connected, instead of reconnecting forever
    ['stream', 'rules', 'list'],
    ['ads', 'accounts', 'list'],
    ['audiences', 'list'],
    ['auth', 'login', '--no-browser'],
    ['sandbox', 'trigger', 'profile.update.bio'],
    ['request', '/1.1/x'],
  ];

  it('an unreachable loopback port: connection refused at once, one line (exit 1)', async () => {
    await corpus(
      families.map((args) => ({
        args,
        code: 1,
        re: /connection refused by 127\.0\.0\.1:1/,
        env: { XCTL_BASE_URL: 'http://127.0.0.1:1' },
      })),
    );
  });

  it('a server answering HTML: "expected JSON ... HTML page" (exit 1); truncated JSON: "malformed JSON"', async () => {
    await corpus([
      ...families.map((args) => ({
        args,
        code: 1,
        re: /expected (JSON|the event stream) from .* HTML page/,
        env: { XCTL_BASE_URL: htmlUrl },
      })),
      { args: ['request', '/garbage'], code: 1, re: /malformed JSON/, env: { XCTL_BASE_URL: htmlUrl } },
      { args: ['ads', 'campaigns', 'list', '--base-url', `${htmlUrl}/garbage`], code: 1, re: /malformed JSON/ },
    ]);
  });
});
