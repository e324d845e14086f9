// The checks on where requests go: a base URL (https, or http on loopback only) and a relative
// path that must stay on the configured host. The hosts themselves are in contract/hosts.ts.
import { HOSTS, isLoopbackHost, type HostKind } from '../contract/hosts.js';
import { UsageError } from './errors.js';

/** Refuses plain http for any host that is not loopback; secrets would cross the network in clear. */
export function checkBaseUrl(raw: string, flag = '--base-url'): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`${flag} is not a URL: "${raw}"`, { flag });
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw new UsageError(`${flag} must be http(s): "${raw}"`, { flag });
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) {
    throw new UsageError(`plain http is refused for ${u.hostname}: use https (http is allowed only on loopback)`, {
      flag,
    });
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
  if (/[\u0000-\u001f\u007f]/.test(path))
    throw new UsageError(`the path contains a control character (got ${JSON.stringify(path)})`);
  if (/^[\\/][\\/]|^\\/.test(path)) {
    throw new UsageError(`"${path}" would name another host (protocol-relative); paths start with a single "/"`, {
      hint: 'e.g. xctl request /2/webhooks',
    });
  }
}
