// URL checks and an abortable sleep: small, so that start-up paths need not load undici.
import { UsageError } from './errors.js';

export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
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
  if (u.protocol === 'http:' && !isLoopback(u.hostname)) {
    throw new UsageError(`plain http is refused for ${u.hostname}: use https (http is allowed only on loopback)`, { flag });
  }
  return u;
}

/**
 * A relative path must stay on the configured host: `//host/x` and `/\host/x` are
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

/** setTimeout's range: a longer delay fires at once (with a warning), which made waits hot loops. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  // A delay that is not a number waits nothing rather than firing in a loop; one past the
  // timer's range is clamped to it (about 24.8 days).
  ms = Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_TIMER_MS) : ms > 0 ? MAX_TIMER_MS : 0;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
