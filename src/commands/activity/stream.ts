// `xctl activity stream`: GET /2/activity/stream as NDJSON on stdout, reconnecting with
// exponential backoff and jitter, a keep-alive watchdog, and backfill_minutes on reconnect so
// events sent while disconnected arrive anyway (duplicates from the backfill are dropped).
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { StringDecoder } from 'node:string_decoder';
import { ApiError, UsageError } from '../../core/errors.js';
import { checkInput } from '../../core/check-input.js';
import { escapeForTerminal } from '../../core/sanitize.js';
import { ACTIVITY_ENDPOINTS, SUBSCRIPTION_LIMITS } from '../../contract/activity.js';
import { isoSeconds, parseIsoTime } from '../../contract/time.js';
import { declare } from '../define.js';
import { printJqText } from '../../core/output.js';
import { parseJson, stringifyJson } from '../../core/json.js';
import { bufferOf } from '../../contract/guards.js';

export interface StreamOptions {
  backfillMinutes?: string;
  stallTimeout?: string;
  startTime?: string;
  endTime?: string;
}

/** An ISO 8601 time with a zone for start_time/end_time (sent in the platform's YYYY-MM-DDTHH:mm:ssZ form). */
function streamTime(v: string, flag: string): number {
  const t = parseIsoTime(v);
  if (t === undefined)
    throw new UsageError(`${flag} must be an ISO 8601 time with a zone, such as 2026-01-15T12:00:00Z (got "${v}")`, {
      flag,
    });
  return t;
}

const BACKFILL_MAX = SUBSCRIPTION_LIMITS.backfillMinutes.max;
const SEEN_MAX = 20_000;
// An event is a few KB; a "line" this long is a broken or hostile server, and holding it would
// grow without bound.
export const MAX_LINE_CHARS = 1_000_000;

/**
 * Splits a byte stream into lines: multi-byte characters split across chunks are decoded whole,
 * each byte is scanned once (no re-scan of a growing buffer), and a line longer than the cap is
 * dropped (reported through onOverlong) instead of buffered.
 */
export class LineSplitter {
  private decoder = new StringDecoder('utf8');
  private buf = '';
  private dropping = false;

  constructor(
    private onOverlong: () => void,
    private max = MAX_LINE_CHARS,
  ) {}

  push(chunk: Buffer | string): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const lines: string[] = [];
    let start = 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', start)) {
      if (!this.dropping) lines.push(this.buf + text.slice(start, i));
      this.buf = '';
      this.dropping = false;
      start = i + 1;
    }
    if (!this.dropping) {
      this.buf += text.slice(start);
      if (this.buf.length > this.max) {
        this.buf = '';
        this.dropping = true;
        this.onOverlong();
      }
    }
    return lines;
  }
}

/**
 * The line as printed: only a line that parses as JSON (anything else is a broken server, not an
 * event), with control characters and bidi overrides escaped. The escapes are JSON escapes inside
 * strings, so the printed line parses to the same value.
 */
export function printableEvent(line: string): string | undefined {
  let value: unknown;
  try {
    value = parseJson(line);
  } catch {
    return undefined;
  }
  const safe = escapeForTerminal(line);
  if (safe === line) return line;
  try {
    JSON.parse(safe);
    return safe;
  } catch {
    // a control character between tokens (JSON whitespace): print the value re-encoded
    return escapeForTerminal(stringifyJson(value));
  }
}

export function register(parent: Command, runF = activityStream): void {
  declare(parent, {
    name: 'stream',
    description: 'print activity events as NDJSON; reconnects with backoff and backfill so none is missed',
    options: [
      [
        '--backfill-minutes <n>',
        `replay the last N minutes (0-${BACKFILL_MAX}) on connect; reconnects always backfill the gap`,
      ],
      [
        '--start-time <time>',
        'replay events from this ISO 8601 time (at most 24 h back; instead of --backfill-minutes)',
      ],
      ['--end-time <time>', 'stop at this ISO 8601 time (a past window replays, then exits 0)'],
      ['--stall-timeout <seconds>', 'reconnect when nothing (not even a keep-alive) arrives for this long', '60'],
    ],
    run: (ctx, o) => runF(ctx, o),
  });
}

