// The redactor every message and error passes through. Secrets are registered once (by the
// IO that loads credentials) in a process-wide set, so main.ts can redact an error without the
// command's Context: a server that echoes the Authorization header back in its error body must
// not get the token printed, in plain, --json or --verbose output.

const secrets = new Set<string>();

/** Masks a secret for display: first 4 characters and the length, never the rest. */
export function mask(value: string | undefined): string {
  if (!value) return '';
  if (value.length <= 8) return '****';
  return `${value.slice(0, 4)}…(${value.length})`;
}

export function registerSecret(value: string | undefined): void {
  if (!value || value.length < 4) return;
  secrets.add(value);
  const enc = encodeURIComponent(value);
  if (enc !== value) secrets.add(enc);
}

// Credential shapes that are redacted even when the value was never registered: an echoed
// Basic header carries base64(key:secret), an OAuth header carries the token and a signature, and
// a base URL may carry user:password@.
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s"'<>]*:[^/@\s"'<>]*@/gi;
const PATTERNS: Array<[RegExp, string]> = [
  [/\b(Bearer|Basic)(\s+)[A-Za-z0-9\-._~+/%]{8,}=*/g, '$1$2[redacted]'],
  [
    /\b(oauth_(?:token_secret|signature)|access_token|access_token_secret|refresh_token|client_secret|api_secret|bearer_token)(=\\?"?|\\?"\s*:\s*\\?")[^"\\,&\s}]+/g,
    '$1$2[redacted]',
  ],
  [USERINFO, '$1[redacted]@'],
];

/** A URL with `user:password@` shows `[redacted]@` instead (base URLs of proxies carry them). */
export function redactUrlCredentials(url: string): string {
  return url.replace(USERINFO, '$1[redacted]@');
}

/** Replaces every registered secret by its mask and every credential-shaped value by [redacted]. */
export function redactSecrets(text: string, extra?: Iterable<string>): string {
  let out = text;
  for (const set of extra ? [secrets, extra] : [secrets]) {
    for (const s of set) if (out.includes(s)) out = out.split(s).join(mask(s));
  }
  for (const [re, to] of PATTERNS) out = out.replace(re, to);
  return out;
}
