// `webhooks doctor` and `webhooks send`, the real CLI against local receivers each broken one
// way (and https ones with certificates from a throwaway CA made with openssl), and a real
// sandbox for `--id` and the recorded deliveries of `sandbox logs`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { startTestSandbox, tempDir, type TestSandbox } from '../helpers/cli.js';
import { appBearer, spawnCli } from '../helpers/receiver.js';
import {
  makeThrowawayCa,
  startEndpoint,
  type Endpoint,
  type EndpointMode,
  type ThrowawayCa,
} from '../helpers/endpoints.js';

let t: TestSandbox;
let secret: string;
const open: Endpoint[] = [];
const ca = makeThrowawayCa();

beforeAll(async () => {
  t = await startTestSandbox();
  secret = t.sb.seed.api_secret;
  t.env.XCTL_BEARER_TOKEN = await appBearer(t.sb.baseUrl, t.sb.seed.api_key, secret);
});
afterAll(async () => {
  for (const e of open) await e.close();
  await t.close();
  if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
});

async function endpoint(mode: EndpointMode, cert?: { key: string; cert: string }): Promise<Endpoint> {
  const e = await startEndpoint(secret, mode, cert);
  open.push(e);
  return e;
}

interface Report {
  ok: boolean;
  cause: string | null;
  url: string;
  steps: Array<{ name: string; ok: boolean; ms: number; detail: string }>;
}

