// Secrets are compared in constant time (issue 43): a webhook delivery's signature, the sandbox's
// OAuth 1.0a signature, and the state of an OAuth 2.0 redirect. `===` gives the same answers, so no
// output can tell the two apart; what a test can see is the primitive deciding. Each check below
// makes crypto.timingSafeEqual answer "different" for two equal values: a check that still
// accepts the right value decided without it (`===`, or a loop of its own).
import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { oauth1Header } from '../../src/core/oauth1.js';
import { parseRedirect } from '../../src/core/oauth2.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { signBody, verifySignature } from '../../src/webhooks/crypto.js';

afterEach(() => vi.restoreAllMocks());

/** crypto.timingSafeEqual answering `false` whatever it is given, and recording its calls. */
const refuseAll = () => vi.spyOn(crypto, 'timingSafeEqual').mockReturnValue(false);

describe('webhook delivery signature (webhooks/crypto.ts verifySignature)', () => {
  const body = '{"for_user_id":"1"}';
  const sig = signBody('secret', body);
  it('the right signature is accepted, and timingSafeEqual compared it with the expected bytes', () => {
    const spy = vi.spyOn(crypto, 'timingSafeEqual');
    expect(verifySignature('secret', body, sig)).toBe(true);
    expect(spy).toHaveBeenCalledWith(Buffer.from(sig), Buffer.from(sig));
  });
  it('with timingSafeEqual saying "different", the right signature is refused', () => {
    const spy = refuseAll();
    expect(verifySignature('secret', body, sig)).toBe(false);
    expect(spy).toHaveBeenCalled();
  });
});

describe('OAuth 2.0 redirect state (core/oauth2.ts parseRedirect)', () => {
  const url = 'http://127.0.0.1:8765/callback?state=S-123&code=C';
  it('our state is taken; with timingSafeEqual saying "different", it is refused', () => {
    expect(parseRedirect(url, 'S-123')).toEqual({ kind: 'code', code: 'C' });
    refuseAll();
    expect(() => parseRedirect(url, 'S-123')).toThrow(/state is not the one this login sent/);
  });
});

describe('sandbox OAuth 1.0a signature (sandbox/verify.ts)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.close());
  const get = () => {
    const s = sb.seed;
    const url = `${sb.baseUrl}/1.1/account/verify_credentials.json`;
    const authorization = oauth1Header(
      {
        consumerKey: s.api_key,
        consumerSecret: s.api_secret,
        token: s.access_token,
        tokenSecret: s.access_token_secret,
      },
      { method: 'GET', url },
    );
    return fetch(url, { headers: { authorization } });
  };
  it('a good signature is 200; with timingSafeEqual saying "different", it is 401 code 32', async () => {
    expect((await get()).status).toBe(200);
    // Only comparisons of equal length reach the primitive's answer (timingSafeEqualStr refuses
    // other lengths itself), so every comparison refused means the signature's was.
    const spy = refuseAll();
    const res = await get();
    expect(res.status).toBe(401);
    expect(((await res.json()) as { errors: Array<{ code: number }> }).errors[0]!.code).toBe(32);
    expect(spy).toHaveBeenCalled();
  });
});
