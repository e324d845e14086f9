// DNS rebinding: a web page on evil.example whose name is re-pointed at 127.0.0.1 makes the
// user's browser talk to the sandbox, with `Host: evil.example`. The sandbox answers only requests
// addressed to an IP literal (which no DNS answer can rebind), `localhost`, or one of the
// platform's host names (a client routed here by a proxy or its own agent).
import { isIP } from 'node:net';
import { PLATFORM_HOST_NAMES } from '../contract/hosts.js';

const NAMED = new Set<string>(['localhost', ...PLATFORM_HOST_NAMES]);

/** The host part of a Host header: `[::1]:8080` -> `::1`, `Example.com:80` -> `example.com`. */
function hostname(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  return (colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h).replace(/\.$/, '');
}

/** Whether a request with this Host header is answered (absent: an HTTP/1.0 client on loopback). */
export function hostAllowed(header: string | undefined): boolean {
  if (header === undefined) return true;
  const name = hostname(header);
  return isIP(name) !== 0 || NAMED.has(name) || name.endsWith('.localhost');
}