async function doctor(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; report: Report; stderr: string }> {
  const r = await t.run(['webhooks', 'doctor', ...args, '-o', 'json'], { env });
  expect(r.stdout + r.stderr).not.toContain(secret);
  return { code: r.code, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
}

describe('webhooks doctor', () => {
  it('passes a healthy receiver: every step ok, a signed delivery it can verify, exit 0', async () => {
    const e = await endpoint('ok');
    const { code, report } = await doctor([e.url]);
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
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'body'), e.posts[0]!.raw);
    const sig = e.posts[0]!.headers['x-service-webhooks-signature'] as string;
    expect(e.posts[0]!.headers['x-twitter-webhooks-signature']).toBe(sig);
    expect(JSON.parse(e.posts[0]!.raw.toString('utf8')).data.event_type).toBe('profile.update.bio');
    expect((await t.run(['webhooks', 'verify', '--signature', sig, '--body', path.join(dir, 'body')])).code).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prints a readable report when not asked for JSON', async () => {
    const e = await endpoint('wrong_secret');
    const r = await t.run(['webhooks', 'doctor', e.url]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^webhooks doctor ${e.url.replace(/[.?]/g, '\\$&')}\n  ok    url `));
    expect(r.stdout).toMatch(
      /\n {2}FAIL {2}crc +\d+ ms {2}response_token is well formed but signed with another secret/,
    );
    expect(r.stdout).toMatch(/\n {2}not run: delivery\nnot healthy: wrong_secret\n$/);
    expect(r.stderr).toMatch(/error: the webhook is not healthy: wrong_secret/);
    expect(r.stderr).toContain("deploy this app's API secret");
  });

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
  for (const [mode, cause, detail] of broken) {
    it(`names ${cause} for a receiver that answers ${mode}, exit 1`, async () => {
      const e = await endpoint(mode);
      const { code, report } = await doctor([e.url]);
      expect(code).toBe(1);
      expect(report.ok).toBe(false);
      expect(report.cause).toBe(cause);
      const last = report.steps.at(-1)!;
      expect(last.ok).toBe(false);
      expect(last.detail).toMatch(detail);
      expect(report.steps.slice(0, -1).every((s) => s.ok)).toBe(true);
    });
  }

  it('names slow for a CRC answer later than the 3 s the platform waits', async () => {
    const e = await endpoint('slow');
    const { code, report } = await doctor([e.url, '--no-delivery']);
    expect(code).toBe(1);
    expect(report.cause).toBe('slow');
    const crc = report.steps.at(-1)!;
    expect(crc).toMatchObject({ name: 'crc', ok: false });
    expect(crc.ms).toBeGreaterThanOrEqual(2_900);
    expect(crc.ms).toBeLessThan(3_400);
    expect(crc.detail).toMatch(/within 3000 ms/);
  }, 15_000);

  it('names url_rules and unreachable before sending anything', async () => {
    const ported = await doctor(['https://hooks.example.org:8443/webhooks']);
    expect([ported.code, ported.report.cause, ported.report.steps.length]).toEqual([1, 'url_rules', 1]);
    expect(ported.report.steps[0]!.detail).toMatch(/port/);
    const priv = await doctor(['https://10.1.2.3/webhooks']);
    expect(priv.report.cause).toBe('url_rules');
    const e = await endpoint('ok');
    await e.close();
    const gone = await doctor([e.url]);
    expect([gone.code, gone.report.cause]).toEqual([1, 'unreachable']);
    expect(gone.report.steps.at(-1)!.detail).toMatch(/ECONNREFUSED/);
  });

  describe.skipIf(!ca)('over https with a throwaway CA (openssl)', () => {
    const env = (c: ThrowawayCa) => ({ NODE_EXTRA_CA_CERTS: c.caPath });
    it('passes a valid certificate for the host name', async () => {
      const e = await endpoint('ok', ca!.leaf('localhost', 1));
      const { code, report } = await doctor([e.url], env(ca!));
      expect(code).toBe(0);
      expect(report.steps.find((s) => s.name === 'tls')!.detail).toMatch(
        /SNI localhost: certificate CN=localhost .* issued by xctl throwaway test CA/,
      );
    });
    it('names tls for an expired certificate', async () => {
      const e = await endpoint('ok', ca!.leaf('localhost', -1));
      const { code, report } = await doctor([e.url], env(ca!));
      expect([code, report.cause]).toEqual([1, 'tls']);
      expect(report.steps.at(-1)).toMatchObject({ name: 'tls', ok: false });
      expect(report.steps.at(-1)!.detail).toMatch(/the certificate has expired \[CERT_HAS_EXPIRED\]/);
    });
    it('names tls for a certificate made for another host', async () => {
      const e = await endpoint('ok', ca!.leaf('hooks.example.org', 1));
      const { code, report } = await doctor([e.url], env(ca!));
      expect([code, report.cause]).toEqual([1, 'tls']);
      expect(report.steps.at(-1)!.detail).toMatch(
        /for another host name \[ERR_TLS_CERT_ALTNAME_INVALID\]; SNI localhost: certificate CN=hooks\.example\.org/,
      );
    });
    it('names tls for a CA the client does not trust', async () => {
      const e = await endpoint('ok', ca!.leaf('localhost', 1));
      const { report } = await doctor([e.url]);
      expect(report.cause).toBe('tls');
    });
  });
  if (!ca) it.skip('https checks: openssl is not on this machine, so no throwaway CA can be made', () => {});

  it('--id reads the URL of a registered webhook', async () => {
    const e = await endpoint('ok');
    const created = await t.run(['webhooks', 'create', e.url, '-o', 'json']);
    expect(created.code).toBe(0);
    const id = JSON.parse(created.stdout).id as string;
    const { code, report } = await doctor(['--id', id]);
    expect([code, report.url]).toEqual([0, e.url]);
    const missing = await t.run(['webhooks', 'doctor', '--id', '1234567890']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no webhook 1234567890 is registered/);
    expect((await t.run(['webhooks', 'delete', id, '--yes'])).code).toBe(0);
  });
});

describe('webhooks send', () => {
  it("POSTs one signed delivery shaped like the platform's; its output verifies with `webhooks verify`", async () => {
    const e = await endpoint('ok');
    const r = await t.run([
      'webhooks',
      'send',
      '--to',
      e.url,
      '--event',
      'profile.update.bio',
      '--user-id',
      '783214',
      '--data',
      '{"before":"a","after":"b"}',
      '-o',
      'json',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(secret);
    const out = JSON.parse(r.stdout) as {
      status: number;
      body: string;
      signature: string;
      event_type: string;
    };
    expect(out).toMatchObject({ status: 200, event_type: 'profile.update.bio' });
    expect(e.posts[0]!.raw.toString('utf8')).toBe(out.body);
    expect(e.posts[0]!.headers['x-service-webhooks-signature']).toBe(out.signature);
    expect(e.posts[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(out.body)).toMatchObject({
      data: {
        event_type: 'profile.update.bio',
        filter: { user_id: '783214' },
        payload: { before: 'a', after: 'b' },
      },
    });
    expect((await t.run(['webhooks', 'verify', '--signature', out.signature], { input: out.body })).code).toBe(0);
    expect((await t.run(['webhooks', 'verify', '--signature', out.signature], { input: out.body + ' ' })).code).toBe(1);
  });

  it('exits 1 when the receiver does not acknowledge with 200, 2 on bad input (nothing sent)', async () => {
    const e = await endpoint('post_500');
    const r = await t.run(['webhooks', 'send', '--to', e.url, '--event', 'profile.update.bio']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/did not acknowledge the delivery: HTTP 500/);
    for (const bad of [
      ['--event', 'ProfileBioUpdate'],
      ['--event', 'nope'],
      ['--event', 'dm.sent', '--data', '[1]'],
      [],
    ]) {
      const b = await t.run(['webhooks', 'send', '--to', e.url, ...bad]);
      expect(b.code, bad.join(' ')).toBe(2);
    }
    expect(e.posts).toHaveLength(1);
  });

  it('re-sends a recorded delivery: a `listen --json` line as it is, a `sandbox logs --json` entry rebuilt', async () => {
    const l = spawnCli(['webhooks', 'listen', '--register', '--json', '--events', 'profile.update.bio'], t.env);
    let line: string;
    try {
      await l.waitStderr(/registered webhook \d+/);
      expect(
        (await t.run(['sandbox', 'trigger', 'profile.update.bio', '--user-id', '42', '--data', '{"after":"recorded"}']))
          .code,
      ).toBe(0);
      line = (await l.waitStdout(/^\{.*"recorded".*\}$/m))[0];
    } finally {
      expect(await l.stop()).toBe(0);
    }
    const e = await endpoint('ok');
    const r = await t.run(['webhooks', 'send', '--to', e.url, '--from', '-', '-o', 'json'], {
      input: line + '\n',
    });
    expect(r.code).toBe(0);
    expect(e.posts[0]!.raw.toString('utf8')).toBe(line);
    const logs = await t.run(['sandbox', 'logs', '--no-follow', '--limit', '5000', '-o', 'jsonl']);
    const entry = logs.stdout
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x) as Record<string, unknown>)
      .filter((x) => x.kind === 'delivery')
      .at(-1)!;
    const again = await t.run(['webhooks', 'send', '--to', e.url, '--from', '-'], {
      input: JSON.stringify(entry),
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(e.posts[1]!.raw.toString('utf8')).data).toMatchObject({
      event_type: 'profile.update.bio',
      event_uuid: entry.event_uuid,
    });
    const two = await t.run(['webhooks', 'send', '--to', e.url, '--from', '-'], {
      input: `${line}\n${line}\n`,
    });
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/expected one JSON line/);
  });
});
