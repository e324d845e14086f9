// Runs one verb in-process, as the test context does: a fresh program from the program's own
// loader, bound to captured streams, the server's environment, the call's abort signal and,
// when the call executes a plan, a guarded transport. The verb's errors are mapped as main.ts maps
// them (exit code, and the JSON error object `-o json` prints), so a tool refuses in the CLI's words.
import { Readable, Writable } from 'node:stream';
import { bindRuntime, type ProgramHost } from '../runtime.js';
import { ExitCode, InterruptedError, XctlError, errorMessage } from '../../core/errors.js';
import type { Transport } from '../../core/transport.js';

export interface VerbResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The error object the CLI prints with `-o json` (`{"error": {...}}`'s value), on failure. */
  error?: Record<string, unknown>;
}

export interface VerbRun {
  host: ProgramHost;
  env: Record<string, string | undefined>;
  cwd: string;
  version: string;
  signal: AbortSignal;
  transport?: Transport;
  /** Each whole line the verb writes on stderr, as it is written (progress). */
  onStderrLine?: (line: string) => void;
}

/** A stream that keeps what is written, and hands each complete line to a listener. */
class Capture extends Writable {
  readonly isTTY = false;
  private chunks: string[] = [];
  private partial = '';
  constructor(private onLine?: (line: string) => void) {
    super({ decodeStrings: false });
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    const s = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.chunks.push(s);
    if (this.onLine) {
      const lines = (this.partial + s).split('\n');
      this.partial = lines.pop() ?? '';
      for (const l of lines) this.onLine(l);
    }
    cb();
  }
  text(): string {
    return this.chunks.join('');
  }
}

/** `xctl ...argv` in-process (`group`: the group to load); never throws for a verb's failure. */
export async function runVerb(r: VerbRun, group: string, argv: string[]): Promise<VerbResult> {
  const stdout = new Capture();
  const stderr = new Capture(r.onStderrLine);
  const stdin = Object.assign(Readable.from([]), { isTTY: false });
  const program = r.host.build();
  bindRuntime(program, {
    streams: { stdin, stdout, stderr },
    env: r.env,
    signal: r.signal,
    version: r.version,
    cwd: r.cwd,
    transport: r.transport,
  });
  let exitCode: number = ExitCode.OK;
  let error: Record<string, unknown> | undefined;
  try {
    await r.host.load(program, [group]);
    await program.parseAsync(['node', 'xctl', ...argv]);
  } catch (e) {
    ({ exitCode, error } = mapError(e, r.signal, stderr.text()));
  }
  return { exitCode, stdout: stdout.text(), stderr: stderr.text(), error };
}

function mapError(e: unknown, signal: AbortSignal, stderr: string): Pick<VerbResult, 'exitCode' | 'error'> {
  const code = e instanceof Error && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
  if (code?.startsWith('commander.')) {
    // commander printed its message (`error: unknown option '--x'`) on the captured stderr.
    const message = stderr
      .split('\n')
      .find((l) => l.startsWith('error: '))
      ?.replace(/^error: /, '')
      .replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)');
    return {
      exitCode: ExitCode.USAGE,
      error: { type: 'UsageError', message: message ?? errorMessage(e), exit_code: ExitCode.USAGE },
    };
  }
  if (e instanceof XctlError) {
    if (signal.aborted && e.exitCode !== ExitCode.PARTIAL && !(e instanceof InterruptedError)) return interrupted();
    return { exitCode: e.exitCode, error: e.toJSON() };
  }
  if (signal.aborted) return interrupted();
  return { exitCode: ExitCode.FAILURE, error: { type: 'InternalError', message: errorMessage(e), exit_code: 1 } };
}

function interrupted(): Pick<VerbResult, 'exitCode' | 'error'> {
  return {
    exitCode: ExitCode.INTERRUPTED,
    error: { type: 'InterruptedError', message: 'interrupted', exit_code: ExitCode.INTERRUPTED },
  };
}
