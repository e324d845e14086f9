// A bad-input corpus through every command group of the real CLI (issue 10): malformed flags,
// wrong enums, oversize strings, invalid/empty/binary files for every file input, unknown ids,
// wrong or unreachable base URLs and servers answering HTML or garbage. Each case must give a
// one-line `error:` (plus at most a `hint:`), the documented exit code and no stack trace; exit 2
// cases must send nothing (checked against the sandbox's request log).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdsSandbox, type AdsSandbox } from '../helpers/ads.js';
import { tempDir, type RunResult } from '../helpers/cli.js';

let t: AdsSandbox;
let dir: string;
let html: http.Server;
let htmlUrl: string;
const f: Record<string, string> = {};

beforeAll(async () => {
  t = await startAdsSandbox();
  dir = tempDir('xctl-bad-');
  const write = (name: string, content: string | Buffer) => {
    f[name] = path.join(dir, name + (name === 'csv' ? '.csv' : '.json'));
    fs.writeFileSync(f[name]!, content);
  };
  write('empty', '');
  write('bad', '{"name": "x",');
  write('bin', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.from([0, 0, 255, 254, 0, 1])]));
  write('csv', 'email\na@example.com\n');
  write(
    'targeting',
    JSON.stringify({ targeting_criteria: [{ targeting_type: 'LOCATION', targeting_value: '96683cc9126741d1' }] }),
  );
  f.missing = path.join(dir, 'no-such-file.json');
  // A server that answers every path with an HTML page, or (under /garbage) truncated JSON.
  html = http.createServer((req, res) => {
    if (req.url?.includes('garbage')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"data": [1, 2,');
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>');
  });
  await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
  htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
});

