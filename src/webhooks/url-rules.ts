// Webhook URL rules (credentials-webhooks.md 2.2 and 6: HTTPS, publicly reachable, no port; 1-200
// characters per platform-notes.md), with the sandbox's loopback stand-in (DESIGN.md "Sandbox").
import net from 'node:net';
import { isLoopbackHost } from '../contract/hosts.js';
import { WEBHOOK_URL_MAX } from '../contract/webhooks.js';

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
 * Why a webhook URL is refused, or undefined when it is acceptable. `allowLoopbackHttp` admits
 * `http://127.0.0.1:PORT/...` (and localhost) receivers, the local stand-in for a public URL.
 */
export function webhookUrlProblem(raw: string, allowLoopbackHttp: boolean): string | undefined {
  if (raw.length < 1 || raw.length > WEBHOOK_URL_MAX)
    return `the URL must be 1-${WEBHOOK_URL_MAX} characters (got ${raw.length})`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `"${raw}" is not a URL`;
  }
  if (u.username || u.password) return 'the URL must not carry credentials';
  if (allowLoopbackHttp && isLoopbackHost(u.hostname) && (u.protocol === 'http:' || u.protocol === 'https:'))
    return undefined;
  if (u.protocol !== 'https:') return 'the URL must use https';
  if (u.port) return 'the URL must not contain a port';
  if (isNonPublicHost(u.hostname)) return `${u.hostname} is not a publicly reachable host`;
  return undefined;
}
