import { describe, expect, it } from 'vitest';
import { basicHeader, oauth1Header, percentEncode, signOAuth1 } from '../../src/core/oauth1.js';
import { hmacSha1, parseOAuthHeader, rfc3986, signatureBaseString } from '../../src/sandbox/verify.js';

// platform-notes.md "OAuth 1.0a signing": the worked example published by the platform.
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
    expect(base.startsWith('POST&https%3A%2F%2Fapi.x.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key')).toBe(true);
    expect(base).toContain('status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521');
    expect(hmacSha1(base, V.consumerSecret, V.tokenSecret)).toBe(V.signature);
  });
});

describe('percent-encoding (RFC 3986)', () => {
  const cases: Array<[string, string]> = [
    ['Ladies + Gentlemen', 'Ladies%20%2B%20Gentlemen'],
    ['An encoded string!', 'An%20encoded%20string%21'],
    ['Dogs, Cats & Mice', 'Dogs%2C%20Cats%20%26%20Mice'],
    ['☃', '%E2%98%83'],
    ["-._~*'()", "-._~%2A%27%28%29"],
    ['ünïcode', '%C3%BCn%C3%AFcode'],
  ];
  it.each(cases)('%s', (input, expected) => {
    expect(percentEncode(input)).toBe(expected);
    expect(rfc3986(input)).toBe(expected);
  });
});

describe('Basic header for /oauth2/token', () => {
  it('is base64(enc(key):enc(secret))', () => {
    // platform-notes.md "Token endpoints": enc() is applied before base64.
    expect(basicHeader('xvz1evFS4wEEPTGEFPHBog', 'L8qq9PZyRg6ieKGEKhZolGC0vJWLw8iEJ88DRdyOg')).toBe(
      'Basic eHZ6MWV2RlM0d0VFUFRHRUZQSEJvZzpMOHFxOVBaeVJnNmllS0dFS2hab2xHQzB2SldMdzhpRUo4OERSZHlPZw==',
    );
    expect(basicHeader('a b', 'c:d')).toBe('Basic ' + Buffer.from('a%20b:c%3Ad').toString('base64'));
  });
});
