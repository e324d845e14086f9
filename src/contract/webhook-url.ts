// Webhook URL rules (docs/contract.md, credentials 2.2 and 6: HTTPS, publicly reachable, no port; 1-200
// characters per docs/contract.md, notes), with the sandbox's loopback stand-in (docs/contract.md, design "Sandbox").
// The words complete "<subject> ...": the CLI says `webhook URL must use https`, the service `url
// must use https`, `webhooks doctor` `the URL must use https`.
import net from 'node:net';
import { isLoopbackHost } from './hosts.js';

/** Webhook URLs are 1-200 characters (docs/contract.md, notes). */
export const WEBHOOK_URL_MAX = 200;

/** Private, link-local, unspecified, or otherwise not publicly routable. */
export function isNonPublicHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopbackHost(h)) return true;
  if (!h.includes('.') && !net.isIP(h)) return true; // single-label names resolve only on a LAN
  if (/\.(local|localhost|internal|lan|home|test|invalid|example)$/.test(h)) return true;
  if (net.isIPv4(h)) {
    const [a, b] = h.split('.').map(Number) as [number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  if (net.isIPv6(h)) return h === '::' || h.startsWith('fc') || h.startsWith('fd') || h.startsWith('fe80');
  return false;
}

/**
 * Whether the URL's text names a port, even the scheme's own (`https://host:443/`, which URL
 * parsing drops): the platform refuses any port written in the URL.
 */
function hasPort(raw: string): boolean {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  return /:\d*$/.test(host.startsWith('[') ? host.slice(host.indexOf(']') + 1) : host);
}

/**
 * Why a webhook URL is refused (the words after its subject), or undefined when it is acceptable.
 * `allowLoopbackHttp` admits `http://127.0.0.1:PORT/...` (and localhost) receivers, the local
 * stand-in for a public URL.
 */
export function webhookUrlProblem(raw: string, allowLoopbackHttp: boolean): string | undefined {
  if (raw.length < 1 || raw.length > WEBHOOK_URL_MAX)
    return `must be 1-${WEBHOOK_URL_MAX} characters (got ${raw.length})`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `must be a URL (got ${JSON.stringify(raw)})`;
  }
  if (u.username || u.password) return 'must not carry credentials';
  if (allowLoopbackHttp && isLoopbackHost(u.hostname) && (u.protocol === 'http:' || u.protocol === 'https:'))
    return undefined;
  if (u.protocol !== 'https:') return 'must use https';
  if (u.port || hasPort(raw)) return 'must not contain a port';
  if (isNonPublicHost(u.hostname)) return `must be on a publicly reachable host (got ${u.hostname})`;
  return undefined;
}
