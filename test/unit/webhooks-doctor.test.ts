// `webhooks doctor` and `webhooks send` in-process: the exact report a user sees on a terminal
// (the fake clock makes every step 0 ms), the JSON shape, --id through the HTTP registry, the
// input rules, and the delivery envelope and recorded forms `send --from` accepts.
import { describe, expect, it } from 'vitest';
import { testContext, TEST_CREDENTIALS } from '../helpers/test-context.js';
import { HttpRegistry, json, route } from '../helpers/http-registry.js';
import { useEndpoints } from '../helpers/endpoints.js';
import { webhooksDoctor } from '../../src/commands/webhooks/doctor.js';
import { webhooksSend } from '../../src/commands/webhooks/send.js';
import { activityDelivery, parseRecorded } from '../../src/webhooks/event.js';
import { DOCTOR_CAUSES } from '../../src/webhooks/doctor.js';
import { CheckFailed, UsageError } from '../../src/core/errors.js';

const secret = TEST_CREDENTIALS.XCTL_API_SECRET;
const endpoint = useEndpoints(secret);
const portOf = (url: string) => new URL(url).port;

describe('webhooks doctor (in-process)', () => {
  it('prints the healthy report on a terminal', async () => {
    const e = await endpoint('ok');
    const t = testContext({ tty: true });
    await webhooksDoctor(t.ctx, { url: e.url });
    expect(t.stdout()).toBe(
      [
        `webhooks doctor ${e.url}`,
        '  ok    url      0 ms  http on loopback: the local stand-in (the platform needs https, a public host, no port)',
        '  ok    dns      0 ms  127.0.0.1 is an address (no lookup)',
        `  ok    tcp      0 ms  connected to 127.0.0.1:${portOf(e.url)}`,
        '  ok    crc      0 ms  HTTP 200 application/json, response_token correct (limit 3000 ms)',
        '  ok    delivery 0 ms  HTTP 200 to a signed test delivery (limit 10000 ms)',
        "healthy: the platform's checks pass",
        '',
      ].join('\n'),
    );
    expect(t.stdout() + t.stderr()).not.toContain(secret);
    t.cleanup();
  });

  it('stops at the first failure, lists what did not run, and throws CheckFailed with a hint', async () => {
    const e = await endpoint('html');
    const t = testContext({ tty: true });
    const err = await webhooksDoctor(t.ctx, { url: e.url }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(CheckFailed);
    expect((err as CheckFailed).message).toBe('the webhook is not healthy: not_json');
    expect((err as CheckFailed).hint).toMatch(/answer \{"response_token":"sha256=\.\.\."\} as JSON/);
    expect(t.stdout().split('\n').slice(4)).toEqual([
      '  FAIL  crc      0 ms  the answer is not JSON (content-type text/html): "<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>"',
      '  not run: delivery',
      'not healthy: not_json',
      '',
    ]);
    t.cleanup();
  });

  it('-o json gives {ok, cause, url, steps[{name, ok, ms, detail}]}', async () => {
    const e = await endpoint('redirect');
    const t = testContext({ globals: { output: 'json' } });
    await expect(webhooksDoctor(t.ctx, { url: e.url, delivery: false })).rejects.toThrow(CheckFailed);
    const r = JSON.parse(t.stdout());
    expect(Object.keys(r)).toEqual(['ok', 'cause', 'url', 'steps']);
    expect(r).toMatchObject({ ok: false, cause: 'redirect', url: e.url });
    expect(r.steps.at(-1)).toEqual({
      name: 'crc',
      ok: false,
      ms: 0,
      detail:
        'HTTP 301 redirect to https://hooks.example.org/webhooks/: the platform does not follow redirects (register the final URL)',
    });
    t.cleanup();
  });

  it('--no-delivery sends no POST', async () => {
    const e = await endpoint('ok');
    const t = testContext({ globals: { output: 'json' } });
    await webhooksDoctor(t.ctx, { url: e.url, delivery: false });
    expect(JSON.parse(t.stdout()).steps.map((s: { name: string }) => s.name)).toEqual(['url', 'dns', 'tcp', 'crc']);
    expect(e.posts).toHaveLength(0);
    t.cleanup();
  });

  it('--id reads the URL from GET /2/webhooks; URL and --id together, or neither, are usage errors', async () => {
    const e = await endpoint('ok');
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/2/webhooks'),
      json({ data: [{ id: '77', url: e.url, valid: false }], meta: { result_count: 1 } }),
    );
    const t = testContext({ transport: reg, globals: { output: 'json' } });
    await webhooksDoctor(t.ctx, { id: '77', delivery: false });
    expect(JSON.parse(t.stdout()).url).toBe(e.url);
    reg.verify();
    await expect(webhooksDoctor(t.ctx, { url: e.url, id: '77' })).rejects.toThrow(UsageError);
    await expect(webhooksDoctor(t.ctx, {})).rejects.toThrow(UsageError);
    await expect(webhooksDoctor(t.ctx, { id: 'abc' })).rejects.toThrow(/1-19 digits/);
    t.cleanup();
  });

  it('names dns for a host name that does not resolve (bounded at 5 s)', async () => {
    const t = testContext({ globals: { output: 'json' } });
    const url = 'https://xctl-doctor-nonexistent.example.com/webhooks';
    await expect(webhooksDoctor(t.ctx, { url })).rejects.toThrow(/not healthy: dns/);
    const r = JSON.parse(t.stdout());
    expect(r.steps.map((s: { name: string; ok: boolean }) => [s.name, s.ok])).toEqual([
      ['url', true],
      ['dns', false],
    ]);
    expect(r.steps[1].detail).toMatch(/^xctl-doctor-nonexistent\.example\.com: /);
    t.cleanup();
  }, 15_000);

  it('names every cause with a distinct identifier', () => {
    expect(new Set(DOCTOR_CAUSES).size).toBe(DOCTOR_CAUSES.length);
  });
});

