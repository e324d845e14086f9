// The sandbox clock. `real` follows wall time; `manual` moves only when told (POST /_sandbox/clock),
// and advancing runs every scheduled job that falls due, in time order, each at its own time.

export type ClockMode = 'real' | 'manual';

const MAX_TIMER_MS = 2 ** 31 - 1;

interface Job {
  at: number;
  seq: number;
  fn: () => unknown | Promise<unknown>;
  cancelled: boolean;
  timer?: NodeJS.Timeout;
}

export class SandboxClock {
  private offset = 0;
  private manualNow: number;
  private jobs: Job[] = [];
  private seq = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly mode: ClockMode,
    start = Date.now(),
  ) {
    this.manualNow = start;
  }

  now(): number {
    return this.mode === 'manual' ? this.manualNow : Date.now() + this.offset;
  }

  iso(t = this.now()): string {
    return new Date(t).toISOString();
  }

  /** Runs fn at time `at` (sandbox time). Returns a cancel function. */
  at(at: number, fn: () => unknown | Promise<unknown>): () => void {
    const job: Job = { at, seq: this.seq++, fn, cancelled: false };
    if (this.mode === 'real') {
      // Node timers fire at once past 2^31-1 ms (~24.8 days): wait in steps and re-arm.
      const arm = () => {
        const wait = Math.max(0, at - this.now());
        job.timer = setTimeout(
          () => {
            if (job.cancelled) return;
            if (at - this.now() > 0) return arm();
            this.serial(job.fn);
          },
          Math.min(wait, MAX_TIMER_MS),
        );
        job.timer.unref();
      };
      arm();
    } else {
      this.jobs.push(job);
    }
    return () => {
      job.cancelled = true;
      if (job.timer) clearTimeout(job.timer);
    };
  }

  after(ms: number, fn: () => unknown | Promise<unknown>): () => void {
    return this.at(this.now() + ms, fn);
  }

  /** Puts a manual clock at `t` (a loaded state's time); jobs already scheduled keep theirs. */
  set(t: number): void {
    if (this.mode === 'manual') this.manualNow = t;
  }

  /** Advances a manual clock by ms, running due jobs in order (jobs may schedule more jobs). */
  async advance(ms: number): Promise<{ now: string; ran: number }> {
    if (this.mode !== 'manual') {
      // A real clock can still be shifted forward (useful in demos); jobs fire on their timers.
      this.offset += ms;
      return { now: this.iso(), ran: 0 };
    }
    const target = this.manualNow + ms;
    let ran = 0;
    for (;;) {
      this.jobs = this.jobs.filter((j) => !j.cancelled);
      this.jobs.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.jobs[0];
      if (!next || next.at > target) break;
      this.jobs.shift();
      this.manualNow = Math.max(this.manualNow, next.at);
      await this.serial(next.fn);
      ran++;
    }
    this.manualNow = target;
    return { now: this.iso(), ran };
  }

  private serial(fn: () => unknown): Promise<unknown> {
    const p = this.chain.then(fn).catch(() => undefined);
    this.chain = p;
    return p;
  }

  close(): void {
    for (const j of this.jobs) j.cancelled = true;
    this.jobs = [];
  }
}
