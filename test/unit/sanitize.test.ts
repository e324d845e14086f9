// The one terminal-escaping function and the process-wide redactor (issue 14, items 1 and 3).
import { describe, expect, it } from 'vitest';
import { escapeForTerminal } from '../../src/core/sanitize.js';
import { mask, redactSecrets, registerSecret } from '../../src/core/redact.js';

describe('escapeForTerminal', () => {
  it('makes C0, DEL, C1 and bidi overrides visible and leaves everything else alone', () => {
    expect(escapeForTerminal('\u001b]0;title\u0007\u001b[2J')).toBe('\\u001b]0;title\\u0007\\u001b[2J');
    expect(escapeForTerminal('a\u009b31mb\u007f')).toBe('a\\u009b31mb\\u007f');
    for (const c of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      expect(escapeForTerminal(`x${String.fromCharCode(c)}y`)).toBe(`x\\u${c.toString(16)}y`);
    }
    const plain = 'Ünïcødé 日本語 🚀 — tab-free, "quoted" \\ backslash';
    expect(escapeForTerminal(plain)).toBe(plain);
    expect(escapeForTerminal('\u200f\u2028')).toBe('\u200f\u2028'); // only what the issue names
  });

  it('keepLayout keeps newline and tab but never a carriage return', () => {
    expect(escapeForTerminal('a\n\tb\r\u001bc', { keepLayout: true })).toBe('a\n\tb\\u000d\\u001bc');
    expect(escapeForTerminal('a\n\tb')).toBe('a\\u000a\\u0009b');
  });

  it('escapes are JSON escapes: a JSON text passed through still parses to the same value', () => {
    const value = { name: 'a\u0085b\u202ec\u009bd\u2066', list: ['\u007f'] };
    const text = JSON.stringify(value);
    expect(text).toMatch(/[\u0085\u202e]/); // JSON.stringify leaves these raw
    const safe = escapeForTerminal(text);
    expect(safe).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(safe)).toEqual(value);
  });
});

describe('redactSecrets', () => {
  it('masks registered secrets (and their percent-encoded form) wherever they appear', () => {
    registerSecret('s3cr3t/value+with=chars');
    const out = redactSecrets('a s3cr3t/value+with=chars b s3cr3t%2Fvalue%2Bwith%3Dchars c');
    expect(out).not.toContain('s3cr3t/value');
    expect(out).not.toContain('s3cr3t%2F');
    expect(out).toContain(mask('s3cr3t/value+with=chars'));
  });

  it('redacts credential shapes never registered: Bearer, Basic, OAuth signature, user:pass@', () => {
    expect(redactSecrets('Authorization: Bearer AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid')).toBe(
      'Authorization: Bearer [redacted]',
    );
    expect(redactSecrets('got Basic aG9zdGlsZS1rZXk6c2VjcmV0LXZhbHVl==')).toBe('got Basic [redacted]');
    expect(redactSecrets('OAuth oauth_consumer_key="k", oauth_signature="abc%3D", oauth_version="1.0"')).toBe(
      'OAuth oauth_consumer_key="k", oauth_signature="[redacted]", oauth_version="1.0"',
    );
    expect(redactSecrets('{"oauth_token_secret":"zzz","access_token":"yyy"}')).toBe(
      '{"oauth_token_secret":"[redacted]","access_token":"[redacted]"}',
    );
    expect(redactSecrets('oauth_token=abc&oauth_token_secret=def')).toBe(
      'oauth_token=abc&oauth_token_secret=[redacted]',
    );
    expect(redactSecrets('base https://user:p4ss@proxy.example/x')).toBe('base https://[redacted]@proxy.example/x');
    // ordinary prose is left alone
    const prose = 'no access token is set: run `xctl auth login`; Basic auth needs a key';
    expect(redactSecrets(prose)).toBe(prose);
  });
});
