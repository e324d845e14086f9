// An abortable sleep: small, so that start-up paths need not load undici.

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
