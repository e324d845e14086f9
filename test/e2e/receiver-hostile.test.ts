// `webhooks listen` against hostile senders (issue 14, items 1 and 9): CRC tokens that are JSON
// texts, escape sequences in event data, repeated deliveries, oversized and flooding bodies.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { expectedSignature, spawnCli, waitFor, type LongRun } from '../helpers/receiver.js';

const SECRET = 'receiver-secret-0123456789';
let l: LongRun;
let url: string;
let port: number;

beforeAll(async () => {
  l = spawnCli(['webhooks', 'listen'], { XCTL_CONFIG_DIR: tempDir(), XCTL_API_KEY: 'k', XCTL_API_SECRET: SECRET });
  url = (await l.waitStderr(/listening on (http:\/\/\S+?)[;\s]/))[1]!;
  port = Number(new URL(url).port);
});
afterAll(async () => {
  expect(await l.stop()).toBe(0);
});

const post = (body: string) =>
  fetch(url, {
    method: 'POST',
    body,
    headers: { 'x-service-webhooks-signature': expectedSignature(SECRET, Buffer.from(body)) },
  });

/** Sends raw bytes and resolves with what the listener answered (or '' when it closed). */
function raw(bytes: string, keepOpen = false): Promise<{ answer: string; socket: net.Socket }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(bytes));
    let answer = '';
    s.on('data', (d) => {
      answer += d;
      if (!keepOpen) s.destroy();
      resolve({ answer, socket: s });
    });
    s.on('error', () => resolve({ answer, socket: s }));
    s.on('close', () => resolve({ answer, socket: s }));
  });
}

describe('webhooks listen against hostile senders', () => {
  it('refuses CRC tokens that are JSON texts: their signature would sign a forged body', async () => {
    for (const token of ['null', 'true', 'false', '12345', '-1.5e+300', '0']) {
      const r = await fetch(`${url}?crc_token=${encodeURIComponent(token)}`);
      expect(r.status, token).toBe(400);
    }
    const ok = await fetch(`${url}?crc_token=aGVsbG8td29ybGQ`);
    expect(ok.status).toBe(200);
  });

  it('escapes control characters and bidi overrides in event lines', async () => {
    const evil = '\u001b]0;pwned\u0007\u001b[2J\r\u009b1m\u202eexe';
    const body = JSON.stringify({ data: { id: '1', text: `hi ${evil}`, author_id: `u${evil}` } });
    expect((await post(body)).status).toBe(200);
    const line = (await l.waitStdout(/hi .*\n/))[0];
    expect(line).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(line).toContain('\\u001b]0;pwned\\u0007');
  });

  it('drops a repeated delivery of the same event_uuid and says so', async () => {
    const body = JSON.stringify({
      data: { event_uuid: 'dup-1', event_type: 'profile.update.bio', payload: { after: 'once-only' } },
    });
    expect((await post(body)).status).toBe(200);
    expect((await post(body)).status).toBe(200);
    await l.waitStderr(/dropped a repeated delivery of event dup-1/);
    expect(l.stdout().match(/once-only/g)).toHaveLength(1);
  });

  it('refuses a declared Content-Length over the cap before reading the body', async () => {
    const { answer } = await raw(
      `POST ${new URL(url).pathname} HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\nx-service-webhooks-signature: sha256=x\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    await l.waitStderr(/body too large \(Content-Length 999999999/);
  });

  it('bounds the bytes held across connections', async () => {
    const path = new URL(url).pathname;
    const chunk = 'x'.repeat(4_000_000);
    const sockets: net.Socket[] = [];
    const answers: string[] = [];
    for (let i = 0; i < 10; i++) {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => {});
      s.on('data', (d) => answers.push(String(d)));
      s.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 4900000\r\nx-service-webhooks-signature: sha256=x\r\n\r\n`,
      );
      s.write(chunk);
      sockets.push(s);
    }
    try {
      await waitFor(() => answers.some((a) => /^HTTP\/1\.1 503/.test(a)), 'a 503 once 32 MB are held');
      await l.waitStderr(/too much buffered across connections/);
    } finally {
      for (const s of sockets) s.destroy();
    }
    // the held bytes are released: an ordinary delivery is taken again
    await waitFor(
      async () => (await post(JSON.stringify({ data: { id: '9', text: 'after the flood' } }))).status === 200,
      'a delivery after the flood',
    );
  });

  it('bounds concurrent connections', async () => {
    const sockets: net.Socket[] = [];
    let closed = 0;
    for (let i = 0; i < 100; i++) {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => {});
      s.on('close', () => closed++);
      sockets.push(s);
    }
    try {
      await waitFor(() => closed >= 36, 'connections beyond the cap to be closed');
    } finally {
      for (const s of sockets) s.destroy();
    }
    await waitFor(async () => (await fetch(`${url}?crc_token=abc-def`)).status === 200, 'the listener to answer again');
  });
});
