// The real CLI against a real sandbox: `webhooks listen` registered and receiving, the validity
// state machine through `list` and `validate` on the manual clock, and the local checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startTestSandbox, tempDir, runCli, type TestSandbox } from '../helpers/cli.js';
import { appBearer, spawnCli, startReceiver, waitFor } from '../helpers/receiver.js';
import type { SandboxStateBody } from '../helpers/json.js';

let t: TestSandbox;
const sign = (body: string, secret = t.sb.seed.api_secret) =>
  'sha256=' + crypto.createHmac('sha256', secret).update(body).digest('base64');

beforeAll(async () => {
  t = await startTestSandbox({ clock: 'manual' });
  t.env.XCTL_BEARER_TOKEN = await appBearer(t.sb.baseUrl, t.sb.seed.api_key, t.sb.seed.api_secret);
});
afterAll(async () => {
  await t.close();
});

describe('webhooks listen', () => {
  it('registers itself (CRC passes), prints triggered events, rejects forged deliveries and JSON crc tokens, forwards, deletes on exit', async () => {
    const fwd = await startReceiver(t.sb.seed.api_secret);
    const l = spawnCli(['webhooks', 'listen', '--register', '--no-subscribe', '--forward-to', fwd.url], t.env);
    try {
      const url = (await l.waitStderr(/listening on (http:\/\/\S+?)[;\s]/))[1]!;
      const id = (await l.waitStderr(/registered webhook (\d+)/))[1]!;
      expect(l.stderr()).toContain('answered a challenge check (CRC)');
      const sub = await t.run([
        'activity',
        'subscriptions',
        'create',
        '--event',
        'profile.update.bio',
        '--user-id',
        '783214',
        '--webhook',
        id,
        '--tag',
        'bios',
        '-o',
        'json',
      ]);
      expect(sub.code).toBe(0);
      expect(JSON.parse(sub.stdout)).toMatchObject({ event_type: 'profile.update.bio', webhook_id: id });
      const trig = await t.run([
        'sandbox',
        'trigger',
        'profile.update.bio',
        '--user-id',
        '783214',
        '--data',
        '{"before":"old","after":"new"}',
        '-o',
        'json',
      ]);
      expect(JSON.parse(trig.stdout).deliveries).toBe(1);
      await l.waitStdout(/profile\.update\.bio {2}user=783214 {2}"old" -> "new" \[tag bios\]/);

      // Filtered stream: rule, link, a matching post.
      expect((await t.run(['stream', 'rules', 'add', 'sandbox cats', '--tag', 'cats'])).code).toBe(0);
      expect((await t.run(['stream', 'webhooks', 'link', id])).code).toBe(0);
      expect(
        (await t.run(['sandbox', 'trigger', 'post.create', '--data', '{"text":"the sandbox cats are here"}'])).code,
      ).toBe(0);
      await l.waitStdout(/post {2}user=\d+ {2}\d+: the sandbox cats are here \[rules cats\]/);

      // Forged, unsigned and JSON-token requests are refused and logged, never printed as events.
      const forged = JSON.stringify({ data: { event_type: 'profile.update.bio', payload: { after: 'FORGED' } } });
      expect(
        (
          await fetch(url, {
            method: 'POST',
            body: forged,
            headers: { 'x-service-webhooks-signature': sign(forged, 'wrong-secret') },
          })
        ).status,
      ).toBe(403);
      expect((await fetch(url, { method: 'POST', body: forged })).status).toBe(403);
      const jsonToken = await fetch(`${url}?crc_token=${encodeURIComponent(forged)}`);
      expect(jsonToken.status).toBe(400);
      const good = await fetch(`${url}?crc_token=abc-123`);
      expect(await good.json()).toEqual({ response_token: sign('abc-123') });
      await l.waitStderr(/forged delivery/);
      await l.waitStderr(/unsigned delivery/);
      await l.waitStderr(/crc_token not shaped/);

      // The platform's header name is accepted too; deprecated names are mapped, warned about once.
      const legacy = JSON.stringify({
        data: { event_type: 'ProfileBioUpdate', filter: { user_id: '6253282' }, payload: { before: 'a', after: 'b' } },
      });
      for (let i = 0; i < 2; i++)
        expect(
          (
            await fetch(url, {
              method: 'POST',
              body: legacy,
              headers: { 'x-twitter-webhooks-signature': sign(legacy) },
            })
          ).status,
        ).toBe(200);
      await waitFor(
        () => (l.stdout().match(/profile\.update\.bio {2}user=6253282/g) ?? []).length === 2,
        'two mapped events',
      );
      expect(l.stderr().match(/ProfileBioUpdate is deprecated/g)?.length).toBe(1);
      expect(l.stdout()).not.toContain('FORGED');
      expect(l.stdout()).not.toContain('ProfileBioUpdate');

      // --forward-to got each verified delivery with its raw body and signature headers.
      await waitFor(() => fwd.deliveries.length === 4, 'forwarded deliveries');
      for (const d of fwd.deliveries) {
        const sigHeader = (d.headers['x-service-webhooks-signature'] ??
          d.headers['x-twitter-webhooks-signature']) as string;
        expect(sigHeader).toBe(sign(d.raw.toString('utf8')));
      }
      await l.waitStderr(/forwarded to .*: HTTP 200/);
    } finally {
      expect(await l.stop()).toBe(0);
      await fwd.close();
    }
    expect(l.stderr()).toMatch(/deleted webhook \d+/);
    expect((await t.admin<SandboxStateBody>('GET', '/_sandbox/state')).counts.webhooks).toBe(0);
  });

  it('prints the event JSON with --json', async () => {
    const l = spawnCli(['webhooks', 'listen', '--json'], t.env);
    try {
      const url = (await l.waitStderr(/listening on (http:\/\/\S+?)[;\s]/))[1]!;
      const body = JSON.stringify({ data: { event_type: 'spaces.end', payload: { id: 's1' } } });
      expect(
        (await fetch(url, { method: 'POST', body, headers: { 'x-service-webhooks-signature': sign(body) } })).status,
      ).toBe(200);
      const line = (await l.waitStdout(/^.+\n/))[0];
      expect(JSON.parse(line)).toEqual(JSON.parse(body));
    } finally {
      await l.stop();
    }
  });
});