export function eventKey(line: string): string | undefined {
  try {
    const d = (JSON.parse(line) as { data?: Record<string, unknown> }).data;
    if (!d || typeof d.event_uuid !== 'string') return undefined;
    return `${d.event_uuid}|${String(d.event_type)}|${String(d.tag ?? '')}|${JSON.stringify(d.filter ?? {})}`;
  } catch {
    return undefined;
  }
}

/** Attempts before giving up on a stream that has never connected (as other commands retry). */
const FIRST_CONNECT_TRIES = 5;

/** The flags checked: backfill, the window (start_time/end_time) and the stall timeout. */
function streamSettings(o: StreamOptions): { backfill?: number; start?: number; end?: number; stallSec: number } {
  let backfill: number | undefined;
  if (o.backfillMinutes !== undefined) {
    checkInput(ACTIVITY_ENDPOINTS.stream, { query: { backfill_minutes: o.backfillMinutes } });
    backfill = Number(o.backfillMinutes);
  }
  // A window (start_time/end_time) replays what the server kept and, with an end, stops there.
  const start = o.startTime !== undefined ? streamTime(o.startTime, '--start-time') : undefined;
  const end = o.endTime !== undefined ? streamTime(o.endTime, '--end-time') : undefined;
  if (start !== undefined && backfill !== undefined)
    throw new UsageError('give --backfill-minutes or --start-time, not both', { flag: '--start-time' });
  if (end !== undefined && start !== undefined && end <= start)
    throw new UsageError('--end-time must be after --start-time', { flag: '--end-time' });
  const stallSec = /^\d+(\.\d+)?$/.test(o.stallTimeout ?? '60') ? Number(o.stallTimeout ?? '60') : NaN;
  if (!Number.isFinite(stallSec) || stallSec < 1)
    throw new UsageError(`--stall-timeout must be at least 1 second (got "${o.stallTimeout}")`, {
      flag: '--stall-timeout',
    });
  return { backfill, start, end, stallSec };
}

/**
 * The stream's query: the backfill, or with a window its bounds; a reconnect asks again from a
 * minute before we last heard (duplicates are dropped).
 */
function windowQuery(
  w: { start?: number; end?: number },
  lastHeard: number,
  firstTry: boolean,
  bf: number,
): Record<string, string | number | undefined> {
  const { start, end } = w;
  if (start === undefined && end === undefined) return { backfill_minutes: bf > 0 ? bf : undefined };
  const from = start === undefined ? undefined : firstTry ? start : Math.max(start, lastHeard - 60_000);
  return {
    start_time: from !== undefined ? isoSeconds(from) : undefined,
    end_time: end !== undefined ? isoSeconds(end) : undefined,
  };
}

/**
 * Prints the events of one connection as they arrive (keep-alive lines skipped, an event seen
 * before a reconnect not printed twice), until the connection ends.
 */
async function printEvents(
  ctx: Context,
  body: AsyncIterable<unknown>,
  o: { seen: Set<string>; jq: Awaited<ReturnType<Context['output']>>['jq']; heard: () => void },
): Promise<void> {
  const { seen, jq } = o;
  const lines = new LineSplitter(() => ctx.io.warn(`dropped a stream line longer than ${MAX_LINE_CHARS} characters`));
  let skipped = 0;
  for await (const chunk of body) {
    o.heard();
    for (const raw of lines.push(bufferOf(chunk))) {
      const line = raw.trim();
      if (!line) continue; // keep-alive
      const out = printableEvent(line);
      if (out === undefined) {
        if (skipped++ === 0) ctx.io.warn(`skipped a stream line that is not JSON: ${line.slice(0, 80)}`);
        continue;
      }
      const key = eventKey(line);
      if (key) {
        if (seen.has(key)) continue;
        seen.add(key);
        if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value!);
      }
      if (jq !== undefined) await printJqText(ctx.io, jq, line);
      else ctx.io.out(out);
    }
  }
}

