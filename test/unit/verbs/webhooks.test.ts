// `xctl webhooks ...` tested where the verbs live (gh's list_test.go): flags -> options through
// runF, then each run function's exact terminal and piped output against the HTTP registry, the
// refusals made before anything is sent (exit 2, no request) and the service's answers mapped to
// errors. What only a real process and a real sandbox prove is in test/e2e/webhooks.test.ts.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { register as registerCreate, webhooksCreate } from '../../../src/commands/webhooks/create.js';
import { register, webhooksDelete } from '../../../src/commands/webhooks/delete.js';
import { register as registerList, webhooksList } from '../../../src/commands/webhooks/list.js';
import { register as registerValidate, webhooksValidate } from '../../../src/commands/webhooks/validate.js';
import { register as registerCrc, webhooksCrc } from '../../../src/commands/webhooks/crc.js';
import { register as registerVerify, webhooksVerify } from '../../../src/commands/webhooks/verify.js';
import { register as registerReplay, webhooksReplay } from '../../../src/commands/webhooks/replay.js';
import { register as registerListen, webhooksListen } from '../../../src/commands/webhooks/listen.js';
import { webhooksSend } from '../../../src/commands/webhooks/send.js';
import { webhooksDoctor } from '../../../src/commands/webhooks/doctor.js';
import type { CheckFailed } from '../../../src/core/errors.js';
import { exitOf } from '../../helpers/exit-of.js';
import { HttpRegistry, json, route } from '../../helpers/http-registry.js';
import { useEndpoints, type EndpointMode } from '../../helpers/endpoints.js';
import { TEST_NOW, testContext, type TestContext, type TestContextOptions } from '../../helpers/test-context.js';

let t: TestContext;
afterEach(() => t.cleanup());

/** A context on an empty registry: a test that expects nothing sent reads `http.requests`. */
function quiet(o: TestContextOptions = {}): HttpRegistry {
  const http = new HttpRegistry();
  t = testContext({ transport: http, ...o });
  return http;
}

const sign = (body: string, secret: string) =>
  'sha256=' + crypto.createHmac('sha256', secret).update(body).digest('base64');

const HOOK = {
  id: '1234567890',
  url: 'https://hooks.example.com/x',
  valid: true,
  created_at: '2026-01-15T11:00:00.000Z',
};

describe('webhooks delete: flags -> options (runF)', () => {
  it.each([
    [['delete', '1234567890'], { id: '1234567890' }],
    [['delete', '--all-stale'], { allStale: true }],
    [['delete', '--all-stale', '--dry-run'], { allStale: true, dryRun: true }],
  ])('%j', async (argv, want) => {
    t = testContext();
    expect(await t.optionsOf(register, argv)).toEqual({ id: undefined, ...want });
  });
});

