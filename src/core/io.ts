// Streams, TTY detection, colour, redaction and the spinner. Commands write only through here.
import type { Readable, Writable } from 'node:stream';
import { redactSecrets, registerSecret } from './redact.js';
import { escapeForTerminal } from './sanitize.js';

export { mask } from './redact.js';
export { escapeForTerminal } from './sanitize.js';

export interface IOStreams {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
}

export interface IOOptions {
  color?: boolean; // undefined: decide from TTY and NO_COLOR
  quiet?: boolean;
  progress?: boolean;
  env?: Record<string, string | undefined>;
}

export interface Spinner {
  update(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

const ANSI: Record<string, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};

export class IO {
  private readonly streams: IOStreams;
  readonly stdout: IOStreams['stdout'];
  private readonly colorWanted: boolean | undefined;
  private colorChosen: boolean | undefined;
  readonly quiet: boolean;
  readonly progressEnabled: boolean;
  /** COLUMNS from the environment: the width for tables when stdout does not know its own. */
  readonly envColumns?: number;
  /**
   * Automation mode (CI=true or XCTL_NO_PROMPT=1): a runner may give a PTY, yet nobody reads it.
   * Never prompt, never redraw with \r, no colour; progress as periodic JSON lines.
   */
  readonly automation: boolean;
  private secrets = new Set<string>();
  /**
   * Set by a command that keeps a record of a long run (`--report`): the upload's progress
   * hands it a snapshot every half second and at the end, drawn on screen or not.
   */
  progressSink?: (s: { elapsedMs: number; read: number; acknowledged: number }) => void;

  constructor(streams: IOStreams, opts: IOOptions = {}) {
    this.streams = streams;
    this.stdout = streams.stdout;
    const env = opts.env ?? {};
    const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
    this.automation = automationMode(env);
    this.colorWanted = opts.color ?? (noColor || this.automation || env.TERM === 'dumb' ? false : undefined);
    this.quiet = !!opts.quiet;
    this.progressEnabled = opts.progress ?? true;
    const cols = Number(env.COLUMNS);
    if (Number.isInteger(cols) && cols > 0) this.envColumns = cols;
  }

  /**
   * Read on use, like stdin: node builds its stderr stream when first asked (for a pipe, with
   * node's pipe and socket code), and a command that prints no message never needs it.
   */
  get stderr(): IOStreams['stderr'] {
    return this.streams.stderr;
  }
  /** Colour on stderr's terminal unless NO_COLOR, TERM=dumb or automation; decided on first use. */
  get color(): boolean {
    this.colorChosen ??= this.colorWanted ?? !!this.stderr.isTTY;
    return this.colorChosen;
  }
  /** Read on use: node opens its stdin stream when first asked, and most commands never read it. */
  get stdin(): IOStreams['stdin'] {
    return this.streams.stdin;
  }
  get isStdoutTTY(): boolean {
    return !!this.stdout.isTTY;
  }
  /** A terminal a person watches: false in automation mode, whatever the runner's PTY says. */
  get isStderrTTY(): boolean {
    return !!this.stderr.isTTY && !this.automation;
  }
  /** A terminal a person answers at: false in automation mode (prompts are refused). */
  get isStdinTTY(): boolean {
    return !!this.stdin.isTTY && !this.automation;
  }
  /** Nobody is there to notice or answer: no TTY on stdin or stderr, or automation mode. */
  get unattended(): boolean {
    return !this.isStdinTTY || !this.isStderrTTY;
  }
  /** Interactive: both output streams are terminals (spinners and bars only then). */
  get interactive(): boolean {
    return this.isStdoutTTY && this.isStderrTTY;
  }

  /** Registers a secret: it is replaced by a mask in every message and error (process-wide). */
  addSecret(value: string | undefined): void {
    if (value && value.length >= 4) {
      this.secrets.add(value);
      registerSecret(value);
    }
  }

  redact(text: string): string {
    return redactSecrets(text, this.secrets);
  }

  /** Data to stdout. Not redacted: only `auth token` prints a secret on purpose. */
  out(text: string): void {
    this.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }
  raw(text: string | Uint8Array): boolean {
    return this.stdout.write(text);
  }
  /** A bar drawn in place is on stderr's last line (audience uploads): a message clears it first. */
  private barOnLine = false;
  barDrawn(on: boolean): void {
    this.barOnLine = on;
  }
  /** The start of a message: the bar's line cleared when one is drawn (it redraws under the message). */
  private lineStart(): string {
    if (!this.barOnLine) return '';
    this.barOnLine = false;
    return '\r\u001b[2K';
  }

  /** Messages to stderr, redacted, with control characters escaped (they may quote service data). */
  err(text: string): void {
    this.stderr.write(this.lineStart() + this.safe(text) + '\n');
  }
  info(text: string): void {
    if (!this.quiet) this.err(text);
  }
  /**
   * A warning on stderr; -q (only data and errors) silences it, except one that says data was
   * left as it is against what the input says (`evenQuiet`: sync --adopt's members kept).
   */
  warn(text: string, o: { evenQuiet?: boolean } = {}): void {
    if (this.quiet && !o.evenQuiet) return;
    this.stderr.write(`${this.lineStart()}${this.style('yellow', 'warning:')} ${this.safe(text)}\n`);
  }

  /**
   * A status line redrawn in place on a terminal's stderr (a countdown): each call replaces the
   * last; clearStatus() removes it. False when stderr is not a terminal (or --quiet,
   * --no-progress): the caller prints one ordinary line instead.
   */
  get canRedraw(): boolean {
    return this.isStderrTTY && !this.quiet && this.progressEnabled;
  }
  status(text: string): void {
    // One terminal row: a wrapped line could not be redrawn from its start.
    const cols = this.stderr.columns && this.stderr.columns > 10 ? this.stderr.columns - 1 : 79;
    const line = this.safe(text);
    this.stderr.write(`\r\u001b[2K${line.length > cols ? line.slice(0, cols - 1) + '…' : line}`);
  }
  clearStatus(): void {
    this.stderr.write('\r\u001b[2K');
  }

  private safe(text: string): string {
    return escapeForTerminal(this.redact(text.endsWith('\n') ? text.slice(0, -1) : text), { keepLayout: true });
  }

  style(name: keyof typeof ANSI | string, text: string): string {
    const c = ANSI[name];
    if (!this.color || !c) return text;
    return `\u001b[${c[0]}m${text}\u001b[${c[1]}m`;
  }

  /** A spinner on stderr when interactive; otherwise a no-op that prints nothing. */
  async spinner(text: string): Promise<Spinner> {
    if (!this.interactive || this.quiet || !this.progressEnabled) {
      return { update() {}, succeed() {}, fail() {}, stop() {} };
    }
    const { default: ora } = await import('ora');
    const s = ora({ text, stream: this.stderr as NodeJS.WritableStream, color: 'cyan', isEnabled: true }).start();
    return {
      update: (t) => {
        s.text = this.safe(t);
      },
      succeed: (t) => s.succeed(t && this.safe(t)),
      fail: (t) => s.fail(t && this.safe(t)),
      stop: () => s.stop(),
    };
  }
}

/** CI=true (or 1) as CI services set it, or XCTL_NO_PROMPT=1: nobody is at the terminal. */
export function automationMode(env: Record<string, string | undefined>): boolean {
  const on = (v: string | undefined) => v !== undefined && /^(1|true|yes)$/i.test(v.trim());
  return on(env.CI) || on(env.XCTL_NO_PROMPT);
}
