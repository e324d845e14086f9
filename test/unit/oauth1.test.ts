import { describe, expect, it } from 'vitest';
import { basicHeader, oauth1Header, percentEncode, signOAuth1 } from '../../src/core/oauth1.js';
import { hmacSha1, parseOAuthHeader, rfc3986, signatureBaseString } from '../../src/sandbox/verify.js';

// docs/contract.md, notes "OAuth 1.0a signing": the worked example published by the platform.
const V = {
  url: 'https://api.x.com/1.1/statuses/update.json?include_entities=true',
  form: [['status', 'Hello Ladies + Gentlemen, a signed OAuth request!']] as Array<[string, string]>,
  consumerKey: 'xvz1evFS4wEEPTGEFPHBog',
  consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
  token: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
  tokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
  nonce: 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg',
  timestamp: 1318622958,
  signature: 'Ls93hJiZbQ3akF3HF3x1Bz8/zU4=',
};

describe('OAuth 1.0a signing (client, oauth-1.0a)', () => {
  it('reproduces the published signature', () => {
    const p = signOAuth1(V, { method: 'POST', url: V.url, form: V.form, nonce: V.nonce, timestamp: V.timestamp });
    expect(p.oauth_signature).toBe(V.signature);
    expect(Object.keys(p).every((k) => k.startsWith('oauth_'))).toBe(true);
  });

  it('builds the header with percent-encoded values, sorted', () => {
    const h = oauth1Header(V, { method: 'POST', url: V.url, form: V.form, nonce: V.nonce, timestamp: V.timestamp });
    expect(h.startsWith('OAuth ')).toBe(true);
    expect(h).toContain('oauth_signature="Ls93hJiZbQ3akF3HF3x1Bz8%2FzU4%3D"');
    expect(h).toContain('oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog"');
    expect(h).not.toContain('status=');
    const parsed = parseOAuthHeader(h)!;
    expect(parsed.oauth_signature).toBe(V.signature);
    expect(parsed.oauth_token).toBe(V.token);
  });

  it('changes when any signed input changes', () => {
    const base = { method: 'POST', url: V.url, form: V.form, nonce: V.nonce, timestamp: V.timestamp };
    expect(signOAuth1(V, { ...base, method: 'GET' }).oauth_signature).not.toBe(V.signature);
    expect(signOAuth1(V, { ...base, url: V.url.replace('true', 'false') }).oauth_signature).not.toBe(V.signature);
    expect(signOAuth1({ ...V, tokenSecret: 'x' }, base).oauth_signature).not.toBe(V.signature);
  });
});

describe('OAuth 1.0a signing (sandbox verifier, independent implementation)', () => {
  it('reproduces the published signature', () => {
    const params: Array<[string, string]> = [
      ['include_entities', 'true'],
      ...V.form,
      ['oauth_consumer_key', V.consumerKey],
      ['oauth_nonce', V.nonce],
      ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_timestamp', String(V.timestamp)],
      ['oauth_token', V.token],
      ['oauth_version', '1.0'],
    ];
    const base = signatureBaseString('POST', 'https://api.x.com/1.1/statuses/update.json', params);
    expect(
      base.startsWith(
        'POST&https%3A%2F%2Fapi.x.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key',
      ),
    ).toBe(true);
    expect(base).toContain(
      'status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521',
    );
    expect(hmacSha1(base, V.consumerSecret, V.tokenSecret)).toBe(V.signature);
  });
});

describe('percent-encoding (RFC 3986)', () => {
  const cases: Array<[string, string]> = [
    ['Ladies + Gentlemen', 'Ladies%20%2B%20Gentlemen'],
    ['An encoded string!', 'An%20encoded%20string%21'],
    ['Dogs, Cats & Mice', 'Dogs%2C%20Cats%20%26%20Mice'],
    ['☃', '%E2%98%83'],
    ["-._~*'()", '-._~%2A%27%28%29'],
    ['ünïcode', '%C3%BCn%C3%AFcode'],
  ];
  it.each(cases)('%s', (input, expected) => {
    expect(percentEncode(input)).toBe(expected);
    expect(rfc3986(input)).toBe(expected);
  });
});

describe('Basic header for /oauth2/token', () => {
  it('is base64(enc(key):enc(secret))', () => {
    // docs/contract.md, notes "Token endpoints": enc() is applied before base64.
    expect(basicHeader('xvz1evFS4wEEPTGEFPHBog', 'L8qq9PZyRg6ieKGEKhZolGC0vJWLw8iEJ88DRdyOg')).toBe(
      'Basic eHZ6MWV2RlM0d0VFUFRHRUZQSEJvZzpMOHFxOVBaeVJnNmllS0dFS2hab2xHQzB2SldMdzhpRUo4OERSZHlPZw==',
    );
    expect(basicHeader('a b', 'c:d')).toBe('Basic ' + Buffer.from('a%20b:c%3Ad').toString('base64'));
  });
});

