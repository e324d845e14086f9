// Server-side credential checks. The OAuth 1.0a base string is built here independently of the
// client's oauth-1.0a library (RFC 5849 section 3.4), so the two sides check each other.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { SandboxState, SandboxAppRecord, UserToken, RequestToken, OAuth2AccessToken } from './state.js';
import { EXPIRED_TOKEN, OAUTH2_UNAUTHORIZED, signatureError, v1Error, type AuthInfo } from './http.js';
import { V1Code } from '../contract/service-errors.js';

/** RFC 3986 unreserved characters stay; every other UTF-8 byte becomes %XX (uppercase). */
export function rfc3986(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

export function signatureBaseString(method: string, baseUrl: string, params: Array<[string, string]>): string {
  const encoded = params.map(([k, v]) => [rfc3986(k), rfc3986(v)] as const);
  encoded.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const normalized = encoded.map(([k, v]) => `${k}=${v}`).join('&');
  return `${method.toUpperCase()}&${rfc3986(baseUrl)}&${rfc3986(normalized)}`;
}

export function hmacSha1(base: string, consumerSecret: string, tokenSecret = ''): string {
  return crypto
    .createHmac('sha1', `${rfc3986(consumerSecret)}&${rfc3986(tokenSecret)}`)
    .update(base)
    .digest('base64');
}

// RFC 5849 3.5.1: `OAuth` then name="value" pairs separated by commas (optional spaces around
// them), each name once. Anything else (`OAuth a="1"b="2"`, a trailing comma, a repeated name) is
// a malformed header, 401 code 32, as the platform answers: a client that gets this wrong must
// fail here, not only in production.
const HEADER_PARAM = String.raw`[A-Za-z0-9_\-.~%]+\s*=\s*"[^"]*"`;
const HEADER_RE = new RegExp(String.raw`^OAuth\s+${HEADER_PARAM}(?:\s*,\s*${HEADER_PARAM})*\s*$`, 'i');

/** Parses `OAuth k="v", ...` into decoded pairs; undefined for a malformed header. */
export function parseOAuthHeader(h: string): Record<string, string> | undefined {
  if (!HEADER_RE.test(h)) return undefined;
  const out: Record<string, string> = {};
  const re = /([A-Za-z0-9_\-.~%]+)\s*=\s*"([^"]*)"/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(h.slice(6)))) {
    try {
      const k = decodeURIComponent(m[1]!);
      if (Object.hasOwn(out, k)) return undefined;
      out[k] = decodeURIComponent(m[2]!);
    } catch {
      return undefined;
    }
  }
  return out;
}

export function timingSafeEqualStr(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ba.length !== bb.length) {
    crypto.timingSafeEqual(ba, ba);
    return false;
  }
  return crypto.timingSafeEqual(ba, bb);
}

const TIMESTAMP_SKEW_S = 300;
const NONCE_TTL_MS = 15 * 60_000;

export interface VerifyInput {
  method: string;
  url: URL; // as the client addressed it (scheme, host, path, query)
  form: Array<[string, string]>;
  headers: IncomingMessage['headers'];
  /** Sandbox time, for OAuth 2.0 access-token expiry (default: wall time). */
  now?: number;
  /** The route's error style: an unknown bearer on a v2 endpoint gets the v2 problem. */
  style?: string;
}

export type Credential =
  | {
      kind: 'oauth1';
      app: SandboxAppRecord;
      userToken?: UserToken;
      requestToken?: RequestToken;
      oauth: Record<string, string>;
    }
  | { kind: 'bearer'; app: SandboxAppRecord }
  | { kind: 'oauth2'; app: SandboxAppRecord; token: OAuth2AccessToken }
  | { kind: 'basic'; app: SandboxAppRecord }
  | { kind: 'none' };

/** An unknown or invalidated OAuth 1.0a token: v1.1's code 89, v2's Unauthorized Problem. */
function expired(style: string | undefined) {
  return style === 'v2' ? OAUTH2_UNAUTHORIZED() : EXPIRED_TOKEN();
}

/**
 * Identifies and verifies the caller. Bad signatures, stale timestamps and reused nonces get
 * 401 code 32; invalidated or unknown tokens 401 code 89 (on v2 routes both are the v2 401
 * Problem, as an unknown bearer is).
 */
