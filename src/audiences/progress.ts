// Upload progress on stderr: one line on a terminal, redrawn in place and never wider than it
// (records the service acknowledged, not bytes read), else one JSON line every few seconds, so
// CI logs show the upload is alive without drowning in output.
import type { IO } from '../core/io.js';

export interface ProgressSnapshot {
  read: number;
  /** Records valid so far (the total once the input is read); without it, `read` is the total. */
  valid?: number;
  acknowledged: number;
  bytesRead: number;
  totalBytes?: number;
  elapsedMs: number;
  /** Batches acknowledged, and the records per batch (for "batch 17/40"). */
  batches?: number;
  batchSize?: number;
}

/** What is known of the end: records to acknowledge in all (estimated from the bytes while reading). */
export function estimate(s: ProgressSnapshot): { total?: number; frac?: number; exact: boolean } {
  const count = s.valid ?? s.read;
  const done = s.totalBytes !== undefined && s.bytesRead >= s.totalBytes;
  const total = done
    ? count
    : s.totalBytes && s.bytesRead > 0
      ? Math.round((count * s.totalBytes) / s.bytesRead)
      : undefined;
  const frac = total === undefined ? undefined : total === 0 ? (done ? 1 : 0) : Math.min(1, s.acknowledged / total);
  return { total, frac, exact: done };
}

/** 1234 -> 1.2k, 2_900_000 -> 2.9M. */
export function fmtCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 0 : 1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e4 ? 0 : 1)}k`;
  return String(Math.round(n));
}

/**
 * The terminal line: `▕████░░░░▏ 42% 1.2M/2.9M acked · 48k/s · batch 17/40 · ETA 1m`, as much
 * of it as fits in `width - 1` columns (the last column would wrap on some terminals): the ETA,
 * the batch, the rate, then the bar are left out first; below 40 columns, the shortest text.
 */
export function progressLine(s: ProgressSnapshot, width: number, label = 'acked'): string {
  const room = Math.max(10, width - 1);
  const { total, frac, exact } = estimate(s);
  const secs = s.elapsedMs / 1000;
  const rate = secs > 0 ? s.acknowledged / secs : 0;
  const pct = frac === undefined ? '' : `${Math.floor(frac * 100)}%`;
  const counts = `${fmtCount(s.acknowledged)}${total !== undefined ? `/${exact ? '' : '~'}${fmtCount(total)}` : ''} ${label}`;
  const batches =
    s.batches !== undefined
      ? `batch ${s.batches}${total !== undefined && s.batchSize ? `/${Math.max(s.batches, Math.ceil(total / s.batchSize))}` : ''}`
      : undefined;
  const eta =
    frac !== undefined && frac > 0 && frac < 1 && rate > 0 && total !== undefined
      ? `ETA ${fmtDuration((total - s.acknowledged) / rate)}`
      : undefined;
  const head = [pct, counts].filter(Boolean).join(' ');
  const tails = [`${fmtCount(rate)}/s`, batches, eta].filter((x): x is string => !!x);
  const texts = tails.map((_, i) => [head, ...tails.slice(0, tails.length - i)].join(' · ')).concat(head);
  // With the bar: as much text as leaves it 8 columns; else the most text that fits alone.
  if (frac !== undefined) {
    for (const text of texts) {
      const barWidth = Math.min(30, room - text.length - 3);
      if (barWidth < 8) continue;
      const full = Math.round(frac * barWidth);
      return `▕${'█'.repeat(full)}${'░'.repeat(barWidth - full)}▏ ${text}`;
    }
  }
  for (const text of texts) if (text.length <= room) return text;
  return (pct || fmtCount(s.acknowledged)).slice(0, room);
}

function fmtDuration(sec: number): string {
  if (sec < 60) return `${Math.ceil(sec)}s`;
  if (sec < 3600) return `${Math.ceil(sec / 60)}m`;
  return `${Math.floor(sec / 3600)}h${String(Math.ceil((sec % 3600) / 60)).padStart(2, '0')}`;
}

export class Progress {
  private timer?: NodeJS.Timeout;
  private readonly mode: 'bar' | 'json' | 'off';
  private lastLen = 0;
  /** A run's record (io.progressSink): sampled on its own timer, whatever is drawn. */
  private sampler?: NodeJS.Timeout;
  private sample?: () => void;

  constructor(
    private io: IO,
    private snap: () => ProgressSnapshot,
    intervalMs: number,
    /** What the second count means: "acknowledged" (sending) or "packed" (dry run). */
    private doneLabel = 'acknowledged',
    /** false: nothing is drawn (a sync --plan sends nothing: no "acked" bar to show). */
    enabled = true,
  ) {
    this.mode = !enabled || !io.progressEnabled || io.quiet ? 'off' : io.isStderrTTY ? 'bar' : 'json';
    const sink = io.progressSink;
    if (sink) {
      this.sample = () => sink(this.snap());
      this.sampler = setInterval(this.sample, 500);
      this.sampler.unref();
    }
    if (this.mode !== 'off') {
      this.timer = setInterval(() => this.render(), this.mode === 'bar' ? 200 : intervalMs);
      this.timer.unref();
    }
  }

  private render(): void {
    const s = this.snap();
    if (this.mode === 'json') {
      const secs = s.elapsedMs / 1000;
      const rate = secs > 0 ? s.read / secs : 0;
      const { frac } = estimate(s);
      const eta = frac && frac > 0 ? Math.max(0, secs / frac - secs) : undefined;
      this.io.err(
        JSON.stringify({
          progress: {
            read: s.read,
            [this.doneLabel]: s.acknowledged,
            records_per_s: Math.round(rate),
            percent: frac === undefined ? null : Math.round(frac * 1000) / 10,
            eta_s: eta === undefined ? null : Math.round(eta),
          },
        }),
      );
      return;
    }
    const line = progressLine(
      s,
      this.io.stderr.columns ?? 80,
      this.doneLabel === 'acknowledged' ? 'acked' : this.doneLabel,
    );
    this.io.stderr.write('\r' + line.padEnd(this.lastLen));
    this.lastLen = line.length;
    this.io.barDrawn(true);
  }

  stop(): void {
    if (this.sampler) clearInterval(this.sampler);
    this.sample?.();
    if (this.timer) clearInterval(this.timer);
    if (this.mode === 'bar' && this.lastLen) {
      this.render();
      this.io.stderr.write('\n');
      this.io.barDrawn(false);
    }
  }
}
