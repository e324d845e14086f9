// The sandbox's fault names, saved states and request log, in-process (issue 20 items 9 and 20).
import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FAULT_NAMES, Faults, parseFaultSpec } from '../../src/sandbox/faults.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { loadSnapshot, saveSnapshot } from '../../src/sandbox/snapshot.js';
import { distinctUsers } from '../../src/sandbox/modules/audience-users.js';
import { formatLogEntry } from '../../src/commands/sandbox/logs.js';
import { testContext } from '../helpers/test-context.js';

const open: Sandbox[] = [];
async function sandbox(o: Parameters<typeof startSandbox>[0] = {}): Promise<Sandbox> {
  const sb = await startSandbox(o);
  open.push(sb);
  return sb;
}
afterEach(async () => {
  for (const sb of open.splice(0)) await sb.close();
});

describe('fault specs', () => {
  it('takes every known name and refuses any other, naming the known ones', () => {
    expect(
      parseFaultSpec(
        'error_rate=0.5,status=503,latency_ms=10,drop_rate=0,rate_limit=5,match=^/2/,method=GET,count=2,after=true,short_count_rate=0.1,stream_drop_rate=1',
      ),
    ).toEqual({
      error_rate: 0.5,
      status: 503,
      latency_ms: 10,
      drop_rate: 0,
      rate_limit: 5,
      match: '^/2/',
      method: 'GET',
      count: 2,
      after: true,
      short_count_rate: 0.1,
      stream_drop_rate: 1,
    });
    expect(() => parseFaultSpec('bogus=1')).toThrow(
      `fault "bogus" is unknown; known: ${Object.keys(FAULT_NAMES).join(', ')}`,
    );
    expect(() => parseFaultSpec('{"error_rte":0.1}')).toThrow(/fault "error_rte" is unknown/);
    expect(() => parseFaultSpec('short_count_rate=1.5')).toThrow(/short_count_rate must be a number from 0 to 1/);
    expect(() => parseFaultSpec('count=-1')).toThrow(/count must be a whole number/);
    expect(() => parseFaultSpec('after=yes')).toThrow(/after must be true or false/);
    expect(() => parseFaultSpec('[1]')).toThrow(/expected key=value|JSON must be an object/);
  });
});

describe('the hold fault (a kill point a test chooses)', () => {
  it('holds only the n-th matching request, counted from when the faults were set', () => {
    const f = new Faults();
    f.set({ hold: 2, match: '/users$' });
    const held = (p: string) => !!f.decide('POST', p).hold;
    expect([held('/x'), held('/a/users'), held('/b'), held('/a/users'), held('/a/users')]).toEqual([
      false,
      false,
      false,
      true,
      false,
    ]);
    f.set({ hold: 1 });
    expect(held('/x')).toBe(true);
    expect(() => parseFaultSpec('hold=-1')).toThrow(/hold must be a whole number/);
  });

  it('the held request gets no answer (the client gives up on it); the next one is answered', async () => {
    const sb = await sandbox();
    sb.app.faults.set({ hold: 1, match: '^/1\\.1/account/verify_credentials' });
    const ac = new AbortController();
    const asked = fetch(`${sb.baseUrl}/1.1/account/verify_credentials.json`, { signal: ac.signal });
    // the next request is answered while the first is held
    const next = await fetch(`${sb.baseUrl}/1.1/account/verify_credentials.json`);
    expect(next.status).toBe(401);
    ac.abort();
    await expect(asked).rejects.toThrow();
  });
});

describe('saved states', () => {
  it('a saved state loads into another sandbox: keys, tokens, entities, audience members, manual clock', async () => {
    const a = await sandbox({ clock: 'manual' });
    await a.app.clock.advance(3_600_000);
    const audId = [...a.app.state.collection('custom_audiences').keys()][0]!;
    const digests = [0, 1, 2].map((i) => crypto.createHash('sha256').update(`user${i}@example.com`).digest('hex'));
    distinctUsers(a.app, 'custom_audiences', audId); // the module's slot in use, as after an upload
    a.app.state.loadSlot('audience-users', {
      [`custom_audiences/${audId}`]: {
        digests: [digests, [], [], [], []],
        other: [],
        requests: 1,
        updated: 3,
        deleted: 0,
      },
    });
    expect(distinctUsers(a.app, 'custom_audiences', audId)).toBe(3);
    a.app.state.collection('campaigns').set('zz1', { id: 'zz1', name: 'Saved campaign' });
    const saved = JSON.parse(JSON.stringify(saveSnapshot(a.app)));
    expect(saved.collections.activity_streams).toBeUndefined();

    const b = await sandbox({ clock: 'manual', state: saved });
    expect(b.seed.api_key).toBe(a.seed.api_key);
    expect(b.seed.access_token).toBe(a.seed.access_token);
    expect(b.seed.base_url).toBe(b.baseUrl);
    expect(b.app.state.collection('campaigns').get('zz1')).toMatchObject({ name: 'Saved campaign' });
    expect(distinctUsers(b.app, 'custom_audiences', audId)).toBe(3);
    expect(b.app.clock.iso()).toBe(a.app.clock.iso());
    // The credentials of the saved state sign requests to the new sandbox.
    const ctxA = testContext({
      env: {
        XCTL_BASE_URL: b.baseUrl,
        XCTL_API_KEY: a.seed.api_key,
        XCTL_API_SECRET: a.seed.api_secret,
        XCTL_ACCESS_TOKEN: a.seed.access_token,
        XCTL_ACCESS_TOKEN_SECRET: a.seed.access_token_secret,
      },
    });
    await ctxA.run(['request', '/1.1/account/verify_credentials.json']);
    expect(ctxA.stdout()).toMatch(/xctl_dev/);
    ctxA.cleanup();
  });
  it('a malformed state is refused before anything is replaced', async () => {
    const a = await sandbox();
    const key = a.seed.api_key;
    const saved = saveSnapshot(a.app) as unknown as Record<string, unknown>;
    expect(() => loadSnapshot(a.app, { ...saved, xctl_sandbox_state: 2 })).toThrow(/not a sandbox state file/);
    expect(() => loadSnapshot(a.app, { ...saved, users: [{ name: 'no id' }] })).toThrow(/users\[0\] has no id/);
    expect(() => loadSnapshot(a.app, { ...saved, seed: { ...(saved.seed as object), api_key: 'other' } })).toThrow(
      /seed.api_key is not one of the apps/,
    );
    expect(a.app.state.apps.has(key)).toBe(true);
  });
});

