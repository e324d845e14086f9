// argv -> program -> run. The only place that maps errors to exit codes and touches process.*.
import fs from 'node:fs';
import { runCommandEnd, setInterruptSignal } from './core/command-end.js';
import { bindRuntime } from './commands/runtime.js';
import { ExitCode, XctlError, InterruptedError, UsageError, errorMessage } from './core/errors.js';
import { redactSecrets } from './core/redact.js';
import { escapeForTerminal } from './core/sanitize.js';
import { fileSystemError } from './core/fs-errors.js';

// The bundle (scripts/bundle.js) has the version written in at build time; tsc's dist/ reads it.
declare const XCTL_BUILD_VERSION: string | undefined;
declare const XCTL_BUILD_COMMIT: string | undefined;
const pkg = {
  version:
    typeof XCTL_BUILD_VERSION === 'string'
      ? XCTL_BUILD_VERSION
      : (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
          .version,
};

async function main(argv: string[]): Promise<number> {
  let args = argv.slice(2);
  // Fast path: scripts call --version often; it needs nothing but package.json.
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(pkg.version + '\n');
    return ExitCode.OK;
  }
  // For CI logs: exactly what ran (bin/xctl.js answers the plain --version without the bundle).
  if (args.length === 2 && ['--version', '-V'].includes(args[0]!) && args[1] === '--json') {
    const commit = typeof XCTL_BUILD_COMMIT === 'string' ? XCTL_BUILD_COMMIT : 'unknown';
    process.stdout.write(JSON.stringify({ version: pkg.version, commit, node: process.versions.node }) + '\n');
    return ExitCode.OK;
  }
  const {
    buildProgram,
    operandsOf,
    loadGroups,
    normalizeArgs,
    GROUPS,
    rewriteHelpWord,
    namesBareGroup,
    unknownCommand,
    helpAll,
  } = await import('./program.js');
  const all = helpAll(rewriteHelpWord(args));
  args = all.args;
  const controller = new AbortController();
  setInterruptSignal(controller.signal);
  let interrupts = 0;
  let firstAt = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    // A library's exit hook may re-raise the signal on the process right after the first one:
    // only a second press arriving later forces the exit, so clean shutdowns get to run.
    if (interrupts > 0 && Date.now() - firstAt < 500) return;
    if (interrupts++ === 0) firstAt = Date.now();
    if (interrupts > 1) process.exit(ExitCode.INTERRUPTED);
    controller.abort(new InterruptedError(sig === 'SIGINT' ? 'interrupted' : 'terminated'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Node ignores SIGXFSZ so that a write past the file-size limit fails with EFBIG (reported, and
  // resumable) instead of killing the process; a library's exit hook (signal-exit, when-exit)
  // would re-raise it with the default action. A listener of our own keeps Node's rule.
  process.on('SIGXFSZ', () => {});
  // `xctl ... | head`: the reader went away; stop quietly instead of an unhandled EPIPE trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(ExitCode.OK);
    throw e;
  });

  const program = buildProgram(pkg.version, { helpAll: all.all });
  bindRuntime(program, {
    // stdin and stderr on first use: node builds a stream for each when asked (a file stream:
    // ~2 ms; a pipe, as in CI logs, loads node's pipe and socket code), and `--help` or a command
    // that writes no message never needs them.
    streams: {
      get stdin() {
        return process.stdin;
      },
      stdout: process.stdout,
      get stderr() {
        return process.stderr;
      },
    },
    env: process.env,
    signal: controller.signal,
    version: pkg.version,
    cwd: process.cwd(),
    programs: { build: () => buildProgram(pkg.version), load: (p, names) => loadGroups(p, names) },
  });
  // commander's own usage errors (an unknown option) are JSON too when the output is.
  if (jsonErrors(args, args, process.env.XCTL_OUTPUT)) {
    for (const c of [program, ...program.commands])
      c.configureOutput({ ...c.configureOutput(), outputError: jsonUsageError }).showHelpAfterError(false);
  }
  const operands = operandsOf(args);
  const group = operands[0];
  // A script needs the whole tree; `completion --profiles` (run at every Tab) needs none of it.
  if (group === 'completion' && !args.includes('--profiles')) await loadGroups(program, Object.keys(GROUPS));
  else if (group && GROUPS[group]) await loadGroups(program, [group], operands);
  if (namesBareGroup(program, args)) args = [...args, '--help'];
  // Examples belong to commands below the groups: the root's help (a startup benchmark) needs none.
  if (group && GROUPS[group] && (args.includes('--help') || args.includes('-h'))) {
    const { attachExamples } = await import('./commands/examples.js');
    attachExamples(program);
  }
  const parsed = normalizeArgs(program, args);
  const wantJson = jsonErrors(parsed, args, process.env.XCTL_OUTPUT);
  const verbose = args.includes('-v') || args.includes('--verbose');
  const unknown = await unknownCommand(program, args);
  if (unknown) return report(new UsageError(unknown.message, { hint: unknown.hint }), wantJson, verbose);
  try {
    await program.parseAsync([...argv.slice(0, 2), ...parsed]);
    return ExitCode.OK;
  } catch (e) {
    return exitCodeOf(e, controller.signal, wantJson, verbose);
  }
}

/** A command's failure as its exit code: commander's own, an interruption, or reported (report()). */
async function exitCodeOf(e: unknown, signal: AbortSignal, json: boolean, verbose: boolean): Promise<number> {
  const err = e as Error & { code?: string; exitCode?: number };
  if (typeof err.code === 'string' && err.code.startsWith('commander.')) {
    if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code)) return ExitCode.OK;
    if (err.code === 'commander.executeSubCommandAsync') return err.exitCode ?? 1;
    return ExitCode.USAGE; // commander already printed the message
  }
  if (signal.aborted && !(err instanceof XctlError && err.exitCode === ExitCode.PARTIAL)) {
    if (!(err instanceof InterruptedError)) write('interrupted');
    else write(err.message);
    return ExitCode.INTERRUPTED;
  }
  return report(err, json, verbose);
}