export function verifyRequest(state: SandboxState, input: VerifyInput): Credential {
  const h = input.headers.authorization;
  if (!h) return { kind: 'none' };
  if (/^Bearer\s/i.test(h)) {
    const token = h.slice(7).trim();
    for (const app of state.apps.values())
      if (app.bearer && timingSafeEqualStr(app.bearer, token)) return { kind: 'bearer', app };
    // An OAuth 2.0 user token: usable until it expires on the sandbox clock, is revoked, or its
    // refresh token is spent. Dead ones get the platform's bare 401 problem.
    const t = state.oauth2Access.get(token);
    if (t) {
      if (t.revoked || t.expiresAt <= (input.now ?? Date.now())) throw OAUTH2_UNAUTHORIZED();
      return { kind: 'oauth2', app: state.apps.get(t.appKey)!, token: t };
    }
    // v1.1 answers code 89; v2 its bare 401 problem (docs/contract.md, notes-2 section 1).
    throw input.style === 'v2' ? OAUTH2_UNAUTHORIZED() : EXPIRED_TOKEN();
  }
  if (/^Basic\s/i.test(h)) {
    const dec = Buffer.from(h.slice(6).trim(), 'base64').toString('utf8');
    const i = dec.indexOf(':');
    if (i < 0)
      throw v1Error(403, V1Code.TokenRequestedTooOften, 'Unable to verify your credentials', {
        label: 'authenticity_token_error',
      });
    let key: string, secret: string;
    try {
      key = decodeURIComponent(dec.slice(0, i));
      secret = decodeURIComponent(dec.slice(i + 1));
    } catch {
      throw v1Error(403, V1Code.TokenRequestedTooOften, 'Unable to verify your credentials', {
        label: 'authenticity_token_error',
      });
    }
    const app = state.apps.get(key);
    if (!app || !timingSafeEqualStr(app.secret, secret))
      throw v1Error(403, V1Code.TokenRequestedTooOften, 'Unable to verify your credentials', {
        label: 'authenticity_token_error',
      });
    return { kind: 'basic', app };
  }
  const oauth = parseOAuthHeader(h);
  if (!oauth) throw signatureError(input.style);
  const app = oauth.oauth_consumer_key ? state.apps.get(oauth.oauth_consumer_key) : undefined;
  if (!app) throw signatureError(input.style);
  if (oauth.oauth_signature_method !== 'HMAC-SHA1') throw signatureError(input.style);
  if (oauth.oauth_version !== undefined && oauth.oauth_version !== '1.0') throw signatureError(input.style);
  if (!oauth.oauth_nonce || !/^[\x21-\x7e]{1,128}$/.test(oauth.oauth_nonce)) throw signatureError(input.style);
  const ts = Number(oauth.oauth_timestamp);
  // Timestamps are checked against wall time even on a manual sandbox clock: clients sign with theirs.
  if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > TIMESTAMP_SKEW_S) throw signatureError(input.style);

  let tokenSecret = '';
  let userToken: UserToken | undefined;
  let requestToken: RequestToken | undefined;
  // An empty oauth_token (some clients send one before a token exists) means "no token".
  if (oauth.oauth_token) {
    userToken = state.userTokens.get(oauth.oauth_token);
    requestToken = userToken ? undefined : state.requestTokens.get(oauth.oauth_token);
    if (userToken) {
      if (userToken.appKey !== app.key) throw expired(input.style);
      tokenSecret = userToken.secret;
    } else if (requestToken) {
      if (requestToken.appKey !== app.key) throw expired(input.style);
      tokenSecret = requestToken.secret;
    } else {
      throw expired(input.style);
    }
  }
  const params: Array<[string, string]> = [...input.url.searchParams.entries(), ...input.form];
  // twitter-api-v2's login() and XDK send oauth_token (and oauth_verifier) in the header and
  // again in the body or query, signing it once; the platform accepts that. A header parameter
  // repeated with the same value in the query or body therefore counts once.
  const repeated = new Set(params.map(([k, v]) => `${k}\n${v}`));
  for (const [k, v] of Object.entries(oauth)) {
    if (k !== 'oauth_signature' && k !== 'realm' && !repeated.has(`${k}\n${v}`)) params.push([k, v]);
  }
  const baseUrl = `${input.url.protocol}//${input.url.host}${input.url.pathname}`;
  const expected = hmacSha1(signatureBaseString(input.method, baseUrl, params), app.secret, tokenSecret);
  if (!oauth.oauth_signature || !timingSafeEqualStr(expected, oauth.oauth_signature)) throw signatureError(input.style);

  // Nonce replay: only after the signature is known good, so forged requests cannot burn nonces.
  const now = Date.now();
  const nonceKey = `${app.key}:${oauth.oauth_token || ''}:${oauth.oauth_nonce}:${ts}`;
  if (!state.nonces.use(nonceKey, ts, now, NONCE_TTL_MS)) throw signatureError(input.style);

  if (userToken?.invalidated) throw expired(input.style);
  return { kind: 'oauth1', app, userToken, requestToken, oauth };
}

export function authInfo(c: Credential): AuthInfo {
  switch (c.kind) {
    case 'oauth1':
      return c.userToken
        ? {
            kind: 'oauth1-user',
            appKey: c.app.key,
            userId: c.userToken.userId,
            token: c.userToken.token,
            accessLevel: c.userToken.accessLevel,
          }
        : { kind: 'oauth1-app', appKey: c.app.key, token: c.requestToken?.token };
    case 'bearer':
      return { kind: 'bearer', appKey: c.app.key };
    case 'oauth2':
      return {
        kind: 'oauth2-user',
        appKey: c.app.key,
        userId: c.token.userId,
        token: c.token.token,
        scopes: c.token.scopes,
      };
    case 'basic':
      return { kind: 'basic', appKey: c.app.key };
    default:
      return { kind: 'none' };
  }
}
