// The sandbox's OAuth 1.0a verifier is as strict as the platform about percent-encoding: RFC 5849
// section 3.6 encodes every byte outside A-Z a-z 0-9 - . _ ~, so `!`, `*`, `'`, `(` and `)` are
// %21, %2A, %27, %28 and %29 in the base string. A client that leaves them as they are (as
// JavaScript's encodeURIComponent does) signs a different base string; the platform answers 401
// code 32, and so must the sandbox, or a client with that bug passes every test and fails in
// production. Over a real loopback socket: the signature the client library computes is taken,
// the lenient one is refused.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth1Header } from '../../src/core/oauth1.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

/** encodeURIComponent: leaves ! * ' ( ) as they are (the client bug). */
const lenient = (s: string) => encodeURIComponent(s);

/** The header of a client whose base string leaves ! * ' ( ) unencoded. */
function lenientHeader(url: URL, keys: { ck: string; cs: string; t: string; ts: string }): string {
  const oauth: Record<string, string> = {
    oauth_consumer_key: keys.ck,
    oauth_nonce: crypto.randomBytes(12).toString('hex'),
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(Math.floor(Date.now() / 1000)),
    oauth_token: keys.t,
    oauth_version: '1.0',
  };
  const params = [...url.searchParams.entries(), ...Object.entries(oauth)]
    .map(([k, v]) => [lenient(k), lenient(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const base = `GET&${lenient(`${url.origin}${url.pathname}`)}&${lenient(params)}`;
  const sig = crypto
    .createHmac('sha1', `${lenient(keys.cs)}&${lenient(keys.ts)}`)
    .update(base)
    .digest('base64');
  const all = { ...oauth, oauth_signature: sig };
  return `OAuth ${Object.keys(all)
    .sort()
    .map((k) => `${k}="${encodeURIComponent(all[k as keyof typeof all])}"`)
    .join(', ')}`;
}

describe("sandbox OAuth 1.0a: ! * ' ( ) must be percent-encoded in the signature base string", () => {
  const cases = ['wow!', 'a*b', "it's", '(x)', "all !*'() five"];
  it.each(cases)('a query value %j: the RFC 3986 signature is taken, the lenient one is 401 code 32', async (value) => {
    const s = sb.seed;
    const keys = { ck: s.api_key, cs: s.api_secret, t: s.access_token, ts: s.access_token_secret };
    const url = new URL(`${sb.baseUrl}/1.1/account/verify_credentials.json`);
    url.searchParams.set('q', value);
    const good = oauth1Header(
      { consumerKey: keys.ck, consumerSecret: keys.cs, token: keys.t, tokenSecret: keys.ts },
      { method: 'GET', url: url.toString() },
    );
    const ok = await fetch(url, { headers: { authorization: good } });
    expect(ok.status).toBe(200);
    const bad = await fetch(url, { headers: { authorization: lenientHeader(url, keys) } });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { errors: Array<{ code: number }> }).errors[0]!.code).toBe(32);
  });

  it('the lenient signature differs from the strict one (the test above is not vacuous)', () => {
    expect(lenient("!*'()")).toBe("!*'()");
  });
});