afterAll(async () => {
  html.close();
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Case {
  args: string[];
  code: number;
  /** What the error line must say. */
  re: RegExp;
  env?: Record<string, string>;
}

/** The error contract: `error: ...` on one line, at most one `hint:` line, no stack trace. */
function expectOneLineError(r: RunResult, c: Case): void {
  const label = `xctl ${c.args.join(' ')}\n${r.stderr}`;
  expect(r.code, label).toBe(c.code);
  const lines = r.stderr
    .split('\n')
    .filter((l) => l && !/retrying|^reconnecting in|^warning: stream connection lost|^header: /.test(l));
  expect(lines[0], label).toMatch(/^error: /);
  expect(lines.length, label).toBeLessThanOrEqual(2);
  if (lines[1] !== undefined) expect(lines[1], label).toMatch(/^hint: /);
  expect(lines[0], label).toMatch(c.re);
  expect(lines[0]!.length, label).toBeLessThan(400); // oversize input is clipped, not echoed
  expect(r.stderr, label).not.toMatch(/\n\s+at |node:internal|TypeError|ReferenceError/);
}

/** Runs the cases two at a time (two cores) and checks each; usage errors must send nothing. */
async function corpus(cases: Case[]): Promise<void> {
  const before = t.requests.length;
  for (let i = 0; i < cases.length; i += 4) {
    const batch = cases.slice(i, i + 4);
    const results = await Promise.all(batch.map((c) => t.run(c.args, { env: c.env })));
    results.forEach((r, j) => expectOneLineError(r, batch[j]!));
  }
  if (cases.every((c) => c.code === 2 || c.args[1] === 'verify')) {
    await new Promise((r) => setTimeout(r, 20));
    expect(t.requests.slice(before)).toEqual([]);
  }
}

const long = 'x'.repeat(5000);

describe('malformed flags and wrong enums: exit 2, nothing sent', () => {
  it('auth, request, config, changelog, completion, sandbox', async () => {
    await corpus([
      { args: ['auth', 'set', '--api-key'], code: 2, re: /argument missing/ },
      {
        args: ['auth', 'login', '--access-level', 'admin', '--no-browser'],
        code: 2,
        re: /--access-level must be read or write/,
      },
      { args: ['auth', 'login', '--callback-port', '99999', '--no-browser'], code: 2, re: /--callback-port/ },
      { args: ['auth', 'token', '--type', 'bogus'], code: 2, re: /--type must be user, app or oauth2/ },
      { args: ['auth', 'profiles', 'use', 'nosuch'], code: 2, re: /no profile named "nosuch"/ },
      { args: ['auth', 'set', '--api-secret', 'on-argv'], code: 2, re: /shell history/ },
      { args: ['--profile', 'bad name!', 'auth', 'status'], code: 2, re: /profile names/ },
      { args: ['request'], code: 2, re: /missing required argument 'path'/ },
      { args: ['request', '-X', 'FOO', '/1.1/x'], code: 2, re: /-X must be one of/ },
      { args: ['request', '/1.1/x', '-H', 'no-colon'], code: 2, re: /-H takes "Name: value"/ },
      { args: ['request', '-X', 'POST', '/1.1/x', '-d', 'noequals'], code: 2, re: /-d takes key=value/ },
      { args: ['request', '/1.1/x', '--auth', 'weird'], code: 2, re: /--auth must be one of/ },
      { args: ['request', '/1.1/x', '--no-such-flag'], code: 2, re: /unknown option '--no-such-flag'/ },
      { args: ['request', '/1.1/x', '-o', 'xml'], code: 2, re: /argument 'xml' is invalid/ },
      { args: ['request', '/1.1/x', '--max-wait', 'soon'], code: 2, re: /--max-wait must be a whole number/ },
      { args: ['config', 'get', 'nosuchkey'], code: 2, re: /unknown setting "nosuchkey"/ },
      { args: ['config', 'set', 'output', 'xml'], code: 2, re: /output must be/ },
      { args: ['config', 'set', 'base_url', 'notaurl'], code: 2, re: /base_url must be an http\(s\) URL/ },
      { args: ['changelog', '--since', 'yesterday'], code: 2, re: /--since must be a date/ },
      { args: ['completion', 'powershell'], code: 2, re: /shell must be bash, zsh or fish/ },
      { args: ['sandbox', 'start', '--port', 'abc'], code: 2, re: /--port must be/ },
      { args: ['sandbox', 'start', '--clock', 'sundial'], code: 2, re: /--clock must be real or manual/ },
      { args: ['sandbox', 'start', '--faults', 'garbage'], code: 2, re: /--faults/ },
      { args: ['sandbox', 'trigger', 'profile.update.bio', '--data', '{bad'], code: 2, re: /--data is not valid JSON/ },
      { args: ['nosuchgroup'], code: 2, re: /unknown command 'nosuchgroup'/ },
      {
        args: ['auth', 'import', '--file', 'x'],
        code: 2,
        re: /unknown option '--file' \(did you mean one of --fields, --profile\?\)$/,
      },
      {
        args: ['ads', 'campaigns', 'lst'],
        code: 2,
        re: /unknown command 'lst' for 'xctl ads campaigns' \(did you mean list\?\)$/,
      },
    ]);
  });

  it('webhooks, activity, stream', async () => {
    await corpus([
      { args: ['webhooks', 'create', 'notaurl'], code: 2, re: /webhook URL must/ },
      { args: ['webhooks', 'create', 'http://example.com/x'], code: 2, re: /must use https/ },
      { args: ['webhooks', 'create', `https://example.com/${long}`], code: 2, re: /webhook URL must/ },
      {
        args: ['webhooks', 'replay', '1', '--from', 'garbage', '--to', 'x'],
        code: 2,
        re: /--from must be an ISO time/,
      },
      { args: ['webhooks', 'listen', '--port', '99999'], code: 2, re: /--port must be/ },
      // verify checks raw bytes, so a binary body is a body like any other: the check answers no
      { args: ['webhooks', 'verify', '--signature', 'x', '--body', `@${f.bin}`], code: 1, re: /signature invalid/ },
      { args: ['webhooks', 'verify', '--signature', 'x', '--body', `@${f.empty}`], code: 1, re: /signature invalid/ },
      { args: ['webhooks', 'verify', '--signature', 'x', '--body', `@${f.missing}`], code: 2, re: /no such file/ },
      { args: ['activity', 'subscriptions', 'create', '--event', 'nope.event'], code: 2, re: /--event must be one of/ },
      {
        args: ['activity', 'subscriptions', 'create', '--event', 'profile.update.bio', '--direction', 'sideways'],
        code: 2,
        re: /--direction/,
      },
      {
        args: ['activity', 'subscriptions', 'create', '--event', 'dm.received', '--keyword', long],
        code: 2,
        re: /--keyword must be 1-150/,
      },
      { args: ['activity', 'subscriptions', 'delete', 'abc', '--yes'], code: 2, re: /1-19 digits/ },
      { args: ['activity', 'stream', '--backfill-minutes', '9'], code: 2, re: /--backfill-minutes/ },
      { args: ['stream', 'rules', 'add', long], code: 2, re: /value must be 1-2048 characters/ },
      { args: ['stream', 'rules', 'add', '--file', f.bin!], code: 2, re: /looks binary/ },
      { args: ['stream', 'rules', 'add', '--file', f.empty!], code: 2, re: /rules must be a non-empty array/ },
      { args: ['stream', 'rules', 'add', '--file', f.missing!], code: 2, re: /no such file/ },
      { args: ['stream', 'webhooks', 'link', 'abc'], code: 2, re: /./ },
    ]);
  });

  it('ads: flags, enums, oversize strings and every --file input (empty, invalid JSON, binary, missing)', async () => {
    const files = (args: string[]): Case[] => [
      { args: [...args, '--file', f.empty!], code: 2, re: /empty/ },
      { args: [...args, '--file', f.bad!], code: 2, re: /not valid JSON/ },
      { args: [...args, '--file', f.bin!], code: 2, re: /looks binary/ },
      { args: [...args, '--file', f.missing!], code: 2, re: /no such file/ },
    ];
    await corpus([
      { args: ['ads', 'campaigns', 'list', '--count', 'abc'], code: 2, re: /--count must be a whole number/ },
      { args: ['ads', 'campaigns', 'list', '--sort-by', 'nope'], code: 2, re: /--sort-by/ },
      { args: ['ads', 'campaigns', 'list', '--limit', '0'], code: 2, re: /--limit must be/ },
      {
        args: ['ads', 'campaigns', 'update', 'abc', '--entity-status', 'WRONG'],
        code: 2,
        re: /--entity-status must be one of/,
      },
      {
        args: [
          'ads',
          'campaigns',
          'create',
          '--name',
          long,
          '--funding-instrument-id',
          'x',
          '--daily-budget-amount-local-micro',
          '5',
        ],
        code: 2,
        re: /--name must be at most 255 characters .*\(5000 characters\)/,
      },
      { args: ['ads', 'campaigns', 'get', 'bad id!'], code: 2, re: /must be an id/ },
      { args: ['ads', 'ref', 'placements', '--product-type', 'WRONG'], code: 2, re: /--product-type must be one of/ },
      {
        args: ['ads', 'campaigns', 'list', '--account', 'bad account!'],
        code: 2,
        re: /--account must be an account id/,
      },
      ...files(['ads', 'campaigns', 'batch']),
      ...files(['ads', 'cards', 'create']),
    ]);
  });

  it('audiences: flags, enums and every file input (--targeting, --file, upload files)', async () => {
    await corpus([
      { args: ['audiences', 'estimate', '--targeting', f.empty!], code: 2, re: /--targeting: the targeting is empty/ },
      { args: ['audiences', 'estimate', '--targeting', f.bad!], code: 2, re: /--targeting: .*not valid JSON/ },
      { args: ['audiences', 'estimate', '--targeting', f.bin!], code: 2, re: /--targeting: .*looks binary/ },
      { args: ['audiences', 'estimate', '--targeting', f.missing!], code: 2, re: /no such file/ },
      {
        args: ['audiences', 'estimate', '--targeting', f.targeting!, '--operator', 'XX'],
        code: 2,
        re: /--operator must be one of EQ, NE/,
      },
      { args: ['audiences', 'flexible', 'create', '--file', f.empty!], code: 2, re: /empty/ },
      { args: ['audiences', 'flexible', 'create', '--file', f.bad!], code: 2, re: /not valid JSON/ },
      { args: ['audiences', 'flexible', 'create', '--file', f.bin!], code: 2, re: /looks binary/ },
      { args: ['audiences', 'upload', 'abc', f.bin!, '--type', 'email'], code: 2, re: /looks binary/ },
      { args: ['audiences', 'upload', 'abc', f.missing!, '--type', 'email'], code: 2, re: /no such file/ },
      { args: ['audiences', 'upload', 'abc', f.csv!, '--type', 'nonsense'], code: 2, re: /--type must be one of/ },
      {
        args: ['audiences', 'upload', 'abc', f.csv!, '--type', 'email', '--batch-size', '0'],
        code: 2,
        re: /--batch-size/,
      },
      {
        args: ['audiences', 'upload', 'abc', f.csv!, '--type', 'email', '--format', 'xml'],
        code: 2,
        re: /argument 'xml' is invalid/,
      },
      {
        args: ['audiences', 'upload', 'abc', f.csv!, '--type', 'email', '--expires-at', 'never'],
        code: 2,
        re: /--expires-at must be an ISO 8601 time/,
      },
      {
        args: ['audiences', 'do-not-reach', 'upload', 'abc', f.csv!, '--type', 'handle'],
        code: 2,
        re: /only email and phone_number/,
      },
      { args: ['audiences', 'sync', 'abc', f.bin!, '--type', 'email'], code: 2, re: /looks binary/ },
      { args: ['audiences', 'sync', 'abc', f.missing!, '--type', 'email', '--plan'], code: 2, re: /no such file/ },
      {
        args: ['audiences', 'sync', 'abc', f.csv!, '--type', 'email', '--concurrency', '0'],
        code: 2,
        re: /--concurrency/,
      },
      { args: ['audiences', 'hash', f.bin!, '--type', 'email'], code: 2, re: /looks binary/ },
      { args: ['audiences', 'hash', f.missing!, '--type', 'email'], code: 2, re: /does not exist/ },
      { args: ['audiences', 'hash', f.csv!, '--column', 'fax=Fax'], code: 2, re: /--column must be TYPE=HEADER/ },
      { args: ['audiences', 'list', '--limit', 'many'], code: 2, re: /--limit/ },
    ]);
  });
});

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
      {
        args: ['audiences', 'upload', 'nosuch', f.csv!, '--type', 'email', '--restart'],
        code: 1,
        re: /not found.*HTTP 404/,
      },
      { args: ['request', '/1.1/no/such/path.json'], code: 1, re: /HTTP 404/ },
    ]);
  });
});