describe('sandbox logs', () => {
  it('formats requests and deliveries on one line each, escaped', () => {
    expect(
      formatLogEntry({
        seq: 1,
        at: '2026-01-15T12:00:00.000Z',
        kind: 'request',
        method: 'GET',
        path: '/2/webhooks',
        status: 200,
        ms: 3,
      }),
    ).toBe('2026-01-15 12:00:00.000  GET    /2/webhooks  200  3ms');
    expect(
      formatLogEntry({
        seq: 2,
        at: '2026-01-15T12:00:01.000Z',
        kind: 'delivery',
        webhook_id: '123',
        url: 'http://127.0.0.1:9/webhooks',
        status: 200,
        outcome: 'ok',
        event_type: 'news.new',
        ms: 4,
      }),
    ).toBe('2026-01-15 12:00:01.000  -> webhook 123 delivery news.new: 200 ok  4ms  (http://127.0.0.1:9/webhooks)');
    expect(
      formatLogEntry({
        seq: 3,
        at: '2026-01-15T12:00:02.000Z',
        kind: 'request',
        method: 'GET',
        path: '/a\u001b]0;x\u0007',
        status: 404,
        ms: 1,
      }),
    ).not.toMatch(/[\u001b\u0007]/);
  });
  it('the sandbox records answered requests, not its own log polls, and keeps no query strings', async () => {
    const sb = await sandbox();
    await fetch(`${sb.baseUrl}/2/webhooks?secret=shh`);
    await fetch(`${sb.baseUrl}/_sandbox/logs`);
    await new Promise((r) => setTimeout(r, 20));
    expect(sb.app.logs.map((e) => (e.kind === 'request' ? `${e.method} ${e.path} ${e.status}` : e.kind))).toEqual([
      'GET /2/webhooks 401',
    ]);
    expect(JSON.stringify(sb.app.logs)).not.toContain('shh');
  });
  it('a long poll returns as soon as a new entry arrives', async () => {
    const sb = await sandbox();
    const auth = 'Basic ' + Buffer.from(`${sb.seed.api_key}:${sb.seed.api_secret}`).toString('base64');
    const started = Date.now();
    const poll = fetch(`${sb.baseUrl}/_sandbox/logs?after=0&wait_ms=10000`, { headers: { authorization: auth } }).then(
      (r) => r.json() as Promise<{ data: unknown[]; next: number }>,
    );
    await new Promise((r) => setTimeout(r, 100));
    await fetch(`${sb.baseUrl}/_sandbox/state`);
    const got = await poll;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(got.data).toHaveLength(1);
    expect(got.next).toBe(1);
  });
});

describe('sandbox logs through the test context', () => {
  const entries = [
    { seq: 7, at: '2026-01-15T12:00:00.000Z', kind: 'request', method: 'GET', path: '/2/webhooks', status: 200, ms: 3 },
    {
      seq: 8,
      at: '2026-01-15T12:00:01.000Z',
      kind: 'delivery',
      webhook_id: '11',
      url: 'http://127.0.0.1:9/webhooks',
      status: 200,
      outcome: 'ok',
      event_type: 'news.new',
      ms: 4,
    },
  ];
  it('on a terminal with --no-follow: one line per entry, the sandbox app key as Basic, nothing else', async () => {
    const { HttpRegistry, json, route } = await import('../helpers/http-registry.js');
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/_sandbox/logs', { query: { after: '0', limit: '2' } }),
      json({ data: entries, next: 8 }),
    );
    const t = testContext({ tty: true, transport: reg });
    await t.run(['sandbox', 'logs', '--no-follow', '--limit', '2']);
    reg.verify();
    expect(t.stdout()).toBe(
      '2026-01-15 12:00:00.000  GET    /2/webhooks  200  3ms\n2026-01-15 12:00:01.000  -> webhook 11 delivery news.new: 200 ok  4ms  (http://127.0.0.1:9/webhooks)\n',
    );
    expect(reg.requests[0]!.headers.authorization).toMatch(/^Basic /);
    t.cleanup();
  });
  it('on a terminal it follows by default (a long poll after the last entry)', async () => {
    const { HttpRegistry, json, route } = await import('../helpers/http-registry.js');
    const reg = new HttpRegistry();
    reg.register(
      route('GET', '/_sandbox/logs', { query: { after: '0', limit: '50' } }),
      json({ data: entries, next: 8 }),
    );
    reg.register(
      route('GET', '/_sandbox/logs', { query: { after: '8', wait_ms: '20000' } }),
      json({ title: 'Invalid Request', detail: 'stop here', status: 400 }, 400),
    );
    const t = testContext({ tty: true, transport: reg });
    await expect(t.run(['sandbox', 'logs'])).rejects.toThrow(/stop here/);
    expect(t.stderr()).toMatch(/following the sandbox log; Ctrl-C stops/);
    expect(reg.requests).toHaveLength(2);
    t.cleanup();
  });
});
