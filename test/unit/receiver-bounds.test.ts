// `webhooks listen`'s receiver (issue 25 item 10): connections that never send a request cannot
// lock deliveries out, and a body that is not JSON is refused before its signature is checked.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { crcResponse, signBody } from '../../src/webhooks/crypto.js';
import { createReceiver, MAX_CONNECTIONS } from '../../src/webhooks/listener.js';

const SECRET = 'consumer-secret';
const sockets: net.Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});

async function receiver(): Promise<{
  url: string;
  delivered: unknown[];
  rejected: string[];
  close: () => Promise<void>;
}> {
  const delivered: unknown[] = [];
  const rejected: string[] = [];
  const server = createReceiver({
    secret: SECRET,
    path: '/webhooks',
    onDelivery: (d) => delivered.push(d.json),
    onRejected: (why) => rejected.push(why),
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    delivered,
    rejected,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

describe('webhooks listen receiver', () => {
  it(`${MAX_CONNECTIONS} half-open connections do not stop a real delivery`, async () => {
    const rx = await receiver();
    const { port } = new URL(rx.url);
    for (let i = 0; i < MAX_CONNECTIONS; i++) {
      const s = net.connect(Number(port), '127.0.0.1');
      s.on('error', () => undefined);
      sockets.push(s);
    }
    await Promise.all(
      sockets.map((s) => new Promise((r) => (s.readyState === 'open' ? r(null) : s.once('connect', r)))),
    );
    await new Promise((r) => setTimeout(r, 100));
    const body = JSON.stringify({ data: { event_type: 'profile.update.bio' } });
    const started = Date.now();
    const res = await fetch(rx.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-twitter-webhooks-signature': signBody(SECRET, body) },
      body,
      signal: AbortSignal.timeout(4000),
    });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
    await rx.close();
  });

  it('a body that is not JSON is refused even with a valid signature (a CRC answer posted back)', async () => {
    const rx = await receiver();
    const token = 'not-json-token';
    const sig = crcResponse(SECRET, token).response_token;
    const res = await fetch(rx.url, { method: 'POST', headers: { 'x-twitter-webhooks-signature': sig }, body: token });
    expect(res.status).toBe(400);
    expect(rx.delivered).toEqual([]);
    expect(rx.rejected).toEqual(['body is not JSON (deliveries are)']);
    await rx.close();
  });
});
