// The service's hosts, and the one loopback check. Credentials are sent only to these hosts or
// to the one --base-url names; plain http is allowed only on loopback (docs/contract.md, design "Credentials").
// Dependency-free: start-up paths load it without the HTTP client. The checks that refuse a base
// URL or a path (with a UsageError) are in core/base-url.ts.
export const HOSTS = {
  api: 'https://api.x.com',
  /** The web host: the OAuth 2.0 consent page (`/i/oauth2/authorize`) is served there, not on api. */
  web: 'https://x.com',
  ads: 'https://ads-api.x.com',
  adsSandbox: 'https://ads-api-sandbox.x.com',
} as const;

export type HostKind = 'api' | 'ads';

/**
 * Every host name the official SDKs address (they hardcode them; docs/contract.md, notes-2 "Hosts"). All
 * are https only; the sandbox serves their paths on its one base URL.
 */
export const PLATFORM_HOST_NAMES = [
  'api.x.com',
  'api.twitter.com',
  'upload.twitter.com',
  'upload.x.com',
  'x.com',
  'ads-api.x.com',
  'ads-api.twitter.com',
  'ads-api-sandbox.x.com',
] as const;

/** A loopback host name or literal address (localhost, 127.0.0.0/8, ::1; brackets allowed). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** A socket's remote address on loopback (IPv4-mapped IPv6 included). */
export function isLoopbackAddress(address: string | undefined): boolean {
  return !!address && isLoopbackHost(address.replace(/^::ffff:/i, ''));
}