describe('webhooks delete: the run function', () => {
  it('deletes after --yes; says so on stderr, nothing on stdout (piped)', async () => {
    const http = new HttpRegistry().register(
      route('DELETE', '/2/webhooks/1234567890'),
      json({ data: { deleted: true } }),
    );
    t = testContext({ transport: http, globals: { yes: true } });
    await webhooksDelete(t.ctx, { id: '1234567890' });
    http.verify();
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toMatch(/deleted webhook 1234567890/);
  });

  it('refuses without a terminal and without --yes (exit 2, names --yes); sends nothing', async () => {
    const http = quiet();
    const r = await exitOf(webhooksDelete(t.ctx, { id: '1234567890' }));
    expect(r.code).toBe(2);
    expect(r.message).toContain('refusing without confirmation');
    expect(http.requests).toEqual([]);
  });

  it('refuses an id that is not 1-19 digits', async () => {
    t = testContext({ transport: new HttpRegistry(), globals: { yes: true } });
    await expect(webhooksDelete(t.ctx, { id: 'abc' })).rejects.toThrow('webhook id must be 1-19 digits (got "abc")');
  });

  it('--dry-run with an id: prints the DELETE it would send, asks nothing, sends nothing (issue 33)', async () => {
    const http = new HttpRegistry();
    t = testContext({ transport: http });
    await webhooksDelete(t.ctx, { id: '1234567890', dryRun: true });
    expect(t.stdout()).toBe('{"dry_run":true,"method":"DELETE","url":"https://api.x.com/2/webhooks/1234567890"}\n');
    expect(t.stderr()).toBe('dry run: nothing was sent\n');
    expect(http.requests).toEqual([]);
  });

  it('needs an id or --all-stale, not both (exit 2, nothing sent)', async () => {
    const http = quiet({ globals: { yes: true } });
    const none = await exitOf(webhooksDelete(t.ctx, {}));
    expect(none).toEqual({ code: 2, message: expect.stringMatching(/^which webhook\?/) });
    const both = await exitOf(webhooksDelete(t.ctx, { id: '123', allStale: true }));
    expect(both).toEqual({ code: 2, message: 'give a webhook id or --all-stale, not both' });
    expect(http.requests).toEqual([]);
  });

  it('--all-stale --dry-run lists the invalid ones with why, deletes nothing; without --yes refuses', async () => {
    const bad = { ...HOOK, id: '222', valid: false };
    const http = new HttpRegistry().register(route('GET', '/2/webhooks'), json({ data: [HOOK, bad] }), {
      times: 2,
    });
    t = testContext({ transport: http, globals: { output: 'tsv' } });
    await webhooksDelete(t.ctx, { allStale: true, dryRun: true });
    expect(t.stdout()).toBe('222\thttps://hooks.example.com/x\tinvalid: its last challenge check (CRC) failed\n');
    expect(t.stderr()).toBe('1 stale webhook; nothing deleted (--dry-run)\n');
    expect((await exitOf(webhooksDelete(t.ctx, { allStale: true }))).code).toBe(2);
    expect(http.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
  });
});

describe('webhooks list', () => {
  it('takes no flags', async () => {
    t = testContext();
    expect(await t.optionsOf(registerList, ['list'])).toEqual({});
  });

  it('prints a table fitted to 80 columns on a terminal, tab-separated rows when piped', async () => {
    const rows = { data: [HOOK, { ...HOOK, id: '222', valid: false }] };
    const http = new HttpRegistry().register(route('GET', '/2/webhooks'), json(rows), { times: 2 });
    t = testContext({ transport: http, tty: true });
    await webhooksList(t.ctx);
    expect(t.stdout()).toBe(
      [
        // issue 46: the URL whole; the creation time goes first
        '┌────────────┬─────────────────────────────┬─────────┐',
        '│ id         │ url                         │ status  │',
        '├────────────┼─────────────────────────────┼─────────┤',
        '│ 1234567890 │ https://hooks.example.com/x │ valid   │',
        '│ 222        │ https://hooks.example.com/x │ invalid │',
        '└────────────┴─────────────────────────────┴─────────┘',
        '',
      ].join('\n'),
    );
    const piped = testContext({ transport: http, globals: { output: 'tsv', fields: 'id,status' } });
    await webhooksList(piped.ctx);
    expect(piped.stdout()).toBe('1234567890\tvalid\n222\tinvalid\n');
    piped.cleanup();
    http.verify();
    expect(http.requests[0]!.headers.authorization).toBe('Bearer AAAA-test-bearer');
  });
});

describe('webhooks create', () => {
  it('flags: the URL, --if-exists return|fail (other words refused), --dry-run', async () => {
    t = testContext();
    expect(await t.optionsOf(registerCreate, ['create', 'https://h.example.com/x'])).toEqual({
      url: 'https://h.example.com/x',
    });
    expect(
      await t.optionsOf(registerCreate, ['create', 'https://h.example.com/x', '--if-exists', 'fail', '--dry-run']),
    ).toEqual({ url: 'https://h.example.com/x', ifExists: 'fail', dryRun: true });
    await expect(t.optionsOf(registerCreate, ['create', 'u', '--if-exists', 'maybe'])).rejects.toThrow(
      /argument 'maybe' is invalid\. Allowed choices are return, fail/,
    );
  });

  it('refuses http, a port and a private address before sending (exit 2, no challenge check)', async () => {
    const http = quiet();
    for (const url of ['http://example.com/x', 'https://example.com:8443/x', 'https://192.168.1.2/x']) {
      const r = await exitOf(webhooksCreate(t.ctx, { url }));
      expect([r.code, r.message], url).toEqual([2, expect.stringContaining('webhook URL must')]);
    }
    expect(http.requests).toEqual([]);
  });

  it('POSTs the URL as the app and prints the webhook (JSON piped)', async () => {
    const http = new HttpRegistry().register(route('POST', '/2/webhooks'), json({ data: HOOK }));
    t = testContext({ transport: http, globals: { output: 'json' } });
    await webhooksCreate(t.ctx, { url: HOOK.url });
    http.verify();
    expect(http.requests[0]!.json()).toEqual({ url: HOOK.url });
    expect(JSON.parse(t.stdout())).toEqual(HOOK);
    expect(t.stderr()).toBe('');
  });

  it('--if-exists fail names the existing id (exit 1, nothing created); return prints it', async () => {
    const http = new HttpRegistry().register(route('GET', '/2/webhooks'), json({ data: [HOOK] }), { times: 2 });
    t = testContext({ transport: http, globals: { output: 'json' } });
    const r = await exitOf(webhooksCreate(t.ctx, { url: HOOK.url, ifExists: 'fail' }));
    expect(r).toEqual({
      code: 1,
      message: 'the app has a webhook with this URL already (1234567890): nothing was created',
    });
    await webhooksCreate(t.ctx, { url: HOOK.url, ifExists: 'return' });
    expect(JSON.parse(t.stdout())).toEqual(HOOK);
    expect(t.stderr()).toContain('--if-exists return: the app has a webhook with this URL already (1234567890)');
    expect(http.requests.map((x) => x.method)).toEqual(['GET', 'GET']);
  });
});

describe('webhooks validate', () => {
  it('flags: the id and --dry-run', async () => {
    t = testContext();
    expect(await t.optionsOf(registerValidate, ['validate', '12', '--dry-run'])).toEqual({ id: '12', dryRun: true });
  });

  it('refuses an id that is not digits (exit 2, nothing sent)', async () => {
    const http = quiet();
    expect(await exitOf(webhooksValidate(t.ctx, { id: 'abc' }))).toEqual({
      code: 2,
      message: 'webhook id must be 1-19 digits (got "abc")',
    });
    expect(http.requests).toEqual([]);
  });

  it('PUTs a check: valid exits 0, invalid prints valid:false and exits 1', async () => {
    const http = new HttpRegistry()
      .register(route('PUT', '/2/webhooks/12'), json({ data: { valid: false } }))
      .register(route('PUT', '/2/webhooks/12'), json({ data: { valid: true } }));
    t = testContext({ transport: http, globals: { output: 'jsonl' } });
    const r = await exitOf(webhooksValidate(t.ctx, { id: '12' }));
    expect(r).toEqual({ code: 1, message: 'webhook 12 failed the challenge check and is invalid' });
    await webhooksValidate(t.ctx, { id: '12' });
    expect(t.stdout()).toBe(
      '{"id":"12","valid":false,"status":"invalid"}\n{"id":"12","valid":true,"status":"valid"}\n',
    );
    http.verify();
  });
});

describe('webhooks crc', () => {
  const env = { XCTL_API_SECRET: 'z3ZX4v7mAAUGykl3EcmkqbartmuW8VFOOzCloLx9Q45P0hLrFu' };
  it('flags: the token', async () => {
    t = testContext();
    expect(await t.optionsOf(registerCrc, ['crc', 'abc'])).toEqual({ token: 'abc' });
  });

  it("prints the docs/contract.md, notes vector's answer", async () => {
    t = testContext({ env });
    await webhooksCrc(t.ctx, { token: '9b4507b3-9040-4669-9ca3-6b94edb50553' });
    expect(t.stdout()).toBe('{"response_token":"sha256=Cytd4Sq+NvEcV3MMrXxWJGJx5A+y/lXzzU2Maartkx8="}\n');
  });

  it('refuses JSON-shaped tokens (exit 2), a number on purpose', async () => {
    t = testContext({ env });
    expect((await exitOf(webhooksCrc(t.ctx, { token: '{"a":1}' }))).code).toBe(2);
    const num = await exitOf(webhooksCrc(t.ctx, { token: '12345' }));
    expect([num.code, num.message]).toEqual([
      2,
      expect.stringContaining('"12345" is refused on purpose: a crc_token that is also a JSON value'),
    ]);
    expect(t.stdout()).toBe('');
  });
});

describe('webhooks verify', () => {
  const secret = 'verify-secret';
  const body = '{"data":{"event_type":"dm.received","payload":{"text":"héllo"}}}';
  it('flags: --signature, --body defaulting to stdin', async () => {
    t = testContext();
    expect(await t.optionsOf(registerVerify, ['verify', '--signature', 's'])).toEqual({ signature: 's', body: '-' });
  });

  it('exits 0 for a valid signature (file, @file, stdin) and 1 for a forged one; 2 without --signature', async () => {
    t = testContext({ env: { XCTL_API_SECRET: secret } });
    const file = path.join(t.configDir, 'body.json');
    fs.writeFileSync(file, body);
    const good = sign(body, secret);
    await webhooksVerify(t.ctx, { signature: good, body: file });
    await webhooksVerify(t.ctx, { signature: good, body: `@${file}` });
    expect(t.stderr()).toBe('signature valid\nsignature valid\n');
    const stdin = testContext({ env: { XCTL_API_SECRET: secret }, stdin: body });
    await webhooksVerify(stdin.ctx, { signature: good, body: '-' });
    stdin.cleanup();
    const bad = await exitOf(webhooksVerify(t.ctx, { signature: sign(`${body} `, secret), body: file }));
    expect(bad).toEqual({
      code: 1,
      message: `signature invalid for this body (${Buffer.byteLength(body)} bytes checked) and API secret`,
    });
    expect((await exitOf(webhooksVerify(t.ctx, { body: file }))).code).toBe(2);
    const missing = await exitOf(webhooksVerify(t.ctx, { signature: good, body: '/nonexistent/b.json' }));
    expect(missing).toEqual({ code: 2, message: '--body: cannot read /nonexistent/b.json: no such file' });
  });

  // issue 46 item 11: a body file saved with a final newline said only "signature invalid"
  it('a body file ending in a newline: the hint says the signature covers the exact bytes', async () => {
    t = testContext({ env: { XCTL_API_SECRET: secret } });
    const file = path.join(t.configDir, 'body.json');
    fs.writeFileSync(file, `${body}\n`);
    const err = await webhooksVerify(t.ctx, { signature: sign(body, secret), body: file }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      exitCode: 1,
      message: `signature invalid for this body (${Buffer.byteLength(body) + 1} bytes checked) and API secret`,
      hint: 'the body without its final newline matches: the signature covers the exact bytes received; save the body without the newline (printf, not echo)',
    });
  });
});

