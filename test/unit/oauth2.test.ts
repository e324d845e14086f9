import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { generateCodeChallenge } from '@xdevplatform/xdk';
import {
  authorizeUrl,
  clientBasic,
  codeChallenge,
  needsRefresh,
  newState,
  newVerifier,
  parseRedirect,
  parseScopes,
  parseTokenResponse,
  tokenEndpointError,
} from '../../src/core/oauth2.js';
import { AuthError, ApiError, UsageError } from '../../src/core/errors.js';
import {
  OAUTH2_SCOPES,
  PKCE,
  oauth2Requirement,
  oauth2RequirementForPath,
  scopesForEvent,
} from '../../src/contract/oauth2.js';

const HAS_PYTHON = spawnSync('python3', ['--version'], { stdio: 'ignore' }).status === 0;

// RFC 7636 Appendix B.
const OCTETS = [
  116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240, 91,
  88, 5, 88, 83, 132, 141, 121,
];
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE (RFC 7636)', () => {
  it('encodes the Appendix B octets to the published verifier', () => {
    expect(newVerifier(Buffer.from(OCTETS))).toBe(VERIFIER);
  });

  it('derives the published S256 challenge; plain is the verifier itself', () => {
    expect(codeChallenge(VERIFIER, 'S256')).toBe(CHALLENGE);
    expect(codeChallenge(VERIFIER)).toBe(CHALLENGE);
    expect(codeChallenge(VERIFIER, 'plain')).toBe(VERIFIER);
  });

  it("agrees with XDK's own challenge function on fresh verifiers", async () => {
    expect(await generateCodeChallenge(VERIFIER)).toBe(CHALLENGE);
    const vs = Array.from({ length: 5 }, () => newVerifier());
    for (const v of vs) expect(await generateCodeChallenge(v)).toBe(codeChallenge(v));
  });

  // A judge that is not on the machine is a skip with its reason, never a pass.
  it.skipIf(!HAS_PYTHON)(
    `agrees with Python hashlib on fresh verifiers${HAS_PYTHON ? '' : ' (SKIPPED: no python3 on this machine)'}`,
    () => {
      const vs = Array.from({ length: 5 }, () => newVerifier());
      const py = execFileSync(
        'python3',
        [
          '-c',
          'import sys,hashlib,base64\nfor v in sys.argv[1:]: print(base64.urlsafe_b64encode(hashlib.sha256(v.encode()).digest()).decode().rstrip("="))',
          ...vs,
        ],
        { encoding: 'utf8' },
      );
      expect(py.trim().split('\n')).toEqual(vs.map((v) => codeChallenge(v)));
    },
  );

  it('makes 43-character verifiers from the RFC alphabet, different every time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const v = newVerifier();
      expect(v).toMatch(PKCE.verifierPattern);
      expect(v).toHaveLength(43);
      seen.add(v);
    }
    expect(seen.size).toBe(50);
    expect(newState()).not.toBe(newState());
  });
});

describe('client authentication', () => {
  it("builds the Basic header of the docs' RFC 2617 vector", () => {
    expect(clientBasic('Aladdin', 'open sesame')).toBe('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==');
  });
});

describe('authorize URL and redirect', () => {
  it('percent-encodes values and joins scopes with %20', () => {
    const u = authorizeUrl('https://x.com', {
      clientId: 'abc',
      redirectUri: 'http://127.0.0.1:8080/callback',
      scopes: ['tweet.read', 'users.read'],
      state: 's t',
      challenge: CHALLENGE,
    });
    expect(u).toBe(
      `https://x.com/i/oauth2/authorize?response_type=code&client_id=abc&redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fcallback&scope=tweet.read%20users.read&state=s%20t&code_challenge=${CHALLENGE}&code_challenge_method=S256`,
    );
  });

  it('takes the code only with our state', () => {
    expect(parseRedirect('http://127.0.0.1:1/callback?state=S&code=C', 'S')).toEqual({ kind: 'code', code: 'C' });
    expect(parseRedirect('http://127.0.0.1:1/callback?error=access_denied&state=S', 'S')).toEqual({
      kind: 'denied',
      error: 'access_denied',
      description: undefined,
    });
    expect(() => parseRedirect('http://127.0.0.1:1/callback?state=T&code=C', 'S')).toThrow(AuthError);
    expect(() => parseRedirect('http://127.0.0.1:1/callback?code=C', 'S')).toThrow(/no state/);
    expect(() => parseRedirect('not a url', 'S')).toThrow(UsageError);
    expect(() =>
      parseRedirect('http://evil.example/callback?state=S&code=C', 'S', 'http://127.0.0.1:1/callback'),
    ).toThrow(/not the callback/);
  });

  it("checks --scopes against the platform's list", () => {
    expect(parseScopes('tweet.read users.read,offline.access tweet.read')).toEqual([
      'tweet.read',
      'users.read',
      'offline.access',
    ]);
    expect(() => parseScopes('tweet.read follow.read')).toThrow(/unknown scope "follow.read"/);
    expect(() => parseScopes('  ')).toThrow(/empty/);
    expect(OAUTH2_SCOPES).toHaveLength(27);
  });
});

