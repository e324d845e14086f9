// Sends one batch until the service acknowledges all of it: retries network errors, 5xx and
// count mismatches with backoff, waits out 429s until the reset, and paces requests by the
// x-rate-limit-* headers (audience uploads: 1500 requests per minute, docs/contract.md, ads section 8).
import type { HttpClient } from '../core/http.js';
import { backoff, fmtMs } from '../core/http.js';
import { NetworkError, errorFromResponse } from '../core/errors.js';
import type { IO } from '../core/io.js';
import type { Batch } from './batcher.js';

export interface SenderConfig {
  http: HttpClient;
  path: string;
  io: IO;
  /** Aborts waits (Ctrl-C): a batch waiting for a retry is then left for the next run. */
  stopSignal: AbortSignal;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  maxAttempts: number;
  retryBaseMs: number;
  maxWaitMs: number;
}

/** Thrown when a batch cannot be delivered: the run stops and the journal says where to resume. */
export class BatchFailed extends Error {
  constructor(
    readonly batch: number,
    override readonly cause: Error,
    readonly fatal: boolean,
  ) {
    super(cause.message);
  }
}

/** Reset waits one batch may take: the general client's bound, so a server cannot hold a run for ever. */
const MAX_RESET_WAITS = 20;

export class Sender {
  retries = 0;
  private remaining = Infinity;
  private resetAt = 0;
  /** The window whose wait was last announced. */
  private notedReset = 0;
  private inFlight = 0;

  constructor(private cfg: SenderConfig) {}

  /** POST .../users (custom audience or do-not-reach list): resolves when every user of the batch is acknowledged. */
  async send(batch: Batch): Promise<void> {
    const c = this.cfg;
    let attempt = 0;
    let resetWaits = 0;
    for (;;) {
      await this.pace();
      if (c.stopSignal.aborted) throw new BatchFailed(batch.index, new Error('stopped'), false);
      let failure: Error;
      this.inFlight++;
      try {
        const res = await c.http.request<{ data?: { success_count?: number; total_count?: number } }>({
          method: 'POST',
          path: c.path,
          host: 'ads',
          auth: 'user',
          body: batch.body,
          headers: { 'content-type': 'application/json' },
          retry: false,
          throwOnError: false,
          idempotent: true,
        });
        if (res.rateLimit) {
          // Headers that are not numbers (a broken or hostile server) say nothing about the window.
          this.remaining = Number.isFinite(res.rateLimit.remaining) ? res.rateLimit.remaining : Infinity;
          this.resetAt = Number.isFinite(res.rateLimit.reset) ? res.rateLimit.reset * 1000 : 0;
        }
        // Window spent: wait for its reset (not an attempt), at most MAX_RESET_WAITS times. A 429
        // while the headers still report requests left, or with a reset that is missing or already
        // past, is a momentary refusal: an ordinary retry with backoff, bounded by maxAttempts.
        if (
          res.status === 429 &&
          (!res.rateLimit || res.rateLimit.remaining <= 0) &&
          this.resetAt > c.now() &&
          resetWaits < MAX_RESET_WAITS
        ) {
          resetWaits++;
          const wait = Math.max(1000, this.resetAt - c.now() + 250);
          if (wait > c.maxWaitMs)
            throw new BatchFailed(
              batch.index,
              errorFromResponse(429, res.data, { resetAt: this.resetAt / 1000 }),
              false,
            );
          c.io.info(`rate limited (HTTP 429): waiting ${fmtMs(wait)} for the reset before batch ${batch.index + 1}`);
          this.retries++;
          await this.wait(wait, batch);
          continue;
        }
        if (res.status >= 200 && res.status < 300) {
          const d = res.data?.data;
          if (d && d.success_count === batch.users && d.total_count === batch.users) return;
          // docs/contract.md, ads section 4 "Batch rules": any other outcome is an error requiring a retry.
          failure = new Error(
            `batch ${batch.index + 1}: the service counted ${d?.success_count ?? '?'} of ${d?.total_count ?? '?'} for ${batch.users} users sent`,
          );
        } else if (res.status >= 500 || res.status === 429) {
          failure = errorFromResponse(res.status, res.data, { fallbackText: res.text });
        } else {
          // 4xx other than 429: the request itself is wrong (or the audience is gone); retrying cannot help.
          throw new BatchFailed(batch.index, errorFromResponse(res.status, res.data, { fallbackText: res.text }), true);
        }
      } catch (e) {
        if (e instanceof BatchFailed) throw e;
        if (!(e instanceof NetworkError) || e.aborted)
          throw new BatchFailed(batch.index, e instanceof Error ? e : new Error(String(e)), true);
        failure = e;
      } finally {
        this.inFlight--;
      }
      attempt++;
      if (attempt >= c.maxAttempts) throw new BatchFailed(batch.index, failure, false);
      this.retries++;
      const wait = backoff(c.retryBaseMs, attempt - 1);
      c.io.info(
        `${failure.message}; retrying batch ${batch.index + 1} in ${fmtMs(wait)} (attempt ${attempt + 1} of ${c.maxAttempts})`,
      );
      await this.wait(wait, batch);
    }
  }

  private async wait(ms: number, batch: Batch): Promise<void> {
    try {
      await this.cfg.sleep(ms, this.cfg.stopSignal);
    } catch {
      throw new BatchFailed(batch.index, new Error('stopped'), false);
    }
  }

  /** Holds a request while the window's remaining requests are taken by those in flight. */
  private async pace(): Promise<void> {
    const c = this.cfg;
    while (this.remaining <= this.inFlight && this.resetAt > c.now()) {
      const wait = this.resetAt - c.now() + 250;
      if (wait > c.maxWaitMs) return; // the request will get its 429 and report it
      // Said once per window: a paced run is not a stuck one.
      if (this.notedReset !== this.resetAt && wait >= 1000) {
        this.notedReset = this.resetAt;
        c.io.info(
          `waiting for the rate limit: the window resets at ${new Date(this.resetAt).toISOString()} (in ${fmtMs(wait)})`,
        );
      }
      await c.sleep(wait, c.stopSignal).catch(() => undefined);
      if (c.stopSignal.aborted) return;
      this.remaining = Infinity;
    }
  }
}