describe('webhooks send (in-process)', () => {
  it('prints the status, the event type and the signature of what it sent (tsv when piped)', async () => {
    const e = await endpoint('ok');
    const t = testContext();
    await webhooksSend(t.ctx, { to: e.url, event: 'profile.update.bio', userId: '1', tag: 't' });
    const [status, ms, type, url, sig] = t.stdout().trimEnd().split('\t');
    expect([status, ms, type, url]).toEqual(['200', expect.stringMatching(/^\d+$/), 'profile.update.bio', e.url]);
    expect(e.posts[0]!.headers['x-service-webhooks-signature']).toBe(sig);
    expect(e.posts[0]!.headers['user-agent']).toBe('xctl-webhooks-send');
    t.cleanup();
  });

  it('refuses what it cannot send before sending', async () => {
    const e = await endpoint('ok');
    const t = testContext();
    for (const o of [
      { event: 'profile.update.bio' },
      { to: e.url },
      { to: 'http://hooks.example.org/x', event: 'profile.update.bio' },
      { to: e.url, event: 'profile.update.bio', userId: 'me' },
      { to: e.url, event: 'profile.update.bio', data: '{' },
      { to: e.url, from: '-', data: '{}' },
    ]) {
      await expect(webhooksSend(t.ctx, o), JSON.stringify(o)).rejects.toThrow(UsageError);
    }
    expect(e.posts).toHaveLength(0);
    t.cleanup();
  });
});

describe('delivery bodies', () => {
  it('builds the activity envelope the sandbox delivers', () => {
    const body = JSON.parse(
      activityDelivery({
        eventType: 'dm.sent',
        userId: '9',
        payload: { a: 1 },
        tag: 'x',
        uuid: 'u-1',
      }),
    );
    expect(body).toEqual({
      data: {
        event_uuid: 'u-1',
        event_type: 'dm.sent',
        filter: { user_id: '9' },
        tag: 'x',
        payload: { a: 1 },
      },
    });
  });
  it('reads a listen --json line as it is and a sandbox log delivery entry by its type and id', () => {
    const line = '{"data":{"event_type":"profile.update.bio","payload":{}}}';
    expect(parseRecorded(`${line}\n`)).toEqual({ kind: 'body', raw: line });
    expect(parseRecorded('{"kind":"delivery","webhook_id":"1","event_type":"dm.read","event_uuid":"u"}')).toEqual({
      kind: 'logged',
      eventType: 'dm.read',
      uuid: 'u',
    });
    expect(parseRecorded('{"kind":"crc","webhook_id":"1"}')).toMatch(/a crc, not a delivery/);
    expect(parseRecorded(`${line}\n${line}`)).toMatch(/one JSON line/);
    expect(parseRecorded('[1]')).toMatch(/JSON object/);
    expect(parseRecorded('{"raw":"x"}')).toMatch(/not JSON/);
    expect(parseRecorded('nope')).toMatch(/not JSON/);
  });
});
