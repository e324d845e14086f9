// OAuth 1.0a HMAC-SHA1 request signing: oauth-1.0a builds the base string, hmac-sha1.ts hashes.
// Query and form parameters are signed; JSON bodies are not (docs/contract.md, notes "OAuth 1.0a signing").
import OAuth from 'oauth-1.0a';
import { hmacSha1Base64, randomHex } from './hmac-sha1.js';

export interface OAuth1Keys {
  consumerKey: string;
  consumerSecret: string;
  token?: string;
  tokenSecret?: string;
}

export interface SignInput {
  method: string;
  /** Full URL; its query parameters are signed. */
  url: string;
  /** Form-body parameters (application/x-www-form-urlencoded), signed. */
  form?: Array<[string, string]>;
  /** Extra protocol parameters for the header, e.g. oauth_callback on the request-token step. */
  extra?: Record<string, string>;
  nonce?: string;
  timestamp?: number;
}

/** RFC 3986 percent-encoding: keeps A-Z a-z 0-9 - . _ ~ and encodes every other byte as %XX. */
export function percentEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

function collect(pairs: Iterable<[string, string]>): Record<string, string | string[]> {
  const data: Record<string, string | string[]> = {};
  for (const [k, v] of pairs) {
    const prev = data[k];
    if (prev === undefined) data[k] = v;
    else data[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return data;
}

/** Returns the protocol parameters including oauth_signature. */
export function signOAuth1(keys: OAuth1Keys, input: SignInput): Record<string, string> {
  const oauth = new OAuth({
    consumer: { key: keys.consumerKey, secret: keys.consumerSecret },
    signature_method: 'HMAC-SHA1',
    hash_function: (base: string, key: string) => hmacSha1Base64(key, base),
  });
  const nonce = input.nonce ?? randomHex(16);
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  oauth.getNonce = () => nonce;
  oauth.getTimeStamp = () => timestamp;
  const u = new URL(input.url);
  const baseUrl = `${u.protocol}//${u.host}${u.pathname}`;
  // Parameters go in `data`, not the URL: the library's own query parser does not decode '+'.
  const params: Array<[string, string]> = [
    ...u.searchParams.entries(),
    ...(input.form ?? []),
    ...Object.entries(input.extra ?? {}),
  ];
  const token = keys.token !== undefined ? { key: keys.token, secret: keys.tokenSecret ?? '' } : undefined;
  const signed = oauth.authorize({ url: baseUrl, method: input.method.toUpperCase(), data: collect(params) }, token);
  // The library merges the request parameters into the object it returns: keep only protocol ones.
  const out: Record<string, string> = { ...(input.extra ?? {}) };
  for (const [k, v] of Object.entries(signed)) if (k.startsWith('oauth_')) out[k] = String(v);
  return out;
}

/** `OAuth key="value", ...` with every value percent-encoded. */
export function oauth1Header(keys: OAuth1Keys, input: SignInput): string {
  const p = signOAuth1(keys, input);
  return (
    'OAuth ' +
    Object.keys(p)
      .sort()
      .map((k) => `${percentEncode(k)}="${percentEncode(p[k]!)}"`)
      .join(', ')
  );
}

/** `Basic base64(enc(key):enc(secret))` for /oauth2/token. */
export function basicHeader(key: string, secret: string): string {
  return 'Basic ' + Buffer.from(`${percentEncode(key)}:${percentEncode(secret)}`).toString('base64');
}