/** Follows GET /2/activity/stream until ctx.signal aborts. */
export async function activityStream(ctx: Context, o: StreamOptions): Promise<void> {
  // --jq runs over each event (compiled before connecting).
  const { jq } = await ctx.output();
  const { backfill, start, end, stallSec } = streamSettings(o);
  const { backoff } = await import('../../core/http.js');
  const base = ctx.env.XCTL_RETRY_BASE_MS ? Number(ctx.env.XCTL_RETRY_BASE_MS) : 1000;
  const http = await ctx.http();
  const seen = new Set<string>();
  let attempt = 0;
  let lastHeard = ctx.clock.now();
  let first = true;
  let connected = false; // a stream that never connected (wrong --base-url, no server) gives up

  while (!ctx.signal.aborted) {
    // On reconnect ask for the minutes since we last heard from the server (plus one), capped at 5.
    const gapMin = Math.ceil((ctx.clock.now() - lastHeard) / 60_000) + 1;
    const bf = first ? (backfill ?? 0) : Math.max(backfill ?? 0, Math.min(BACKFILL_MAX, gapMin));
    if (!first && gapMin > BACKFILL_MAX)
      ctx.io.warn(
        `disconnected for about ${gapMin - 1} minutes; backfill reaches back only ${BACKFILL_MAX}, events may be missing`,
      );
    const conn = new AbortController();
    let watchdog: NodeJS.Timeout | undefined;
    try {
      const res = await http.request({
        method: ACTIVITY_ENDPOINTS.stream.method,
        path: ACTIVITY_ENDPOINTS.stream.path,
        auth: 'app',
        query: windowQuery({ start, end }, lastHeard, first, bf),
        stream: true,
        retry: false,
        signal: conn.signal,
      });
      if (/html/i.test(res.headers['content-type'] ?? '')) {
        res.stream?.on('error', () => {}).destroy(); // nobody reads the page
        throw new ApiError(
          'expected the event stream from GET /2/activity/stream but the server answered with an HTML page',
          { status: res.status, hint: 'is --base-url pointing at the API?' },
        );
      }
      connected = true;
      ctx.io.info(`connected to the activity stream${bf ? ` (backfill ${bf} min)` : ''}`);
      first = false;
      attempt = 0;
      lastHeard = ctx.clock.now();
      const body = res.stream!;
      watchdog = setInterval(
        () => {
          if (ctx.clock.now() - lastHeard > stallSec * 1000) {
            ctx.io.warn(`no data or keep-alive for ${stallSec} s; reconnecting`);
            conn.abort();
            body.destroy(new Error(`no data for ${stallSec} s`));
          }
        },
        Math.min(1000, stallSec * 250),
      );
      await printEvents(ctx, body, { seen, jq, heard: () => (lastHeard = ctx.clock.now()) });
      // The server ends a windowed stream cleanly once its end_time has passed: the window is
      // complete (its clock decides, which may be the sandbox's manual one).
      if (end !== undefined) return;
      if (!ctx.signal.aborted) ctx.io.warn('the stream ended; reconnecting');
    } catch (e) {
      if (ctx.signal.aborted) break;
      const err = e as ApiError;
      // Credentials and request errors will not heal by retrying.
      if (err instanceof ApiError && err.status !== undefined && err.status < 500 && err.status !== 429) throw err;
      if (e instanceof UsageError || (!connected && attempt >= FIRST_CONNECT_TRIES - 1)) throw e;
      ctx.io.warn(`stream connection lost: ${err.message}`);
    } finally {
      if (watchdog) clearInterval(watchdog);
    }
    if (ctx.signal.aborted) break;
    first = false;
    const wait = backoff(base, attempt++);
    ctx.io.info(`reconnecting in ${wait} ms`);
    try {
      await ctx.clock.sleep(wait, ctx.signal);
    } catch {
      break;
    }
  }
}