describe('token endpoint answers', () => {
  const now = 1_700_000_000_000;
  it('parses the documented 200', () => {
    const t = parseTokenResponse(
      {
        token_type: 'bearer',
        expires_in: 7200,
        access_token: 'AT',
        scope: 'tweet.read users.read offline.access',
        refresh_token: 'RT',
      },
      now,
    );
    expect(t).toEqual({
      access_token: 'AT',
      refresh_token: 'RT',
      expires_at: now + 7_200_000,
      scopes: ['tweet.read', 'users.read', 'offline.access'],
    });
    expect(parseTokenResponse({ token_type: 'Bearer', expires_in: '60', access_token: 'AT' }, now)).toEqual({
      access_token: 'AT',
      expires_at: now + 60_000,
      scopes: [],
    });
  });

  it('refuses answers that are not a usable token', () => {
    expect(() => parseTokenResponse({ token_type: 'mac', expires_in: 1, access_token: 'A' }, now)).toThrow(ApiError);
    expect(() => parseTokenResponse({ token_type: 'bearer', expires_in: 1 }, now)).toThrow(/access_token/);
    expect(() => parseTokenResponse({ token_type: 'bearer', access_token: 'A' }, now)).toThrow(/expires_in/);
    expect(() => parseTokenResponse({ token_type: 'bearer', access_token: 'A', expires_in: -5 }, now)).toThrow(
      /expires_in/,
    );
    expect(() =>
      parseTokenResponse({ token_type: 'bearer', access_token: 'A', expires_in: 5, refresh_token: 7 }, now),
    ).toThrow(/refresh_token/);
    expect(() => parseTokenResponse('<html>', now)).toThrow(/not bearer/);
  });

  it('maps every error value to an auth error that says to log in again', () => {
    for (const error of [
      'invalid_request',
      'invalid_grant',
      'invalid_client',
      'unauthorized_client',
      'invalid_scope',
    ]) {
      const e = tokenEndpointError(
        400,
        { error, error_description: 'Value passed for the token was invalid.' },
        'refreshing the token',
      );
      expect(e).toBeInstanceOf(AuthError);
      expect(e.message).toContain('Value passed for the token was invalid.');
      expect(e.hint).toContain('auth login --oauth2');
    }
    expect(tokenEndpointError(503, {}, 'x')).not.toBeInstanceOf(AuthError);
  });

  it('refreshes a minute before expiry', () => {
    expect(needsRefresh({ expires_at: now + 61_000 }, now)).toBe(false);
    expect(needsRefresh({ expires_at: now + 59_000 }, now)).toBe(true);
    expect(needsRefresh({ expires_at: now - 1 }, now)).toBe(true);
  });
});

describe('scope table', () => {
  it('names the scope each event type needs', () => {
    expect(scopesForEvent('dm.received')).toEqual(['dm.read']);
    expect(scopesForEvent('chat.conversation.join')).toEqual(['dm.read']);
    expect(scopesForEvent('like.create')).toEqual(['like.read']);
    expect(scopesForEvent('mute.unmute')).toEqual(['mute.read']);
    expect(scopesForEvent('block.block')).toEqual(['block.read']);
    expect(scopesForEvent('broadcast.chat')).toEqual(['broadcast.read', 'tweet.read']);
    expect(scopesForEvent('broadcast.start')).toEqual(['tweet.read']);
    expect(scopesForEvent('profile.update.bio')).toEqual(['tweet.read']);
    expect(scopesForEvent('follow.follow')).toEqual(['tweet.read']);
  });

  it('knows which endpoints take user tokens', () => {
    expect(oauth2Requirement('GET', '/2/users/me')).toEqual(['tweet.read', 'users.read']);
    expect(oauth2Requirement('POST', '/2/activity/subscriptions')).toBe('per-event');
    expect(oauth2Requirement('post', '/2/account_activity/webhooks/:id/subscriptions/all')).toContain('dm.write');
    expect(oauth2Requirement('GET', '/2/webhooks')).toBeUndefined();
    expect(oauth2Requirement('DELETE', '/2/activity/subscriptions/:id')).toBeUndefined();
    expect(oauth2RequirementForPath('POST', '/2/media/upload/123/append')).toEqual(['media.write']);
    expect(oauth2RequirementForPath('GET', '/2/users/me?user.fields=id')).toEqual(['tweet.read', 'users.read']);
    expect(oauth2RequirementForPath('GET', '/2/users/mex')).toBeUndefined();
  });
});