describe('webhooks replay', () => {
  const iso = (ms: number) => new Date(TEST_NOW + ms).toISOString();
  it('flags: id, --from, --to, --dry-run', async () => {
    t = testContext();
    expect(await t.optionsOf(registerReplay, ['replay', '12', '--from', 'a', '--to', 'b', '--dry-run'])).toEqual({
      id: '12',
      from: 'a',
      to: 'b',
      dryRun: true,
    });
  });

  it('refuses a window past 24 hours, a reversed one and an unreadable time (exit 2, nothing sent)', async () => {
    const http = quiet();
    const far = await exitOf(webhooksReplay(t.ctx, { id: '12', from: iso(-25 * 3_600_000), to: iso(0) }));
    expect(far).toEqual({ code: 2, message: expect.stringContaining('--from must be within the past 24 hours') });
    const rev = await exitOf(webhooksReplay(t.ctx, { id: '12', from: iso(-3_600_000), to: iso(-7_200_000) }));
    expect(rev.code).toBe(2);
    const word = await exitOf(webhooksReplay(t.ctx, { id: '12', from: 'yesterday' }));
    expect(word).toEqual({ code: 2, message: expect.stringContaining('--from must be an ISO time') });
    expect(http.requests).toEqual([]);
  });

  it('sends a yyyymmddhhmm window and prints the job with it', async () => {
    const http = new HttpRegistry().register(route('POST', '/2/webhooks/replay'), json({ data: { job_id: '77' } }));
    t = testContext({ transport: http, globals: { output: 'json' } });
    await webhooksReplay(t.ctx, { id: '12', from: '202601151100' });
    expect(http.requests[0]!.json()).toEqual({
      webhook_id: '12',
      from_date: '202601151100',
      to_date: '202601151200',
    });
    expect(JSON.parse(t.stdout())).toEqual({
      job_id: '77',
      webhook_id: '12',
      from_date: '202601151100',
      to_date: '202601151200',
    });
  });
});

