// Upload progress on stderr: a bar on a terminal (records, rate, ETA), else one JSON line
// every few seconds, so CI logs show the upload is alive without drowning in output.
import type { IO } from '../core/io.js';

export interface ProgressSnapshot {
  read: number;
  acknowledged: number;
  bytesRead: number;
  totalBytes?: number;
  elapsedMs: number;
}

export class Progress {
  private timer?: NodeJS.Timeout;
  private readonly mode: 'bar' | 'json' | 'off';
  private lastLen = 0;

  constructor(
    private io: IO,
    private snap: () => ProgressSnapshot,
    intervalMs: number,
  ) {
    this.mode = !io.progressEnabled || io.quiet ? 'off' : io.isStderrTTY ? 'bar' : 'json';
    if (this.mode !== 'off') {
      this.timer = setInterval(() => this.render(), this.mode === 'bar' ? 200 : intervalMs);
      this.timer.unref();
    }
  }

  private render(): void {
    const s = this.snap();
    const secs = s.elapsedMs / 1000;
    const rate = secs > 0 ? s.read / secs : 0;
    const frac = s.totalBytes ? Math.min(1, s.bytesRead / s.totalBytes) : undefined;
    const eta = frac && frac > 0 ? Math.max(0, secs / frac - secs) : undefined;
    if (this.mode === 'json') {
      this.io.err(
        JSON.stringify({
          progress: { read: s.read, acknowledged: s.acknowledged, records_per_s: Math.round(rate), percent: frac === undefined ? null : Math.round(frac * 1000) / 10, eta_s: eta === undefined ? null : Math.round(eta) },
        }),
      );
      return;
    }
    const width = 24;
    const bar = frac === undefined ? '' : '[' + '#'.repeat(Math.round(frac * width)).padEnd(width, '-') + '] ' + (frac * 100).toFixed(0).padStart(3) + '% ';
    const line = `${bar}${s.read.toLocaleString('en-US')} read, ${s.acknowledged.toLocaleString('en-US')} acknowledged, ${fmtRate(rate)}/s${eta !== undefined ? `, ETA ${Math.ceil(eta)} s` : ''}`;
    this.io.stderr.write('\r' + line.padEnd(this.lastLen));
    this.lastLen = line.length;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.mode === 'bar' && this.lastLen) {
      this.render();
      this.io.stderr.write('\n');
    }
  }
}

export function fmtRate(r: number): string {
  if (r >= 1e6) return `${(r / 1e6).toFixed(2)}M`;
  if (r >= 1e3) return `${(r / 1e3).toFixed(1)}k`;
  return String(Math.round(r));
}
