// argv -> program -> run. The only place that maps errors to exit codes and touches process.*.
import fs from 'node:fs';
import { setRuntime } from './runtime.js';
import { ExitCode, XctlError, InterruptedError } from './core/errors.js';

const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

async function main(argv: string[]): Promise<number> {
  const args = argv.slice(2);
  // Fast path: scripts call --version often; it needs nothing but package.json.
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(pkg.version + '\n');
    return ExitCode.OK;
  }
  const { buildProgram, firstOperand, loadGroups, GROUPS } = await import('./program.js');
  const controller = new AbortController();
  let interrupts = 0;
  let firstAt = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    // when-exit (conf's atomic writes) re-raises the signal on itself right after the first one:
    // only a second press arriving later forces the exit, so clean shutdowns get to run.
    if (interrupts > 0 && Date.now() - firstAt < 500) return;
    if (interrupts++ === 0) firstAt = Date.now();
    if (interrupts > 1) process.exit(ExitCode.INTERRUPTED);
    controller.abort(new InterruptedError(sig === 'SIGINT' ? 'interrupted' : 'terminated'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `xctl ... | head`: the reader went away; stop quietly instead of an unhandled EPIPE trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(ExitCode.OK);
    throw e;
  });

  setRuntime({
    streams: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
    env: process.env,
    signal: controller.signal,
    version: pkg.version,
    cwd: process.cwd(),
  });
  const program = buildProgram(pkg.version);
  const group = firstOperand(args);
  if (group === 'completion') await loadGroups(program, Object.keys(GROUPS));
  else if (group && GROUPS[group]) await loadGroups(program, [group]);
  const wantJson = args.includes('--json') || /(^|\s)(-o|--output)(=|\s)(json|jsonl)\b/.test(args.join(' '));
  const verbose = args.includes('-v') || args.includes('--verbose');
  try {
    await program.parseAsync(argv);
    return ExitCode.OK;
  } catch (e) {
    const err = e as Error & { code?: string; exitCode?: number };
    if (typeof err.code === 'string' && err.code.startsWith('commander.')) {
      if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code)) return ExitCode.OK;
      if (err.code === 'commander.executeSubCommandAsync') return err.exitCode ?? 1;
      return ExitCode.USAGE; // commander already printed the message
    }
    if (controller.signal.aborted && !(err instanceof XctlError && err.exitCode === ExitCode.PARTIAL)) {
      if (!(err instanceof InterruptedError)) process.stderr.write('interrupted\n');
      else process.stderr.write(`${err.message}\n`);
      return ExitCode.INTERRUPTED;
    }
    return report(err, wantJson, verbose);
  }
}

/** Shortens a long quoted input value ("got ...") so the error stays one readable line. */
function clip(message: string): string {
  return message.replace(/"([^"\n]{81,})"/g, (_m, v: string) => `"${v.slice(0, 40)}..." (${v.length} characters)`);
}

function report(err: Error, json: boolean, verbose: boolean): number {
  err.message = clip(err.message);
  if (err instanceof XctlError && (err as XctlError & { silent?: boolean }).silent) return err.exitCode;
  if (err instanceof XctlError) {
    if (json) process.stderr.write(JSON.stringify({ error: err.toJSON() }) + '\n');
    else {
      process.stderr.write(`error: ${err.message}\n`);
      if (err.hint) process.stderr.write(`hint: ${err.hint}\n`);
      if (verbose && err.stack) process.stderr.write(err.stack + '\n');
    }
    return err.exitCode;
  }
  if (json) process.stderr.write(JSON.stringify({ error: { type: 'InternalError', message: err.message, exit_code: 1 } }) + '\n');
  else {
    process.stderr.write(`error: ${err.message}\n`);
    if (verbose && err.stack) process.stderr.write(err.stack + '\n');
    else process.stderr.write('hint: this looks like a bug in xctl; run again with --verbose for details\n');
  }
  return ExitCode.FAILURE;
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
    // Let stdout drain; then leave even if a handle (a keep-alive socket) lingers.
    setTimeout(() => process.exit(code), 50).unref();
  },
  (e) => {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(ExitCode.FAILURE);
  },
);