describe('webhooks listen: flags and refusals before anything starts', () => {
  it('defaults, --no-subscribe, --keep, --events', async () => {
    t = testContext();
    expect(await t.optionsOf(registerListen, ['listen'])).toEqual({
      port: '0',
      host: '127.0.0.1',
      path: '/webhooks',
      subscribe: true,
    });
    expect(
      await t.optionsOf(registerListen, ['listen', '--register', '--no-subscribe', '--keep', '--events', 'a,b']),
    ).toMatchObject({ register: true, subscribe: false, keep: true, events: 'a,b' });
  });

  const sandbox = { XCTL_BASE_URL: 'http://127.0.0.1:9' };
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ register: true, events: 'nope.event' }, /--events: "nope\.event" is not one of the platform's event types/],
    [{ register: true, events: 'ProfileBioUpdate' }, /deprecated name .* use profile\.update\.bio/],
    [{ register: true, events: ',' }, /--events needs at least one event type/],
    [{ events: 'news.new' }, /--events goes with --register/],
    [{ keep: true }, /--keep goes with --register/],
    [{ register: true, userId: 'abc' }, /--user-id must be 1-19 digits/],
  ];
  it.each(cases)('%j exits 2 and registers nothing', async (o, re) => {
    const http = quiet({ env: sandbox });
    const r = await exitOf(webhooksListen(t.ctx, { subscribe: true, ...o }));
    expect(r.code).toBe(2);
    expect(r.message).toMatch(re);
    expect(http.requests).toEqual([]);
  });

  it('against the service, --register needs --events (nothing sent)', async () => {
    const http = quiet();
    const r = await exitOf(
      webhooksListen(t.ctx, { register: true, subscribe: true, publicUrl: 'https://hooks.example.com/x' }),
    );
    expect([r.code, r.message]).toEqual([2, expect.stringMatching(/--register against the service needs --events/)]);
    expect(http.requests).toEqual([]);
  });
});