describe('validity through list and validate (manual clock)', () => {
  it('follows the state table: transient failures for more than 28 h, wrong token, PUT re-enables', async () => {
    const rx = await startReceiver(t.sb.seed.api_secret);
    try {
      const c = await t.run(['webhooks', 'create', rx.url, '-o', 'json']);
      expect(c.code).toBe(0);
      const id = JSON.parse(c.stdout).id as string;
      const status = async () => {
        const r = await t.run(['webhooks', 'list', '-o', 'tsv', '--fields', 'id,status']);
        if (r.code !== 0) throw new Error(r.stderr);
        return r.stdout
          .split('\n')
          .find((x) => x.startsWith(id))
          ?.split('\t')[1];
      };
      expect(await status()).toBe('valid');
      rx.mode = 'e500';
      await t.admin('POST', '/_sandbox/clock', { advance: '28h' });
      expect(await status()).toBe('valid'); // failing since 24 h, but not more than 28 h without success
      await t.admin('POST', '/_sandbox/clock', { advance: '30m' });
      expect(await status()).toBe('invalid');
      const v1 = await t.run(['webhooks', 'validate', id, '-o', 'json']);
      expect([v1.code, JSON.parse(v1.stdout).valid]).toEqual([1, false]);
      rx.mode = 'ok';
      const v2 = await t.run(['webhooks', 'validate', id, '-o', 'json']);
      expect([v2.code, JSON.parse(v2.stdout).valid]).toEqual([0, true]);
      expect(await status()).toBe('valid');
      rx.mode = 'wrong';
      await t.admin('POST', '/_sandbox/clock', { advance: '24h' });
      expect(await status()).toBe('invalid'); // a wrong token: at once
      const del = await t.run(['webhooks', 'delete', id]);
      expect(del.code).toBe(2); // not a TTY, no --yes
      expect(del.stderr).toContain('--yes');
      expect((await t.run(['webhooks', 'delete', id, '--yes'])).code).toBe(0);
    } finally {
      await rx.close();
    }
  });
});

