// The root command: global options and the command groups, each imported only when it runs.
import { Command, Option } from 'commander';
import { helpWidth, wrapLongLines } from './commands/help-text.js';

export interface GroupModule {
  /**
   * Builds the group's tree under `cmd`. `operands`: what follows the group on the command line,
   * when only that group is loaded; a large group may build only the branch they name.
   */
  register(cmd: Command, operands?: string[]): void;
}

interface GroupEntry {
  description: string;
  load: () => Promise<GroupModule>;
}

// One line per group. A group's module is imported only when its name is on the command line,
// so `xctl --version` and `--help` load nothing but commander and this file.
export const GROUPS: Record<string, GroupEntry> = {
  auth: { description: 'credentials: set, log in, app token, status, profiles', load: () => import('./commands/auth/index.js') },
  request: { description: 'make a raw signed API call', load: () => import('./commands/request.js') },
  config: { description: 'read and change settings in the profile store', load: () => import('./commands/config/index.js') },
  webhooks: { description: 'v2 webhooks: create, list, validate, replay; crc, verify, local receiver', load: () => import('./commands/webhooks/index.js') },
  activity: { description: 'activity API: subscriptions and the live event stream', load: () => import('./commands/activity/index.js') },
  'account-activity': { description: "account activity API: a user's events delivered to a webhook", load: () => import('./commands/account-activity/index.js') },
  stream: { description: 'filtered stream rules and the webhooks receiving matching posts', load: () => import('./commands/stream/index.js') },
  ads: { description: 'the advertising API: accounts, campaigns, attachments, creatives, reference data', load: () => import('./commands/ads/index.js') },
  audiences: { description: 'custom audiences, sharing, flexible audiences, do-not-reach lists, estimates, bulk uploads', load: () => import('./commands/audiences/index.js') },
  media: { description: 'upload images, GIFs and videos (chunked, resumable) and get their media_key', load: () => import('./commands/media/index.js') },
  sandbox: { description: 'run the local emulator of the service', load: () => import('./commands/sandbox/index.js') },
  changelog: { description: 'the platform change history (deprecations and retirements)', load: () => import('./commands/changelog.js') },
  completion: { description: 'print a shell completion script: bash, zsh or fish', load: () => import('./commands/completion.js') },
};

export function buildProgram(version: string): Command {
  const program = new Command('xctl');
  program
    .description("Command-line tool for the platform's developer APIs, with a local sandbox (`xctl sandbox start`)")
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('--profile <name>', 'credential profile to use').env('XCTL_PROFILE'))
    .option('--json', 'JSON output (same as -o json)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json', 'jsonl', 'tsv']))
    .option('--fields <list>', 'comma-separated fields to print')
    .option('--base-url <url>', 'API base URL for the API and ads hosts (env XCTL_BASE_URL)')
    .option('--sandbox', 'use the ads sandbox host')
    .option('--account <id>', 'ads account id (env XCTL_ACCOUNT_ID)')
    .option('-v, --verbose', 'print an HTTP trace on stderr (secrets redacted)')
    .option('-q, --quiet', 'print only data and errors')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-progress', 'no spinners or progress bars')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--max-wait <seconds>', 'longest wait for a rate-limit reset (default 900)')
    // gh's "INHERITED FLAGS": --profile, -o, --json... are listed under every command's own.
    // Long generated flags (--daily-budget-amount-local-micro) leave a narrow description column:
    // wrap it anyway rather than run past the terminal's width.
    .configureHelp({ showGlobalOptions: true, minWidthToWrap: 20 })
    .showSuggestionAfterError(true)
    .showHelpAfterError('hint: run with --help for usage')
    // one line for the error (commander puts its "Did you mean" on a line of its own), one hint
    .configureOutput({
      outputError: (str, write) => write(str.replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)')),
      // Help (commander writes nothing else but --version here) fits the terminal, 80 columns when
      // unknown. Errors (writeErr) stay one line each.
      writeOut: (str) => process.stdout.write(wrapLongLines(str, helpWidth(process.stdout))),
    })
    .exitOverride(); // set before the groups are added: subcommands inherit it
  for (const [name, g] of Object.entries(GROUPS)) program.command(name).description(g.description);
  return program;
}

const VALUE_OPTIONS = new Set(['--profile', '-o', '--output', '--fields', '--base-url', '--account', '--max-wait']);

/** The operands of argv (after node and script), skipping global options and their values. */
export function operandsOf(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return out.concat(args.slice(i + 1));
    if (a.startsWith('-')) {
      if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/**
 * `xctl help a b c` is `xctl a b c --help` (commander's own help command goes one level only).
 * Returns argv (after node and script) rewritten, or unchanged.
 */
export function rewriteHelpWord(args: string[]): string[] {
  const ops = operandsOf(args);
  if (ops[0] !== 'help' || args.includes('--')) return args;
  const i = args.indexOf('help');
  return [...args.slice(0, i), ...args.slice(i + 1), '--help'];
}

type CommandInternals = Command & { _actionHandler?: unknown; _defaultCommandName?: string };

/**
 * True when argv names a command that only groups others (`xctl`, `xctl ads`, `xctl ads
 * campaigns`) and nothing after it: its help then goes to stdout with exit 0, as gh does,
 * instead of commander's "missing command" help on stderr.
 */
export function namesBareGroup(program: Command, args: string[]): boolean {
  if (args.some((a) => a === '-h' || a === '--help' || a === '-V' || a === '--version')) return false;
  let cmd = program as CommandInternals;
  for (const word of operandsOf(args)) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word)) as CommandInternals | undefined;
    if (!sub) return false;
    cmd = sub;
  }
  return cmd.commands.length > 0 && !cmd._actionHandler && !cmd._defaultCommandName;
}

export function firstOperand(args: string[]): string | undefined {
  return operandsOf(args)[0];
}

/**
 * Replaces the stub of the group named on the command line (or every group) by its full tree.
 * `operands` (the command line's, group first) let the group build only what was asked for.
 */
export async function loadGroups(program: Command, names: string[], operands?: string[]): Promise<void> {
  for (const name of names) {
    const entry = GROUPS[name];
    if (!entry) continue;
    const stub = program.commands.find((c) => c.name() === name);
    if (!stub) continue;
    const mod = await entry.load();
    mod.register(stub, names.length === 1 && operands?.[0] === name ? operands.slice(1) : undefined);
  }
}