/**
 * Errors are JSON whenever the output is: --json, -o json|jsonl, --jq (its output is JSON), or
 * XCTL_OUTPUT=json|jsonl unless -o names another format.
 */
function jsonErrors(parsed: string[], args: string[], envOutput: string | undefined): boolean {
  if (parsed.some((a) => a.startsWith('--json') || a === '--jq' || a.startsWith('--jq='))) return true;
  const o = /(^|\s)(-o|--output)(=|\s)(\S+)/.exec(args.join(' '));
  return /^jsonl?$/.test(o ? o[4]! : (envOutput ?? ''));
}

/** commander's "error: ..." line (and its "did you mean"), as the JSON error object; exit 2. */
function jsonUsageError(str: string, writeErr: (s: string) => void): void {
  const message = str
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)')
    .trim();
  writeErr(JSON.stringify({ error: { type: 'UsageError', message, exit_code: ExitCode.USAGE } }) + '\n');
}

/** Shortens a long quoted input value ("got ...") so the error stays one readable line. */
function clip(message: string): string {
  return message.replace(/"([^"\n]{81,})"/g, (_m, v: string) => `"${v.slice(0, 40)}..." (${v.length} characters)`);
}

/**
 * Every error leaves through here: redacted (a server may echo the Authorization header back in
 * its error body) and with control characters escaped (the message may quote service data). The
 * escapes are valid JSON escapes, so the --json form still parses to the same text.
 */
function write(text: string): void {
  process.stderr.write(escapeForTerminal(redactSecrets(text), { keepLayout: true }) + '\n');
}

/**
 * An error the user can act on (XctlError) is its message and hint, never a stack; only an
 * internal error (a bug) shows one, with --verbose, mapped through the bundle's source map to
 * src/ file:line (core/stack.ts).
 */
async function report(error: Error, json: boolean, verbose: boolean): Promise<number> {
  const err = error instanceof XctlError ? error : (fileSystemError(error) ?? error);
  err.message = clip(err.message);
  if (err instanceof XctlError && 'silent' in err && err.silent) return err.exitCode;
  if (err instanceof XctlError) {
    if (json) write(JSON.stringify({ error: err.toJSON() }));
    else {
      write(`error: ${err.message}`);
      if (err.hint) write(`hint: ${err.hint}`);
    }
    return err.exitCode;
  }
  if (json) write(JSON.stringify({ error: { type: 'InternalError', message: err.message, exit_code: 1 } }));
  else {
    write(`error: ${err.message}`);
    if (verbose && err.stack) {
      const { mapBuildStack } = await import('./core/stack.js');
      write(mapBuildStack(err.stack, new URL('./', import.meta.url)));
    } else write('hint: this looks like a bug in xctl; run again with --verbose for details');
  }
  return ExitCode.FAILURE;
}

main(process.argv).then(
  (code) => {
    runCommandEnd();
    process.exitCode = code;
    // Let stdout drain; then leave even if a handle (a keep-alive socket) lingers.
    setTimeout(() => process.exit(code), 50).unref();
  },
  (e) => {
    write(`error: ${errorMessage(e)}`);
    process.exit(ExitCode.FAILURE);
  },
);