// Mutation testing (TESTING.md): the header's separator and parameter order, the strict parser
// and repeated keys were unpinned (removing ', ' or the sort failed no test).
describe('OAuth 1.0a header: exact form, strict parsing, repeated keys', () => {
  const input = { method: 'POST', url: V.url, form: V.form, nonce: V.nonce, timestamp: V.timestamp };

  it('is exactly the published form: sorted names, quoted percent-encoded values, ", " between', () => {
    expect(oauth1Header(V, input)).toBe(
      'OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", ' +
        'oauth_signature="Ls93hJiZbQ3akF3HF3x1Bz8%2FzU4%3D", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1318622958", ' +
        'oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", oauth_version="1.0"',
    );
  });

  it('puts extra protocol parameters (oauth_callback) in sorted place, percent-encoded', () => {
    const h = oauth1Header(
      { consumerKey: 'k', consumerSecret: 's' },
      {
        method: 'POST',
        url: 'https://api.x.com/oauth/request_token',
        extra: { oauth_callback: 'http://127.0.0.1:9/cb?a=b' },
        nonce: 'n',
        timestamp: 1,
      },
    );
    expect(h).toMatch(
      /^OAuth oauth_callback="http%3A%2F%2F127\.0\.0\.1%3A9%2Fcb%3Fa%3Db", oauth_consumer_key="k", oauth_nonce="n", oauth_signature="[^"]+", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1", oauth_version="1\.0"$/,
    );
  });

  it('the sandbox parser takes comma-separated pairs and refuses every other shape', () => {
    expect(parseOAuthHeader('OAuth a="1", b="2"')).toEqual({ a: '1', b: '2' });
    expect(parseOAuthHeader('OAuth a="1",b="%41"')).toEqual({ a: '1', b: 'A' });
    expect(parseOAuthHeader('oauth  a = "1" ,  b="2"  ')).toEqual({ a: '1', b: '2' });
    for (const bad of [
      'OAuth a="1"b="2"',
      'OAuth a="1" b="2"',
      'OAuth a="1",',
      'OAuth ,a="1"',
      'OAuth a="1", a="2"',
      'OAuth a=1',
      'OAuth',
      'OAutha="1"',
      'Bearer a="1"',
      'OAuth a="%E0%A4%A"',
    ])
      expect(parseOAuthHeader(bad), bad).toBeUndefined();
  });

  it('signs repeated query and form keys as both sides agree (sorted by name, then value)', () => {
    const keys = { consumerKey: 'ck', consumerSecret: 'cs', token: 't', tokenSecret: 'ts' };
    const url = 'https://ads-api.x.com/12/accounts/a1/campaigns?campaign_ids=b&campaign_ids=a&count=2';
    const form: Array<[string, string]> = [
      ['placements', 'TWITTER_TIMELINE'],
      ['placements', 'ALL_ON_TWITTER'],
    ];
    const p = signOAuth1(keys, { method: 'PUT', url, form, nonce: 'nn', timestamp: 1700000000 });
    const params: Array<[string, string]> = [
      ['campaign_ids', 'b'],
      ['campaign_ids', 'a'],
      ['count', '2'],
      ...form,
      ...Object.entries(p).filter(([k]) => k !== 'oauth_signature'),
    ];
    const base = signatureBaseString('PUT', 'https://ads-api.x.com/12/accounts/a1/campaigns', params);
    expect(base).toContain('campaign_ids%3Da%26campaign_ids%3Db%26count%3D2%26oauth_consumer_key');
    expect(base).toContain('placements%3DALL_ON_TWITTER%26placements%3DTWITTER_TIMELINE');
    expect(hmacSha1(base, 'cs', 'ts')).toBe(p.oauth_signature);
    // dropping either repeated value changes the signature
    const one = signOAuth1(keys, {
      method: 'PUT',
      url: url.replace('campaign_ids=b&', ''),
      form,
      nonce: 'nn',
      timestamp: 1700000000,
    });
    expect(one.oauth_signature).not.toBe(p.oauth_signature);
  });
});

describe('OAuth 1.0a: a key repeated three times, a token without a secret', () => {
  it('signs every value of a key given three times', () => {
    const keys = { consumerKey: 'ck', consumerSecret: 'cs', token: 't', tokenSecret: 'ts' };
    const url = 'https://api.x.com/2/x?a=3&a=1&a=2';
    const p = signOAuth1(keys, { method: 'GET', url, nonce: 'n', timestamp: 1 });
    const params: Array<[string, string]> = [
      ['a', '3'],
      ['a', '1'],
      ['a', '2'],
      ...Object.entries(p).filter(([k]) => k !== 'oauth_signature'),
    ];
    expect(hmacSha1(signatureBaseString('GET', 'https://api.x.com/2/x', params), 'cs', 'ts')).toBe(p.oauth_signature);
  });
  it('a token without a secret signs with an empty token secret', () => {
    const p = signOAuth1(
      { consumerKey: 'ck', consumerSecret: 'cs', token: 't' },
      { method: 'GET', url: 'https://api.x.com/a', nonce: 'n', timestamp: 1 },
    );
    const params = Object.entries(p).filter(([k]) => k !== 'oauth_signature') as Array<[string, string]>;
    expect(hmacSha1(signatureBaseString('GET', 'https://api.x.com/a', params), 'cs', '')).toBe(p.oauth_signature);
  });
});
