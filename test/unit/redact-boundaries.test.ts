// Boundary tables for the masks and the redactor (core/redact.ts) and the terminal escaper
// (core/sanitize.ts). Mutation testing (TESTING.md) showed the 8-character mask boundary, the
// 4-character registration minimum, mask(undefined), the URL userinfo replacement and strings
// made only of unsafe characters unpinned.
import { describe, expect, it } from 'vitest';
import { mask, redactSecrets, redactUrlCredentials, registerSecret } from '../../src/core/redact.js';
import { escapeForTerminal } from '../../src/core/sanitize.js';

describe('mask', () => {
  const rows: Array<[string | undefined, string]> = [
    [undefined, ''],
    ['', ''],
    ['a', '****'],
    ['abcdefgh', '****'], // 8 characters: nothing shown
    ['abcdefghi', 'abcd…(9)'], // 9: the first 4 and the length
    ['abcdefghijklmnopqrstuvwxyz', 'abcd…(26)'],
  ];
  it.each(rows)('%j -> %j', (v, want) => expect(mask(v)).toBe(want));
});

describe('registerSecret and redactSecrets', () => {
  it('ignores values under 4 characters (they would mask every "a" in a message) and takes 4', () => {
    registerSecret('zq7');
    expect(redactSecrets('zq7 zq7')).toBe('zq7 zq7');
    registerSecret('zq7w');
    expect(redactSecrets('x zq7w y')).toBe('x **** y');
  });

  it('masks every occurrence, and the URL-encoded form of a secret', () => {
    registerSecret('k3y/with+plus=');
    expect(redactSecrets('a k3y/with+plus= b k3y/with+plus=')).toBe('a k3y/…(14) b k3y/…(14)');
    expect(redactSecrets('q=k3y%2Fwith%2Bplus%3D')).toBe(`q=${mask('k3y%2Fwith%2Bplus%3D')}`);
  });

  it('masks extra secrets given per call, and nothing when none occurs', () => {
    expect(redactSecrets('one TOKEN-123456789 two', ['TOKEN-123456789'])).toBe('one TOKE…(15) two');
    expect(redactSecrets('plain text', ['TOKEN-123456789'])).toBe('plain text');
  });

  it('redacts credential shapes never registered', () => {
    expect(redactSecrets('Authorization: Bearer AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid')).toBe(
      'Authorization: Bearer [redacted]',
    );
    expect(redactSecrets('Basic Y2s6Y3NlY3JldA==')).toBe('Basic [redacted]');
    expect(redactSecrets('Bearer short')).toBe('Bearer short'); // under 8 characters: not a token
    expect(redactSecrets('oauth_signature="abc%3D", oauth_token_secret=xyz&n=1')).toBe(
      'oauth_signature="[redacted]", oauth_token_secret=[redacted]&n=1',
    );
    expect(redactSecrets('{"access_token":"tok","refresh_token" : "r2","name":"n"}')).toBe(
      '{"access_token":"[redacted]","refresh_token" : "[redacted]","name":"n"}',
    );
    expect(redactSecrets('proxy https://user:pa55@proxy.example:8080/x')).toBe(
      'proxy https://[redacted]@proxy.example:8080/x',
    );
  });

  // Issue 43: `(\s+)` -> `(\s)` survived. HTTP allows any run of spaces or tabs after the scheme,
  // and an echoed header keeps them: every one of these is still a token, kept as written.
  it('Bearer and Basic followed by several spaces, a tab or a newline: still redacted, the white space kept', () => {
    for (const ws of ['  ', '   ', '\t', ' \t ', '\n'])
      for (const scheme of ['Bearer', 'Basic'])
        expect(
          redactSecrets(`Authorization: ${scheme}${ws}AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid`),
          JSON.stringify(ws),
        ).toBe(`Authorization: ${scheme}${ws}[redacted]`);
  });

  it('redactUrlCredentials replaces user:password@ and nothing else', () => {
    expect(redactUrlCredentials('https://u:p@h.example/a?b=c')).toBe('https://[redacted]@h.example/a?b=c');
    expect(redactUrlCredentials('https://h.example/a@b')).toBe('https://h.example/a@b');
    expect(redactUrlCredentials('')).toBe('');
  });
});

describe('escapeForTerminal: strings made only of unsafe characters', () => {
  const rows: Array<[string, string]> = [
    ['\r', '\\u000d'],
    ['\u202e', '\\u202e'],
    ['\u0000', '\\u0000'],
    ['\u001f\u007f', '\\u001f\\u007f'],
    ['\u0085', '\\u0085'],
    ['\u009f', '\\u009f'],
    ['\u2069', '\\u2069'],
  ];
  it.each(rows)('%j', (s, want) => {
    expect(escapeForTerminal(s)).toBe(want);
    expect(escapeForTerminal(s, { keepLayout: true })).toBe(want);
  });
  it('keeps the characters just outside the ranges', () => {
    for (const s of ['\u00a0', '\u2029', '\u206a', '\u2065', ' ', '~']) expect(escapeForTerminal(s)).toBe(s);
  });
});
