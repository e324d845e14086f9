// The service's hosts, and the one loopback check. Credentials are sent only to these hosts or
// to the one --base-url names; plain http is allowed only on loopback (DESIGN.md "Credentials").
// Small and dependency-free: start-up paths (config set, --help) load it without undici.
import { UsageError } from '../core/errors.js';

export const HOSTS = {
  api: 'https://api.x.com',
  /** The web host: the OAuth 2.0 consent page (`/i/oauth2/authorize`) is served there, not on api. */
  web: 'https://x.com',
  ads: 'https://ads-api.x.com',
  adsSandbox: 'https://ads-api-sandbox.x.com',
} as const;

export type HostKind = 'api' | 'ads';

/**
 * Every host name the official SDKs address (they hardcode them; platform-notes-2.md "Hosts"). All
 * are https only; the sandbox serves their paths on its one base URL.
 */
export const PLATFORM_HOST_NAMES = ['api.x.com', 'api.twitter.com', 'upload.twitter.com', 'upload.x.com', 'x.com', 'ads-api.x.com', 'ads-api.twitter.com', 'ads-api-sandbox.x.com'] as const;

/** A loopback host name or literal address (localhost, 127.0.0.0/8, ::1; brackets allowed). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** A socket's remote address on loopback (IPv4-mapped IPv6 included). */
export function isLoopbackAddress(address: string | undefined): boolean {
  return !!address && isLoopbackHost(address.replace(/^::ffff:/i, ''));
}

/** Refuses plain http for any host that is not loopback; secrets would cross the network in clear. */
export function checkBaseUrl(raw: string, flag = '--base-url'): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`${flag} is not a URL: "${raw}"`, { flag });
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new UsageError(`${flag} must be http(s): "${raw}"`, { flag });
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) {
    throw new UsageError(`plain http is refused for ${u.hostname}: use https (http is allowed only on loopback)`, { flag });
  }
  return u;
}

/**
 * The base URL of a host kind: an override (--base-url, XCTL_BASE_URL, the profile's base_url)
 * serves both the API and the ads API; otherwise the platform's host (the ads sandbox host with
 * --sandbox). No trailing slash.
 */
export function baseFor(kind: HostKind, o: { override?: string; sandbox?: boolean } = {}): string {
  if (o.override) return checkBaseUrl(o.override).toString().replace(/\/+$/, '');
  if (kind === 'api') return HOSTS.api;
  return o.sandbox ? HOSTS.adsSandbox : HOSTS.ads;
}

/**
 * A relative path must stay on the configured host: `//host/x` and `/\\host/x` are
 * protocol-relative (WHATWG URLs read a backslash as a slash), and the URL parser drops tabs and
 * newlines, so `/<TAB>/host` would become one too.
 */
export function checkRelativePath(path: string): void {
  if (/^https?:\/\//i.test(path)) return;
  if (/[\u0000-\u001f\u007f]/.test(path)) throw new UsageError(`the path contains a control character (got ${JSON.stringify(path)})`);
  if (/^[\\/][\\/]|^\\/.test(path)) {
    throw new UsageError(`"${path}" would name another host (protocol-relative); paths start with a single "/"`, { hint: 'e.g. xctl request /2/webhooks' });
  }
}