describe('webhooks send and doctor: refusals', () => {
  it('send: deprecated, unknown or mis-shaped events and a missing --event exit 2, nothing sent', async () => {
    t = testContext();
    const to = 'http://127.0.0.1:9/webhooks';
    for (const bad of [{ event: 'ProfileBioUpdate' }, { event: 'nope' }, { event: 'dm.sent', data: '[1]' }, {}]) {
      expect((await exitOf(webhooksSend(t.ctx, { to, ...bad }))).code, JSON.stringify(bad)).toBe(2);
    }
    const two = testContext({ stdin: '{"data":{}}\n{"data":{}}\n' });
    const r = await exitOf(webhooksSend(two.ctx, { to, from: '-' }));
    two.cleanup();
    expect([r.code, r.message]).toEqual([2, expect.stringMatching(/expected one JSON line/)]);
  });

  it('doctor --id: an id the app has not registered exits 2', async () => {
    const http = new HttpRegistry().register(route('GET', '/2/webhooks'), json({ data: [HOOK] }));
    t = testContext({ transport: http });
    const r = await exitOf(webhooksDoctor(t.ctx, { id: '999' }));
    expect([r.code, r.message]).toEqual([2, expect.stringMatching(/no webhook 999 is registered/)]);
    http.verify();
  });
});