describe('local checks and tools', () => {
  // A real-clock sandbox: the CLI checks replay windows on its own clock.
  let rt: TestSandbox;
  beforeAll(async () => {
    rt = await startTestSandbox();
    rt.env.XCTL_BEARER_TOKEN = await appBearer(rt.sb.baseUrl, rt.sb.seed.api_key, rt.sb.seed.api_secret);
  });
  afterAll(async () => {
    await rt.close();
  });
  it('refuses bad URLs, ids and replay windows before sending (exit 2); replays a valid window', async () => {
    const before = (await rt.admin<{ data: unknown[] }>('GET', '/_sandbox/deliveries?limit=1000')).data.length;
    for (const url of ['http://example.com/x', 'https://example.com:8443/x', 'https://192.168.1.2/x']) {
      const r = await rt.run(['webhooks', 'create', url]);
      expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('webhook URL must')]);
    }
    expect((await rt.admin<{ data: unknown[] }>('GET', '/_sandbox/deliveries?limit=1000')).data.length).toBe(before); // no CRC was sent
    expect((await rt.run(['webhooks', 'validate', 'abc'])).code).toBe(2);
    const rx = await startReceiver(rt.sb.seed.api_secret);
    try {
      const created = await rt.run(['webhooks', 'create', rx.url, '-o', 'json']);
      expect([created.code, created.stderr]).toEqual([0, '']);
      const id = JSON.parse(created.stdout).id;
      // The CLI checks the window on its own (real) clock; use times relative to it.
      const iso = (ms: number) => new Date(Date.now() + ms).toISOString();
      const far = await rt.run(['webhooks', 'replay', id, '--from', iso(-25 * 3_600_000), '--to', iso(0)]);
      expect([far.code, far.stderr]).toEqual([2, expect.stringContaining('--from must be within the past 24 hours')]);
      const rev = await rt.run(['webhooks', 'replay', id, '--from', iso(-3_600_000), '--to', iso(-7_200_000)]);
      expect(rev.code).toBe(2);
      expect((await rt.run(['webhooks', 'replay', id, '--from', 'yesterday'])).code).toBe(2);
      const ymd = new Date(Date.now() - 3_600_000).toISOString().replace(/[-:T]/g, '').slice(0, 12);
      const ok = await rt.run(['webhooks', 'replay', id, '--from', ymd, '-o', 'json']);
      expect([ok.code, ok.stderr]).toEqual([0, '']);
      expect(JSON.parse(ok.stdout)).toMatchObject({
        job_id: expect.stringMatching(/^\d+$/),
        webhook_id: id,
        from_date: ymd,
      });
      await rt.run(['webhooks', 'delete', id, '--yes']);
    } finally {
      await rx.close();
    }
  });

  it('crc prints the vector answer; verify exits 0 for a valid signature and 1 for a forged one', async () => {
    const env = {
      XCTL_CONFIG_DIR: tempDir(),
      XCTL_API_KEY: 'k',
      XCTL_API_SECRET: 'z3ZX4v7mAAUGykl3EcmkqbartmuW8VFOOzCloLx9Q45P0hLrFu',
    };
    const crc = await runCli(['webhooks', 'crc', '9b4507b3-9040-4669-9ca3-6b94edb50553'], { env });
    expect(JSON.parse(crc.stdout)).toEqual({ response_token: 'sha256=Cytd4Sq+NvEcV3MMrXxWJGJx5A+y/lXzzU2Maartkx8=' });
    expect((await runCli(['webhooks', 'crc', '{"a":1}'], { env })).code).toBe(2);
    const num = await runCli(['webhooks', 'crc', '12345'], { env });
    expect([num.code, num.stderr]).toEqual([
      2,
      expect.stringContaining('"12345" is refused on purpose: a crc_token that is also a JSON value'),
    ]);
    const dir = tempDir();
    const file = path.join(dir, 'body.json');
    const body = '{"data":{"event_type":"dm.received","payload":{"text":"héllo"}}}';
    fs.writeFileSync(file, body);
    const good = sign(body, env.XCTL_API_SECRET);
    expect((await runCli(['webhooks', 'verify', '--signature', good, '--body', `@${file}`], { env })).code).toBe(0);
    expect((await runCli(['webhooks', 'verify', '--signature', good], { env, input: body })).code).toBe(0);
    const bad = await runCli(
      ['webhooks', 'verify', '--signature', sign(body + ' ', env.XCTL_API_SECRET), '--body', file],
      { env },
    );
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('signature invalid')]);
    expect((await runCli(['webhooks', 'verify', '--body', file], { env })).code).toBe(2);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