describe('wrong base URL, unreachable host, HTML and garbage answers', () => {
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

  it('a base URL that is not a loopback http or an https URL is refused before sending (exit 2)', async () => {
    await corpus([
      ...families.map((args) => ({
        args,
        code: 2,
        re: /base.url|http is refused|not a URL/i,
        env: { XCTL_BASE_URL: 'http://example.com' },
      })),
      { args: ['ads', 'accounts', 'list', '--base-url', 'ftp://x'], code: 2, re: /--base-url/ },
      { args: ['audiences', 'list', '--base-url', 'not a url'], code: 2, re: /--base-url/ },
    ]);
  });

  it('an unreachable loopback port: connection refused at once, one line with a hint (exit 1)', async () => {
    await corpus(
      families.map((args) => ({
        args,
        code: 1,
        re: /connection refused by 127\.0\.0\.1:1/,
        env: { XCTL_BASE_URL: 'http://127.0.0.1:1', XCTL_RETRY_BASE_MS: '1' },
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
      {
        args: ['audiences', 'upload', 'abc', f.csv!, '--type', 'email', '--restart'],
        code: 1,
        re: /HTML page/,
        env: { XCTL_BASE_URL: htmlUrl },
      },
      { args: ['request', '/garbage'], code: 1, re: /malformed JSON/, env: { XCTL_BASE_URL: htmlUrl } },
      { args: ['ads', 'campaigns', 'list', '--base-url', htmlUrl + '/garbage'], code: 1, re: /malformed JSON/ },
    ]);
  });
});