describe('webhooks doctor against local receivers each broken one way (exit 1 names the cause)', () => {
  const secret = 'test-api-secret';
  const endpoint = useEndpoints(secret);
  interface Report {
    ok: boolean;
    cause: string | null;
    url: string;
    steps: Array<{ name: string; ok: boolean; detail: string }>;
  }
  async function doctor(url: string): Promise<{ code: number; report: Report }> {
    t = testContext({ globals: { output: 'json' } });
    const { code } = await exitOf(webhooksDoctor(t.ctx, { url }));
    expect(t.stdout() + t.stderr()).not.toContain(secret);
    return { code, report: JSON.parse(t.stdout()) as Report };
  }

  const broken: Array<[EndpointMode, string, RegExp]> = [
    [
      'redirect',
      'redirect',
      /HTTP 301 redirect to https:\/\/hooks\.example\.org\/webhooks\/: the platform does not follow redirects/,
    ],
    ['e500', 'http_status', /HTTP 500 to the CRC GET \(the platform needs 200\): "Internal Server Error"/],
    ['html', 'not_json', /not JSON \(content-type text\/html\): "<!doctype html>/],
    ['malformed', 'bad_response_token', /response_token is not "sha256=" \+ base64/],
    ['wrong_secret', 'wrong_secret', /signed with another secret/],
    ['text_plain', 'content_type', /served as text\/plain/],
    ['post_500', 'delivery_status', /HTTP 500 to the signed test delivery/],
  ];
  it.each(broken)('%s: names %s in the last step, every step before it ok', async (mode, cause, detail) => {
    const { code, report } = await doctor((await endpoint(mode)).url);
    expect([code, report.ok, report.cause]).toEqual([1, false, cause]);
    expect(report.steps.at(-1)).toMatchObject({ ok: false, detail: expect.stringMatching(detail) });
    expect(report.steps.slice(0, -1).every((s) => s.ok)).toBe(true);
  });

  it('passes a healthy receiver: every step ok, a signed delivery it can verify, exit 0', async () => {
    const e = await endpoint('ok');
    const { code, report } = await doctor(e.url);
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, cause: null, url: e.url });
    expect(report.steps.map((s) => [s.name, s.ok])).toEqual([
      ['url', true],
      ['dns', true],
      ['tcp', true],
      ['crc', true],
      ['delivery', true],
    ]);
    for (const s of report.steps) expect(Object.keys(s)).toEqual(['name', 'ok', 'ms', 'detail']);
    expect(e.posts).toHaveLength(1);
    const sig = e.posts[0]!.headers['x-service-webhooks-signature'] as string;
    expect(e.posts[0]!.headers['x-twitter-webhooks-signature']).toBe(sig);
    expect(JSON.parse(e.posts[0]!.raw.toString('utf8')).data.event_type).toBe('profile.update.bio');
    expect(sig).toBe(sign(e.posts[0]!.raw.toString('utf8'), secret));
  });

  it('piped without -o: the readable report; the error names the cause with a hint', async () => {
    const e = await endpoint('wrong_secret');
    t = testContext();
    const r = await exitOf(webhooksDoctor(t.ctx, { url: e.url }));
    expect(r).toEqual({ code: 1, message: 'the webhook is not healthy: wrong_secret' });
    expect(t.stdout()).toMatch(new RegExp(`^webhooks doctor ${e.url.replace(/[.?]/g, '\\$&')}\n  ok    url `));
    expect(t.stdout()).toMatch(
      /\n {2}FAIL {2}crc +\d+ ms {2}response_token is well formed but signed with another secret/,
    );
    expect(t.stdout()).toMatch(/\n {2}not run: delivery\nnot healthy: wrong_secret\n$/);
    const err: unknown = await webhooksDoctor(t.ctx, { url: e.url }).catch((x: unknown) => x);
    expect((err as CheckFailed).hint).toContain("deploy this app's API secret");
  });

  it('names url_rules (a port, a private address) and unreachable before sending anything', async () => {
    const ported = await doctor('https://hooks.example.org:8443/webhooks');
    expect([ported.code, ported.report.cause, ported.report.steps.length]).toEqual([1, 'url_rules', 1]);
    expect(ported.report.steps[0]!.detail).toMatch(/port/);
    expect((await doctor('https://10.1.2.3/webhooks')).report.cause).toBe('url_rules');
    const e = await endpoint('ok');
    await e.close();
    const gone = await doctor(e.url);
    expect([gone.code, gone.report.cause]).toEqual([1, 'unreachable']);
    expect(gone.report.steps.at(-1)!.detail).toMatch(/ECONNREFUSED/);
  });

  it('send exits 1 when the receiver does not acknowledge with 200', async () => {
    const e = await endpoint('post_500');
    t = testContext();
    const r = await exitOf(webhooksSend(t.ctx, { to: e.url, event: 'profile.update.bio' }));
    expect([r.code, r.message]).toEqual([1, expect.stringMatching(/did not acknowledge the delivery: HTTP 500/)]);
    expect(e.posts).toHaveLength(1);
  });
});

describe('webhooks replay: the window', () => {
  it('sends the window in yyyymmddhhmm, the end floored to the current minute', async () => {
    const reg = new HttpRegistry();
    reg.register(
      route('POST', '/2/webhooks/replay'),
      json({ data: { job_id: '77', created_at: '2026-01-15T12:00:00.000Z' } }),
    );
    t = testContext({ transport: reg, globals: { output: 'jsonl' } });
    await webhooksReplay(t.ctx, { id: '123', from: new Date(TEST_NOW - 2 * 3_600_000).toISOString() });
    expect(reg.requests[0]!.json()).toEqual({ webhook_id: '123', from_date: '202601151000', to_date: '202601151200' });
    expect(JSON.parse(t.stdout())).toEqual({
      job_id: '77',
      created_at: '2026-01-15T12:00:00.000Z',
      webhook_id: '123',
      from_date: '202601151000',
      to_date: '202601151200',
    });
    reg.verify();
  });

  it('refuses a window older than 24 hours, a reversed one and a bad id, sending nothing', async () => {
    const reg = new HttpRegistry();
    t = testContext({ transport: reg });
    await expect(webhooksReplay(t.ctx, { id: '123', from: '202601141159' })).rejects.toThrow(
      '--from must be within the past 24 hours',
    );
    await expect(webhooksReplay(t.ctx, { id: '123', from: '202601151100', to: '202601151000' })).rejects.toThrow(
      "--to must not be before the window's start",
    );
    await expect(webhooksReplay(t.ctx, { id: 'abc', from: '202601151100' })).rejects.toThrow(
      'webhook id must be 1-19 digits',
    );
    // the window edge itself is allowed
    reg.register(route('POST', '/2/webhooks/replay'), json({ data: {} }));
    await webhooksReplay(t.ctx, { id: '123', from: '202601141200' });
    expect(reg.requests).toHaveLength(1);
  });
});
